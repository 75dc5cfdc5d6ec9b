// A long run does not grow without bound: 5,000 steps in the heads panel with snapshots on, the worker killed
// halfway. What is held per run, and its bound:
//   - the worker's wasm memory: the model, AdamW state, activations of one batch, the validation batches; it grows
//     to its size in the first steps and never after (checked: the same bytes at the middle and at the end);
//   - on the page: the curves (one number per step: bounded by the steps of the schedule), at most 24 weights-only
//     snapshots for scrubbing (runs.js thinSnapshots: past 24, every other one in between is dropped, the first
//     and the last stay) and one full snapshot for recovery.
//   node --test --test-reporter=spec tests/browser/long_run.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium, watchPage } from '../../scripts/chromium.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { thinSnapshots } from '../../web/js/runs.js';

const STEPS = 5000;
// a tiny model so that 5,000 steps take seconds: the bounds are about what is kept, not how fast
const LONG = `panel=heads&heads=4&seeds=1&cD=16&layers=1&context=8&batch=2&steps=${STEPS}`;
const MAX_WORKER_HEAP = 64 << 20;  // bytes of wasm memory a worker of this model may use
const MAX_PAGE_HEAP = 128 << 20;   // bytes of the page's JS heap (performance.memory, Chromium)

let server, base, browser;
const consoleErrors = [];

before(async () => {
  ({ server, url: base } = await startServer({ port: 0 }));
  browser = await launchChromium({ viewport: { width: 1280, height: 800 } });
  browser.context.setDefaultTimeout(20_000);
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('thinning keeps at most the cap, the first and the last snapshot, spread over the run', () => {
  let kept = [];
  for (let step = 0; step <= 5000; step += 50) kept = thinSnapshots([...kept, { step }], 24);
  assert.ok(kept.length <= 24, `${kept.length} snapshots kept`);
  assert.ok(kept.length >= 12, `only ${kept.length} snapshots kept`);
  assert.equal(kept[0].step, 0);
  assert.equal(kept.at(-1).step, 5000);
  const gaps = kept.slice(1).map((s, i) => s.step - kept[i].step);
  assert.ok(Math.max(...gaps) <= 4 * Math.min(...gaps), `uneven spread: ${gaps}`);
});

test(`${STEPS} steps with snapshots, the worker killed halfway: memory bounded, the run resumes and finishes`, async () => {
  const p = await browser.context.newPage();
  watchPage(p, { errors: consoleErrors, foreign: [] });
  try {
    await p.goto(`${base}#${LONG}`);
    await p.waitForSelector('html[data-ready="true"]');
    await p.click('#c-start');
    // halfway, with a full snapshot behind it: note the worker's memory, then kill the worker
    await p.waitForFunction((half) => (globalThis.mhaDebug.runs()[0]?.lastFull?.step ?? 0) >= half, STEPS / 2,
      { timeout: 120_000 });
    const middle = await p.evaluate(() => globalThis.mhaDebug.runs()[0].heapBytes);
    await p.evaluate(() => globalThis.mhaDebug.crash('H4'));
    await p.waitForFunction(() => /restarted from its snapshot at step \d+/.test(document.getElementById('c-status').textContent));
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
    const end = await p.evaluate(() => {
      const r = globalThis.mhaDebug.runs()[0];
      return { status: r.status, restarts: r.restarts, stepsDone: r.stepsDone, heapBytes: r.heapBytes,
        snapshots: r.snapshots.map((s) => s.step), train: r.train.step.length,
        pageHeap: /** @type {any} */ (performance).memory?.usedJSHeapSize ?? 0 };
    });
    console.log(`# worker wasm memory ${(middle / 2 ** 20).toFixed(1)} MiB at the middle, ${(end.heapBytes / 2 ** 20).toFixed(1)} MiB at the end ` +
      `(a new worker after the kill); page JS heap ${(end.pageHeap / 2 ** 20).toFixed(1)} MiB; ${end.snapshots.length} snapshots kept`);
    assert.equal(end.status, 'done');
    assert.equal(end.restarts, 1);
    assert.equal(end.stepsDone, STEPS);
    assert.equal(end.train, STEPS);  // one point per step, each once: the steps after the snapshot were redone, not doubled
    assert.ok(middle > 0 && middle <= MAX_WORKER_HEAP, `worker memory ${middle} bytes at the middle`);
    assert.ok(end.heapBytes <= middle, `the resumed worker's memory grew: ${middle} -> ${end.heapBytes} bytes`);
    assert.ok(end.snapshots.length <= 24, `${end.snapshots.length} snapshots kept`);
    assert.equal(end.snapshots[0], 0);
    assert.equal(end.snapshots.at(-1), STEPS);
    assert.ok(end.pageHeap <= MAX_PAGE_HEAP, `page heap ${end.pageHeap} bytes`);
  } finally {
    await p.close();
  }
});

test('no console errors or page errors during the long run (besides the deliberate worker crash)', () => {
  assert.deepEqual(consoleErrors.filter((m) => !m.includes('mha-test-crash')), []);
});
