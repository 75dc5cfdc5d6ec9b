// WCAG 2.0 and 2.1, levels A and AA, as axe-core checks them (a pinned dev dependency), in headless Chromium: every
// panel alone as a course page embeds it, and the whole page after short runs of the training panels with a model
// looked inside. Zero violations, each named by its rule and element when there is one. axe's experimental
// label-content-name-mismatch (WCAG 2.5.3: a control's name contains its visible words) is checked too.
//   node --test --test-reporter=spec tests/browser/a11y.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { waitSayingRuns } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const PANELS = ['reshape', 'attention', 'worked', 'heads', 'break', 'inside', 'induction', 'params'];
// tiny budgets: what is checked is the markup of drawn content, not what the models learn
const TRAINED = '#heads=1,2&steps=6&batch=2&context=16&seeds=1&variants=no_transpose_split,no_transpose_merge&bsteps=6' +
  '&bbatch=2&bseeds=1&nsteps=30';

const session = pageSession({ timeout: 30_000 });

// axe's violations on the page now, one line each: "rule (impact): element | what to fix"
async function violations(p) {
  // evaluated through the devtools protocol, which the page's Content-Security-Policy does not govern
  await p.evaluate(AXE);
  const r = await p.evaluate((tags) => globalThis.axe.run(document, {
    runOnly: { type: 'tag', values: tags }, rules: { 'label-content-name-mismatch': { enabled: true } },
  }), TAGS);
  return r.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} | ${n.failureSummary.replace(/\s+/g, ' ')}`));
}

for (const panel of PANELS) {
  test(`${panel}, embedded alone: no WCAG A/AA violation`, async () => {
    const p = await session.openPage(`?embed=1&panel=${panel}`);
    try {
      assert.deepEqual(await violations(p), []);
    } finally {
      await p.close();
    }
  });
}

test('the whole page with trained runs and a model looked inside: no WCAG A/AA violation', async () => {
  const p = await session.openPage(TRAINED);
  try {
    await p.click('#c-start');
    await p.click('#b-start');
    await p.click('#n-start');
    await waitSayingRuns(p, 'html[data-comparison="done"][data-breakit="done"][data-induction="done"]', 180_000);
    // the first run is looked inside once it is done: its scores and head profiles are drawn
    await p.locator('#panel-inside').scrollIntoViewIfNeeded();
    await waitSayingRuns(p, '#i-scores tbody tr');
    await waitSayingRuns(p, '#i-profiles canvas, #i-profiles svg, #i-profiles figure');
    // and its heads pruned, with the values as text unfolded
    await p.click('#i-prune');
    await waitSayingRuns(p, 'html[data-pruning="1"]');
    await p.locator('#panel-inside .pruning summary').click();
    assert.deepEqual(await violations(p), []);
  } finally {
    await p.close();
  }
});

// every step of the lesson as a student first meets it (the question and the prediction form), one step embedded
// alone as an instructor would, and a judged step (its verdict, explanation and the "predict again" control)
test('the lesson: every step, a step embedded alone, and a judged step: no WCAG A/AA violation', async () => {
  const p = await session.openPage('#lesson=1');
  try {
    const steps = await p.$$eval('.lesson-nav button', (bs) => bs.length);
    for (let i = 0; i < steps; ++i) {
      await p.click(`.lesson-nav li:nth-child(${i + 1}) button`);
      await p.waitForSelector(`.lesson-nav li:nth-child(${i + 1}) button[aria-current="step"]`);
      assert.deepEqual(await violations(p), [], `step ${i + 1}`);
    }
    await p.click('.lesson-nav li:nth-child(1) button');
    await p.check('input[name="lesson-reshape"] >> nth=1');
    await p.click('[data-action="commit"]');
    await p.waitForSelector('.lesson-judgement[data-mark="right"], .lesson-judgement[data-mark="wrong"]');
    assert.deepEqual(await violations(p), [], 'a judged step');
  } finally {
    await p.close();
  }
  const alone = await session.openPage('?embed=1&lesson=worked');
  try {
    await alone.waitForSelector('.lesson-step[data-step="worked"]');
    assert.deepEqual(await violations(alone), []);
  } finally {
    await alone.close();
  }
});

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreignRequests, []);
});
