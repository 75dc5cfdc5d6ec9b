// No sideways scrolling, for every panel on its own and for the whole page, at a phone's 390 px and a laptop's
// 1280 px, with the panels' content drawn (after short runs of the heads, break and induction panels, looked inside):
//   node --test --test-reporter=spec tests/browser/layout.test.mjs
// "Sideways scrolling" is either the page being wider than the window, or any element (inside a scrolling box or
// not) reaching past the window's right edge: a scrolling box is still sideways scrolling on a phone. A failure names
// the outermost elements that stick out and by how much. Full-page screenshots of each go to tests/browser/output/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterNextFrame } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const TRAINING = 120_000;  // ms the three short runs may take together on a loaded machine (waited for, never judged)
const WIDTHS = [1280, 390];
const VIEWS = ['all', 'reshape', 'attention', 'worked', 'heads', 'break', 'inside', 'induction', 'params'];
// tiny budgets: what is checked is the layout of drawn content, not what the models learn
const HASH = '#heads=1,2&steps=6&batch=2&context=16&seeds=1&variants=no_transpose_split,no_transpose_merge&bsteps=6' +
  '&bbatch=2&bseeds=1&nsteps=30';

const session = pageSession({ viewport: { width: 1280, height: 800 }, timeout: 30_000 });
let page;

// In the page: the page's overflow past the window, and the outermost visible elements whose box ends right of the
// window (their descendants are not listed again), each as "tag#id.class: N px past the edge".
function overflowIn() {
  const root = document.scrollingElement;
  const edge = root.clientWidth;
  const name = (e) => e.tagName.toLowerCase() + (e.id ? `#${e.id}` : '') +
    (typeof e.className === 'string' && e.className.trim() ? `.${e.className.trim().split(/\s+/).join('.')}` : '');
  const out = [];
  const walk = (e) => {
    for (const c of e.children) {
      const r = c.getBoundingClientRect();
      const shown = c.getClientRects().length > 0 && getComputedStyle(c).visibility !== 'hidden';
      if (shown && r.width > 0 && r.right > edge + 0.5) {
        // a box positioned off-screen on purpose (screen-reader text) is clipped to 1 px: not content
        if (!(r.width <= 1 && r.height <= 1)) {
          let path = '', a = c.parentElement;
          for (let i = 0; i < 3 && a && a !== document.body; ++i, a = a.parentElement) path = `${name(a)} > ${path}`;
          out.push(`${path}${name(c)}: ${Math.round(r.right - edge)} px past the edge`);
          continue;
        }
      }
      walk(c);
    }
  };
  walk(document.body);
  return { page: root.scrollWidth - root.clientWidth, elements: out };
}

// The wide panels are content-visibility: auto (style.css): off screen, the browser skips their rendering, and their
// views hear of a new width (ResizeObserver) only once they are on screen, as when a reader scrolls to them. So each
// shown panel is brought on screen in turn before the page is measured.
async function scrollThrough(p) {
  const panels = p.locator('#panels > *:not([hidden]), #intro > section:not([hidden])');
  for (let i = 0, n = await panels.count(); i < n; ++i) {
    await panels.nth(i).evaluate((e) => e.scrollIntoView({ block: 'start' }));
    const height = await panels.nth(i).evaluate((e) => e.getBoundingClientRect().height);
    // a panel taller than the window: its lower parts too
    for (let y = 800; y < height; y += 800) {
      await p.evaluate((dy) => window.scrollBy(0, dy), 800);
      await settle(p, 50);
    }
    await settle(p, 50);
  }
  await p.evaluate(() => window.scrollTo(0, 0));
}

async function settle(p, ms = 400) {
  // two frames for ResizeObservers and the views they redraw, then a little time for charts that redraw later
  await afterNextFrame(p);
  await p.waitForTimeout(ms);
}

before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
});

test('the whole page: three short runs train, and the first run is looked inside', async () => {
  page = await session.openPage(HASH);
  const p = page;
  await p.click('#c-start');
  await p.click('#b-start');
  await p.click('#n-start');
  for (const done of ['comparison', 'breakit', 'induction']) await p.waitForSelector(`html[data-${done}="done"]`, { timeout: TRAINING });
  await p.locator('#panel-inside').scrollIntoViewIfNeeded();
  await p.waitForSelector('#i-scores tbody tr');
  await p.waitForSelector('#i-profiles canvas, #i-profiles svg, #i-profiles figure');
});

for (const view of VIEWS) {
  test(`${view === 'all' ? 'the whole page' : `panel ${view} alone`}: nothing sticks out at ${WIDTHS.join(' or ')} px`, async () => {
    const p = page;
    assert.ok(p, 'the first test sets up the page');
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.click(`button[data-panel="${view}"]`);
    if (view === 'inside' || view === 'all') {
      await p.locator('#panel-inside').scrollIntoViewIfNeeded();
      await p.waitForSelector('#i-grid canvas');
    }
    const problems = [];
    for (const width of WIDTHS) {
      await p.setViewportSize({ width, height: width < 800 ? 844 : 800 });
      await settle(p);
      await scrollThrough(p);
      // views redraw for the new width in their own time: give them a little more before judging
      let o = await p.evaluate(overflowIn);
      for (let i = 0; i < 3 && (o.page > 0 || o.elements.length); ++i) {
        await settle(p, 500);
        await scrollThrough(p);
        o = await p.evaluate(overflowIn);
      }
      if (o.page > 0) problems.push(`at ${width} px the page is ${o.page} px wider than the window`);
      for (const e of o.elements) problems.push(`at ${width} px ${e}`);
      await p.screenshot({ path: join(OUTPUT, `layout-${view}-${width}.png`), fullPage: true });
    }
    assert.deepEqual(problems, []);
  });
}

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(session.foreignRequests, []);
  assert.deepEqual(session.consoleErrors, []);
});
