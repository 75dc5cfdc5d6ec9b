// "Prune the heads" in Look inside, in headless Chromium against the real built module and real workers
// (scripts/build page):
//   node --test --test-reporter=spec tests/browser/pruning.test.mjs
// Two seeds of H = 8 train in panel 4; the section asks both runs' workers for their pruning curves and the core for
// the verdict. Checked against the data: the curve at k = 0 is each run's own last validation loss, the mean line is
// the mean, the text table holds every value, the published finding carries the curves and an answer that follows
// from its own intervals by the rule, and the sentence on the page is the finding's. Screenshots at 1280 and 390 px
// go to tests/browser/output/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const STEPS = 40;
const QUICK = `panel=heads,inside&heads=8&seeds=2&steps=${STEPS}&batch=4&context=32&irun=8`;
const N = 2 * 8;  // heads: 2 layers of 8

const { openPage, consoleErrors, foreignRequests } = pageSession({ timeout: 60_000 });
let page;

before(() => mkdirSync(OUTPUT, { recursive: true }));

test('prune the heads: curves, verdict and finding agree with the runs and with the rule', async () => {
  page = await openPage(`#${QUICK}`);
  await page.click('#c-start');
  await page.waitForSelector('html[data-comparison="done"]', { timeout: 180_000 });
  await page.locator('#i-prune').scrollIntoViewIfNeeded();
  await page.waitForSelector('#i-prune:not([disabled])');
  assert.match(await page.locator('#i-prune-status').textContent(), /2 runs of this kind: seeds 1, 2\./);
  assert.match(await page.locator('#i-prune-command').textContent(),
    /^mha-train --preset heads .*--heads 8 .*--steps 40 .*--seeds 2 --seed 1 --prune$/);
  await page.click('#i-prune');
  await page.waitForSelector('html[data-pruning="1"]', { timeout: 60_000 });

  const f = await page.evaluate(() => mhaDebug.finding('pruning'));
  assert.ok(f, 'a pruning finding was published');
  assert.equal(f.H, 8);
  assert.equal(f.L, 2);
  assert.equal(f.seeds, 2);
  assert.deepEqual(f.seedList, [1, 2]);
  assert.equal(f.steps, STEPS);
  assert.equal(f.threshold, 0.1);
  assert.deepEqual(f.headsRemaining, Array.from({ length: N + 1 }, (_, k) => N - k));
  assert.equal(f.curves.length, 2);
  for (const c of f.curves) assert.equal(c.length, N + 1);

  // k = 0 is each run's own validation loss at the end of training (the same batches, the same weights)
  const finals = await page.evaluate(() => mhaDebug.runs().filter((r) => r.settings.nHeads === 8)
    .sort((a, b) => a.settings.seed - b.settings.seed).map((r) => r.val.loss.at(-1)));
  assert.deepEqual(f.curves.map((c) => c[0]), finals);
  // the mean curve is the mean; each seed's order is a permutation sorted by its importance
  f.meanCurve.forEach((m, k) => assert.ok(Math.abs(m - (f.curves[0][k] + f.curves[1][k]) / 2) < 1e-12, `mean at ${k}`));
  for (let s = 0; s < 2; ++s) {
    assert.deepEqual([...f.order[s]].sort((a, b) => a - b), Array.from({ length: N }, (_, i) => i));
    for (let j = 1; j < N; ++j) assert.ok(f.importance[s][f.order[s][j - 1]] <= f.importance[s][f.order[s][j]]);
    // removing the least important head alone is the first step of the curve
    assert.ok(Math.abs(f.curves[s][1] - f.curves[s][0] - f.importance[s][f.order[s][0]]) < 1e-12);
  }

  // the answer follows from the finding's own intervals by the rule: the unbroken run of k surely below τ, then
  // what the next k's interval does
  let removable = 0;
  while (removable < N && f.rise[removable + 1].high < f.threshold) ++removable;
  assert.equal(f.removable, removable);
  const next = f.rise[removable + 1];
  const outcome = removable === N ? 'removable' : next.low > f.threshold ? 'rises' : 'cannot-tell';
  assert.equal(f.outcome, outcome);
  for (let k = 1; k <= N; ++k) assert.ok(Math.abs(f.rise[k].mean - (f.curves[0][k] - f.curves[0][0] + f.curves[1][k] - f.curves[1][0]) / 2) < 1e-12);

  // on the page: the sentence is the finding's, and every value of the chart is in the text table
  assert.equal(await page.locator('#i-prune-verdict').textContent(), f.sentence);
  assert.match(f.sentence, /^Over 2 seeds, /);
  const rows = await page.locator('#i-prune-curves tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(rows.length, N + 1);
  rows.forEach((r, k) => {
    assert.deepEqual(r.slice(0, 5), [String(k), String(N - k), f.curves[0][k].toFixed(3), f.curves[1][k].toFixed(3), f.meanCurve[k].toFixed(3)]);
  });
  assert.equal(await page.locator('#i-prune-importance tbody tr').count(), N);
  // the chart: two seeds, the mean and the threshold, with heads remaining on x
  assert.equal(await page.locator('#i-prune-chart .u-legend .u-series').count(), 1 + 2 + 1 + 1);
  assert.match(await page.locator('#i-prune-chart').getAttribute('aria-label'), /^Validation loss against heads remaining, 2 seeds/);
  assert.match(await page.locator('.paper-note').textContent(), /Michel, Levy & Neubig/);

  await page.locator('#panel-inside .pruning summary').click();  // the tables open, for the screenshot
  await page.locator('#panel-inside .pruning').screenshot({ path: `${OUTPUT}pruning-1280.png` });
  await page.locator('#panel-inside .pruning summary').click();
});

test('runs that sleep are pruned in turn: the same curves, and the other seed lets its worker go again', async () => {
  const first = await page.evaluate(() => mhaDebug.finding('pruning').curves);
  // both finished runs let their workers go now, as they would after 15 idle seconds (runs.js Run.sleep)
  const bySeed = () => mhaDebug.runs().sort((a, b) => a.settings.seed - b.settings.seed);
  assert.deepEqual(await page.evaluate(`(${bySeed})().map((r) => r.sleep())`), [true, true]);
  await page.click('#i-prune');
  await page.waitForSelector('html[data-pruning="2"]', { timeout: 60_000 });
  // started again from their final weights, the workers give the same curves as the live ones did
  assert.deepEqual(await page.evaluate(() => mhaDebug.finding('pruning').curves), first);
  // the chosen run (H8, seed 1: irun=8) keeps its worker for the looks to come; the other seed's went again
  assert.deepEqual(await page.evaluate(`(${bySeed})().map((r) => [r.key, r.awake])`), [['H8', true], ['H8-seed2', false]]);
});

test('at 390 px the section fits the width', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => document.documentElement.scrollWidth <= 390);
  const right = await page.evaluate(() => document.getElementById('i-prune-chart').getBoundingClientRect().right);
  assert.ok(right <= 390, `the chart reaches ${right} px`);
  await page.locator('#panel-inside .pruning').screenshot({ path: `${OUTPUT}pruning-390.png` });
  assert.ok(await page.locator('#panel-inside .pruning').evaluate((e) => e.getBoundingClientRect().height) < 2400,
    'the section stays short on a phone: the tables are folded');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});
