// "Look inside": every head's scores over training, in headless Chromium against the real built module and real
// workers (scripts/build page):
//   node --test --test-reporter=spec tests/browser/trace.test.mjs
// A short H = 1, 2, 4 comparison trains while the page records what the trace charts say at each redraw: one line per
// head in each of the four charts, the label thresholds as guides, the lines growing with the steps, the offset
// profiles of every head; then the same at 390 px without sideways scrolling, and the traces of an induction run
// (ids, not text). Screenshots go to tests/browser/output/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { paintedPixels } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const STEPS = 45;
const QUICK = `panel=heads&steps=${STEPS}&batch=4&context=32&layers=2&seeds=1&heads=1,2,4&irun=4`;
const CHARTS = ['#i-tr-previous', '#i-tr-first', '#i-tr-entropy', '#i-tr-distance'];

const { openPage, consoleErrors, foreignRequests } = pageSession();
let page;

before(() => mkdirSync(OUTPUT, { recursive: true }));

// the step of a line's last point, as the chart's text alternative states it ("L0 H0 0.123 at step 12")
const lastStep = (label, line) => Number(new RegExp(`${line} -?[\\d.]+ at step (\\d+)`).exec(label ?? '')?.[1] ?? NaN);

test('look inside plots every head over training: one line per head, growing with the steps', async () => {
  page = await openPage(`#${QUICK}`);
  // every redraw of the trace, as the page shows it: the previous-token chart's text alternative
  await page.evaluate(() => {
    window.traceLabels = [];
    new MutationObserver(() => window.traceLabels.push(document.getElementById('i-tr-previous').getAttribute('aria-label')))
      .observe(document.documentElement, { attributes: true, attributeFilter: ['data-trace'] });
  });
  await page.click('#c-start');
  await page.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
  await page.click('button[data-panel="inside"]');
  await page.waitForFunction((steps) => / at step (\d+)/.exec(document.getElementById('i-tr-previous').getAttribute('aria-label'))?.[1] === String(steps),
    STEPS);

  // the run's history: a trace at every measurement (set-up, every evalEvery steps, the end), all of one probe
  const runs = await page.evaluate(() => mhaDebug.runs().map((r) => ({ key: r.key, valSteps: [...r.val.step],
    steps: r.traces.map((t) => t.step), shapes: r.traces.map((t) => [t.trace.L, t.trace.H, t.trace.T, t.trace.K]),
    probes: new Set(r.traces.map((t) => Array.from(t.trace.ids).join(','))).size })));
  assert.deepEqual(runs.map((r) => r.key), ['H1', 'H2', 'H4']);
  for (const r of runs) {
    // measured with the validation loss (at every evalEvery steps, where the worker ends a chunk, and the end)
    assert.deepEqual(r.steps, r.valSteps, r.key);
    assert.equal(r.steps[0], 0);
    assert.equal(r.steps.at(-1), STEPS);
    assert.ok(r.steps.length >= 10, `${r.key}: ${r.steps.length} traces`);
    const H = Number(r.key.slice(1));
    for (const s of r.shapes) assert.deepEqual(s, [2, H, 32, 16], r.key);
    assert.equal(r.probes, 1, `${r.key}: one probe sequence throughout`);
  }

  // H = 4 is looked inside (irun=4): L·H = 8 lines per chart, plus the step column and the threshold guide
  for (const id of CHARTS) {
    const guide = id === '#i-tr-distance' ? 0 : 1;
    assert.equal(await page.locator(`${id} .u-legend .u-series`).count(), 1 + 8 + guide, id);
    assert.ok(await paintedPixels(page.locator(`${id} canvas`)) > 2000, `${id} nearly empty`);
  }
  assert.deepEqual(await page.locator('#i-tr-previous .u-legend .u-series th').evaluateAll((ths) => ths.slice(1, 4).map((t) => t.textContent.trim())),
    ['L0 H0', 'L0 H1', 'L0 H2']);
  assert.match(await page.locator('#i-tr-previous .u-legend').textContent(), /previous-token head at ≥ 0\.5/);
  assert.match(await page.locator('#i-tr-first .u-legend').textContent(), /first-token head at ≥ 0\.5/);
  assert.match(await page.locator('#i-tr-entropy .u-legend').textContent(), /broad at ≥ 0\.9/);

  // live: the charts were redrawn while the run trained, each time with lines reaching a later step
  const seen = (await page.evaluate(() => window.traceLabels)).map((l) => lastStep(l, 'L1 H3')).filter(Number.isFinite);
  const distinct = [...new Set(seen)];
  assert.ok(distinct.length >= 3, `the lines grew in ${distinct.length} redraws: ${distinct}`);
  assert.deepEqual(distinct, [...distinct].sort((a, b) => a - b), `steps went back: ${distinct}`);
  assert.equal(distinct.at(-1), STEPS);

  // the probe as text, and the offset profiles of every head on one scale
  assert.match(await page.locator('#i-trace-probe').textContent(), /on the same 32 positions, the run's first validation sequence: “.{32}”$/u);
  assert.equal(await page.locator('#i-profiles .profile').count(), 8);
  assert.deepEqual(await page.locator('#i-profiles .profile figcaption strong').allTextContents(),
    ['L0 H0', 'L0 H1', 'L0 H2', 'L0 H3', 'L1 H0', 'L1 H1', 'L1 H2', 'L1 H3']);
  assert.equal(await page.locator('#i-profiles .profile-bar').count(), 8 * 16);
  assert.match(await page.locator('#i-profiles .profiles-caption').textContent(), new RegExp(`at step ${STEPS}; every head on the same scale, 0 to \\d\\.\\d\\.`));

  // another run: its own number of lines
  await page.check('#i-runs input[value="H1"]');
  await page.waitForFunction(() => document.querySelectorAll('#i-tr-previous .u-legend .u-series').length === 1 + 2 + 1);
  assert.equal(await page.locator('#i-profiles .profile').count(), 2);
  await page.check('#i-runs input[value="H4"]');
  await page.waitForFunction(() => document.querySelectorAll('#i-profiles .profile').length === 8);

  // the profiles follow the snapshot slider: the first snapshot is at set-up
  await page.locator('#i-step').fill('0');
  await page.waitForFunction(() => /at step 0;/.test(document.querySelector('#i-profiles .profiles-caption').textContent));
  await page.locator('#i-step').fill(await page.locator('#i-step').getAttribute('max'));
  await page.waitForFunction((s) => new RegExp(`at step ${s};`).test(document.querySelector('#i-profiles .profiles-caption').textContent), STEPS);

  await page.locator('#panel-inside .trace').screenshot({ path: `${OUTPUT}trace-1280.png` });
});

test('at 390 px the trace fits the width: no sideways scrolling, one chart per row', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => document.documentElement.scrollWidth <= 390);
  const widths = await page.evaluate((ids) => ids.map((id) => document.querySelector(id).getBoundingClientRect().right), CHARTS);
  for (const right of widths) assert.ok(right <= 390, `a chart reaches ${right} px`);
  const boxes = await page.locator('#i-profiles .profile').evaluateAll((fs) => fs.map((f) => f.getBoundingClientRect().right));
  for (const right of boxes) assert.ok(right <= 390, `a profile reaches ${right} px`);
  await page.locator('#panel-inside .trace').screenshot({ path: `${OUTPUT}trace-390.png` });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('an induction run records its trace too: the same probe of token ids at every measurement', async () => {
  const p = await openPage('#panel=induction&nsteps=40');
  await p.click('#n-start');
  await p.waitForSelector('html[data-induction="done"]', { timeout: 90_000 });
  const runs = await p.evaluate(() => mhaDebug.inductionRuns().map((r) => ({ steps: r.traces.map((t) => t.step),
    L: r.traces.at(-1).trace.L, tokens: Array.from(r.traces.at(-1).trace.tokens), ids: Array.from(r.traces.at(-1).trace.ids),
    probes: new Set(r.traces.map((t) => Array.from(t.trace.ids).join(','))).size })));
  assert.equal(runs.length, 2);
  for (const r of runs) {
    assert.equal(r.steps[0], 0);
    assert.equal(r.steps.at(-1), 40);
    assert.ok(r.steps.length >= 3);
    assert.equal(r.probes, 1);
    assert.deepEqual(r.tokens, r.ids.map(String));
  }
  assert.deepEqual(runs.map((r) => r.L).sort(), [1, 2]);
  await p.close();
});

// A main thread that runs its short timers late, as on a machine whose renderer lags its workers (a loaded 2-core VM):
// every setTimeout of less than 50 ms fires 400 ms late. Runs in the page before its own scripts (openPage's init).
function lateTimers() {
  const setTimer = window.setTimeout.bind(window);
  // @ts-ignore: the same signature
  window.setTimeout = (callback, ms = 0, ...args) => setTimer(callback, ms < 50 ? ms + 400 : ms, ...args);
}

// Seen on 2026-11-29 in the a11y test beside an ASan build: the profiles of a six-step run never appeared, its every
// trace having come while the panel's body was still hidden (the run list, which shows it, is drawn on a timer).
test('a run whose every trace comes before the panel shows: its profiles are drawn all the same', async () => {
  const p = await openPage('#panel=heads,inside&heads=2&layers=1&steps=6&batch=2&context=16&seeds=1&irun=2', { init: lateTimers });
  await p.click('#c-start');
  await p.waitForSelector('html[data-comparison="done"]', { timeout: 60_000 });
  await p.waitForFunction(() => document.querySelectorAll('#i-profiles .profile').length === 2 &&
    /at step 6;/.test(document.querySelector('#i-profiles .profiles-caption')?.textContent ?? ''));
  await p.close();
});

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});
