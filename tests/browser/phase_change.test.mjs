// The induction panel's phase-change chart in headless Chromium, against the real built module and real workers
// (scripts/build page):
//   node --test --test-reporter=spec tests/browser/phase_change.test.mjs
// Trains the short setting, seed 1, for 2,600 steps (the page measures every 104) at the rate 2e-3 (nlr; the
// setting's rate until 2026-11-27, 1.5e-3 since): seed 1 crossed the induction threshold at step 2,250 natively at
// that rate (docs/experiments.md, "The induction phase change"; at 1.5e-3 near 2,500, too close to the end). Checks the chart's text (its
// table and its sentence) and the 'phase' finding against the run's own measurements, the steps worked out here from
// the same definitions (core/lab/phase_change.hpp), and the core's answers to a hand-made series and a bad one.
// Screenshots of the panel at 1280 and 390 px go to tests/browser/output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paintedPixels } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const STEPS = 2600;
const HASH = `#panel=induction&nsteps=${STEPS}&nseed=1&nlr=0.002`;

const { openPage, consoleErrors, foreignRequests } = pageSession();
let page;

// the crossing and the drop by their definitions (phase_change.hpp): the first step with the score at or above the
// threshold; the first step from which the repeat's loss stays at or below a quarter of the first copy's
function expected(points, threshold) {
  const cross = points.find((x) => x.score >= threshold)?.step ?? -1;
  let drop = -1;
  for (let i = points.length - 1; i >= 0 && points[i].repeat <= 0.25 * points[i].first; --i) drop = points[i].step;
  return { cross, drop, happened: cross >= 0 && drop >= 0, lag: cross >= 0 && drop >= 0 ? drop - cross : 0 };
}

test('the phase change: the chart, its values as text and the finding agree with the run\'s measurements', async () => {
  page = await openPage(HASH);
  const p = page;
  // every 'phase' finding, as the lesson would hear them
  await p.evaluate(() => {
    window.phaseFindings = [];
    document.addEventListener('mha-finding', (e) => {
      const { kind, data } = /** @type {CustomEvent} */ (e).detail;
      if (kind === 'phase') window.phaseFindings.push(data);
    });
  });
  const t0 = Date.now();
  await p.click('#n-start');
  await p.waitForSelector('html[data-induction="done"]', { timeout: 300_000 });
  console.log(`# induction, 2 runs × ${STEPS} steps: ${Date.now() - t0} ms`);
  const run = await p.evaluate(() => {
    const r = globalThis.mhaDebug.inductionRuns().find((x) => x.key === 'L2');
    return { status: r.status, evalEvery: r.settings.evalEvery, seed: r.settings.seed,
      points: r.induction.map((x) => ({ step: x.step, score: x.measurement.bestInduction, first: x.measurement.lossFirst,
        repeat: x.measurement.lossRepeat })) };
  });
  assert.equal(run.status, 'done');
  assert.equal(run.evalEvery, 104);  // stepsBetween(2600, 25)
  const threshold = 0.4;
  const want = expected(run.points, threshold);
  assert.ok(want.cross >= 0, 'seed 1 crosses the threshold within 2,600 steps');

  // the finding: published on progress and at the end; the last one is the run's
  const findings = await p.evaluate(() => window.phaseFindings);
  assert.ok(findings.length >= 2, `only ${findings.length} findings`);
  const last = findings.at(-1);
  assert.deepEqual({ crossStep: last.crossStep, dropStep: last.dropStep, lag: last.lag, happened: last.happened },
    { crossStep: want.cross, dropStep: want.drop, lag: want.lag, happened: want.happened });
  assert.equal(last.evalEvery, 104);
  assert.equal(last.threshold, threshold);
  assert.equal(last.seed, 1);
  assert.equal(last.done, true);
  assert.equal(last.lastStep, STEPS);
  assert.equal(findings[0], null, "a new run takes the earlier finding back first");
  assert.equal(findings.filter((f) => f?.done).length, 1, "one finding says the run ended");

  // the sentence under the chart is the core's, with the steps above
  const sentence = await p.locator('#n-phase .phase-sentence').textContent();
  assert.equal(sentence, last.sentence);
  const step = (s) => s.toLocaleString('en-US');
  assert.match(sentence, new RegExp(`^The induction score reached 0\\.4 at step ${step(want.cross)};`));
  if (want.happened) {
    assert.ok(sentence.includes(`the repeat loss dropped at step ${step(want.drop)}: a lag of ${want.lag < 0 ? '−' : ''}${step(Math.abs(want.lag))} steps`), sentence);
  }
  assert.ok(sentence.endsWith('(measured every 104 steps).'), sentence);

  // the values as text: one row per measurement, as measured
  const rows = await p.locator('#n-phase .phase-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(rows.length, run.points.length);
  run.points.forEach((x, i) => assert.deepEqual(rows[i],
    [step(x.step), x.score.toFixed(3), x.repeat.toFixed(3), x.first.toFixed(3)]));
  // the chart: both scales' series, the threshold, drawn; its label names the ends and the core's sentence
  assert.equal(await p.locator('#n-phase .u-legend .u-series').count(), 1 + 4);  // step, loss, score, threshold, mark
  assert.ok(await paintedPixels(p.locator('#n-phase canvas')) > 3000);
  const label = await p.locator('#n-phase [role="img"]').getAttribute('aria-label');
  assert.ok(label.startsWith(`The phase change of the 2-layer model, ${run.points.length} measurements; step 0: score`), label);
  assert.ok(label.endsWith(sentence), label);
  // the command that reruns it natively
  assert.equal(await p.locator('#n-phase-command').textContent(),
    `build/native/core/mha-train --preset induction-short --steps ${STEPS} --lr 0.002 --min-lr 0.002 --seed 1 --eval-every 104`);
  console.log(`# ${sentence}`);
});

test('the phase change: the core answers a hand-made series, and refuses a bad one with a sentence', async () => {
  const r = await page.evaluate(async () => {
    const { phaseChange } = await import(new URL('build/js/engine.js', location.href).href);
    // score first at or above 0.4 at step 150; the repeat at or below 0.25 · 4 = 1 from step 200 on (0.95 at 100 is
    // undone at 150): lag 50
    const good = phaseChange({ step: [0, 50, 100, 150, 200, 250], score: [0.1, 0.2, 0.35, 0.45, 0.6, 0.7],
      lossFirst: [4, 4, 4, 4, 4, 4], lossRepeat: [4, 2.2, 0.95, 1.05, 0.8, 0.4] }, 0.4, 50);
    const ragged = phaseChange({ step: [0, 50], score: [0.1], lossFirst: [4, 4], lossRepeat: [4, 4] }, 0.4, 50);
    const notNumbers = phaseChange(/** @type {any} */ ({ step: ['0'], score: [0.1], lossFirst: [4], lossRepeat: [4] }), 0.4, 50);
    return { good, ragged, notNumbers };
  });
  assert.deepEqual([r.good.ok, r.good.crossStep, r.good.dropStep, r.good.lag, r.good.happened], [true, 150, 200, 50, true]);
  assert.equal(r.good.sentence, 'The induction score reached 0.4 at step 150; the repeat loss dropped at step 200: a lag of 50 steps (measured every 50 steps).');
  assert.deepEqual(r.ragged, { ok: false, error: 'every evaluation needs a step, a score and both copy losses.' });
  assert.deepEqual(r.notNumbers, { ok: false, error: 'The series must hold numbers only.' });
});

test('the phase change: screenshots of the panel at 1280 and 390 px', async () => {
  const p = page;
  mkdirSync(OUTPUT, { recursive: true });
  await p.locator('#n-phase details summary').click();  // the values as a table, shown
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: width < 800 ? 844 : 800 });
    await p.waitForTimeout(400);  // the charts follow their containers' new width
    await p.locator('#panel-induction').screenshot({ path: join(OUTPUT, `phase-change-${width}.png`) });
    await p.locator('#n-phase').screenshot({ path: join(OUTPUT, `phase-change-chart-${width}.png`) });
    await p.locator('#panel-induction .phase-change').screenshot({ path: join(OUTPUT, `phase-change-paper-${width}.png`) });
  }
  await p.close();
});

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});
