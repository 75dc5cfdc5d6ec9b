// Several frames of the lab on one course page: the complete page of docs/teaching.md, served from another origin
// with the test server's address in place of YOUR-HOST, embeds three panels in sandboxed frames. Each frame must end
// at its own content's height (the README's script matches a height message to its frame by event.source), and each
// message names its frame (the frame= setting of the frame's address).
//   node --test --test-reporter=spec tests/browser/frames.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { serveOnePage, watchPage } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const session = pageSession();
const { consoleErrors, foreignRequests } = session;

// the course page as docs/teaching.md gives it: its first html block that is a whole page
function teachingCoursePage() {
  const md = readFileSync(new URL('../../docs/teaching.md', import.meta.url), 'utf8');
  const page = md.split('```html\n').slice(1).map((b) => b.split('\n```')[0]).find((b) => b.startsWith('<!doctype html>'));
  assert.ok(page, 'docs/teaching.md has a complete course page');
  return page;
}

test('three panels on one course page: each frame fits its own content, and each message names its frame', async () => {
  const html = teachingCoursePage().replaceAll('https://YOUR-HOST/mha-sandbox/', session.base);
  assert.equal((html.match(/<iframe /g) ?? []).length, 3);
  const { server, url } = await serveOnePage(html);
  const p = await session.context.newPage();
  watchPage(p, { errors: consoleErrors, foreign: foreignRequests });
  try {
    // the names the host page receives, recorded from its start
    await p.addInitScript(() => {
      globalThis.heightNames = [];
      addEventListener('message', (e) => {
        if (e.data && e.data.type === 'mha-sandbox:height') globalThis.heightNames.push(e.data.frame);
      });
    });
    await p.goto(url);
    const names = ['reshape', 'worked', 'params'];
    const frameOf = (name) => p.frames().find((f) => new URL(f.url()).searchParams.get('frame') === name);
    await p.waitForFunction((n) => document.querySelectorAll('iframe.mha-lab').length === n, names.length);
    for (const name of names) {
      await p.waitForFunction((nm) => [...document.querySelectorAll('iframe')].some((f) => f.src.includes(`frame=${nm}`)), name);
    }
    // each frame's content height, and the height the host gave its frame, agree once the messages have settled.
    // Chromium does not lay out a cross-origin frame that is off screen, so each is scrolled to, as a reader would
    const measure = async () => {
      const out = [];
      for (const name of names) {
        await p.locator(`iframe[src*="frame=${name}"]`).scrollIntoViewIfNeeded();
        const f = frameOf(name);
        const content = f ? await f.evaluate(() => document.documentElement.dataset.ready === 'true'
          && Math.ceil(document.documentElement.getBoundingClientRect().height)) : false;
        const given = await p.evaluate((nm) => [...document.querySelectorAll('iframe')].find((x) => x.src.includes(`frame=${nm}`)).style.height, name);
        out.push({ name, content, given });
      }
      return out;
    };
    let last = [];
    for (let i = 0; i < 100; ++i) {
      last = await measure();
      if (last.every((m) => m.content && m.given === `${m.content}px`)) break;
      await p.waitForTimeout(200);
    }
    for (const m of last) assert.equal(m.given, `${m.content}px`, `${m.name}: ${JSON.stringify(last)}`);
    // three panels of different heights: one frame's height was not simply copied to the others
    assert.equal(new Set(last.map((m) => m.content)).size, 3, JSON.stringify(last));
    const seen = await p.evaluate(() => globalThis.heightNames);
    for (const name of names) assert.ok(seen.includes(name), `no height message named ${name}: ${seen}`);
    assert.ok(seen.every((n) => names.includes(n)), `a message without its frame's name: ${seen}`);
    console.log(`# heights: ${last.map((m) => `${m.name} ${m.given}`).join(', ')}`);
  } finally {
    await p.close();
    server.close();
  }
});

test('no request left 127.0.0.1, no console errors', () => {
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
});
