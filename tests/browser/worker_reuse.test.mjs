// A finished run's worker set up again for the next run (web/js/runs.js Run.#reclaim), in headless Chromium against
// the built site (scripts/build page):
//   node --test --test-reporter=spec tests/browser/worker_reuse.test.mjs
// A comparison of more runs than it holds workers at once trains its later runs in the workers of runs that ended,
// which nobody had asked anything since: each of those runs skips a worker's start, and must compute the same bits
// as in a worker of its own (mhaDebug.reuseWorkers(false)). A run whose worker went on sleeps, and a look inside
// starts it a worker again; a finished run the page has asked something (a look inside) keeps its worker. A given
// worker that stopped unseen costs its new run 10 s, not the run: it then starts a worker of its own; one that has
// begun a set-up longer than that (the largest models') keeps it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSession } from './page_session.mjs';

// 6 runs (H = 1, 4, 8 at two seeds) on a 2-core page: two train, one is set up ahead
const TINY = 'panel=heads&steps=24&batch=4&context=32&layers=2&seeds=2';
const { openPage, consoleErrors, foreignRequests } = pageSession({ timeout: 60_000 });

// counts the workers the page starts (runs.js spawnWorker, and any other), set up before the page's own scripts run
function countWorkers() {
  const Base = globalThis.Worker;
  const counted = /** @type {any} */ (globalThis);
  counted.workersMade = 0;
  globalThis.Worker = class extends Base {
    /** @param {ConstructorParameters<typeof Worker>} args */
    constructor(...args) {
      super(...args);
      counted.workersMade += 1;
    }
  };
}

// trains the comparison with or without reuse; returns the workers started and each run's numbers
async function train(reuse) {
  const p = await openPage(`#${TINY}`, { init: countWorkers });
  try {
    // no helper workers (runs.js lendHelper): the count is of the runs' own
    await p.evaluate((on) => {
      globalThis.mhaDebug.helpers(false);
      globalThis.mhaDebug.reuseWorkers(on);
    }, reuse);
    const before = await p.evaluate(() => /** @type {any} */ (globalThis).workersMade);  // the page's own, if any
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
    const runs = await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => ({
      key: r.key, status: r.status, stepsDone: r.stepsDone, train: [...r.train.loss], val: [...r.val.loss],
      boot: r.spent.boot, awake: r.awake })));
    const made = await p.evaluate(() => /** @type {any} */ (globalThis).workersMade) - before;
    // a run whose worker went on answers a look from a worker started again from its final weights
    const look = reuse ? await p.evaluate(async () => {
      const run = globalThis.mhaDebug.runs().find((r) => !r.awake);
      if (!run) return { asleep: 0 };
      const r = await run.inspect({ text: 'To be', source: 'live', ablate: [], tie: false, withLoss: true });
      return { asleep: 1, ok: r.ok, error: r.error, finite: Number.isFinite(r.valBase), awake: run.awake };
    }) : null;
    return { made, runs: runs.sort((a, b) => a.key.localeCompare(b.key)), look };
  } finally {
    await p.close();
  }
}

// a page with the heads comparison (H = 1, 4, 8, one seed each, no helper workers) trained, and Break it's
// no_transpose_merge beside canonical at bseeds seeds ready to train in the workers those three runs leave; the
// caller closes it
async function headsTrained(bseeds, options = {}) {
  const p = await openPage('#panel=heads,break&steps=24&batch=4&context=32&layers=2&seeds=1' +
    `&variants=no_transpose_merge&bsteps=16&bbatch=4&bseeds=${bseeds}`, options);
  await p.evaluate(() => globalThis.mhaDebug.helpers(false));
  await p.click('#c-start');
  await p.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
  return p;
}

test('later runs of a comparison train in finished runs\' workers, to the same bits as in workers of their own', async () => {
  const fresh = await train(false);
  const reused = await train(true);
  for (const { runs } of [fresh, reused]) {
    assert.equal(runs.length, 6);
    assert.ok(runs.every((r) => r.status === 'done' && r.stepsDone === 24), JSON.stringify(runs.map((r) => r.status)));
  }
  assert.equal(fresh.made, 6, 'without reuse every run starts a worker of its own');
  assert.ok(fresh.runs.every((r) => r.boot > 0), 'a run without reuse reported no start of its worker');
  // with reuse the page starts the workers of the first runs (two slots and one set up ahead) and no more; a run in a
  // worker given over reports no start (worker.js init)
  const given = reused.runs.filter((r) => r.boot === 0).length;
  console.log(`# with reuse: ${reused.made} workers started for 6 runs, ${given} runs in a finished run's worker`);
  assert.ok(reused.made <= 3, `${reused.made} workers started`);
  assert.equal(reused.made + given, 6, 'every run either started a worker or was given one');
  for (let i = 0; i < 6; ++i) {
    const a = fresh.runs[i], b = reused.runs[i];
    assert.equal(b.key, a.key);
    // the same numbers, not close ones: the worker's heap holds a run before, the run's own state is new
    assert.deepEqual(b.train, a.train, `${a.key}: the training losses differ in a worker given over`);
    assert.deepEqual(b.val, a.val, `${a.key}: the validation losses differ in a worker given over`);
  }
  assert.equal(reused.look?.asleep, 1, 'no finished run gave its worker over');
  assert.deepEqual(reused.look, { asleep: 1, ok: true, error: undefined, finite: true, awake: true });
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});

test('a finished run the page has asked something keeps its worker; the runs nobody asked give theirs', async () => {
  const p = await headsTrained(2);
  try {
    // H = 4 is looked at; H = 1 and H = 8 are not. Break it's 4 runs then want more workers than those two: the
    // first three at once (two slots, one set up ahead), the last once one of them ended
    const look = await p.evaluate(async () => {
      const run = globalThis.mhaDebug.runs().find((r) => r.key === 'H4');
      const r = await run.inspect({ text: 'To be', source: 'live', ablate: [], tie: false, withLoss: false });
      return r.ok;
    });
    assert.equal(look, true);
    await p.click('#b-start');
    await p.waitForSelector('html[data-breakit="done"]', { timeout: 90_000 });
    const heads = await p.evaluate(() => Object.fromEntries(globalThis.mhaDebug.runs().map((r) => [r.key, r.awake])));
    const broken = await p.evaluate(() => globalThis.mhaDebug.breakRuns().map((r) => ({ key: r.key, status: r.status,
      boot: r.spent.boot })));
    assert.deepEqual(broken.map((r) => r.status), ['done', 'done', 'done', 'done'], JSON.stringify(broken));
    const given = broken.filter((r) => r.boot === 0).length;
    assert.ok(given >= 2, `only ${given} of Break it's runs were given a finished run's worker: ${JSON.stringify(broken)}`);
    assert.deepEqual(heads, { H1: false, H4: true, H8: false });
    assert.deepEqual(consoleErrors, []);
  } finally {
    await p.close();
  }
});

test('a finished run\'s worker that stopped unseen is let go: the run given it starts its own', async () => {
  const p = await headsTrained(1, { init: countWorkers });
  try {
    // the three finished runs' workers stop without a word (no error event): the page still counts them as free
    const made = await p.evaluate(() => {
      for (const r of globalThis.mhaDebug.runs()) r.worker?.terminate();
      return /** @type {any} */ (globalThis).workersMade;
    });
    await p.click('#b-start');
    // Break it's two runs were each given one of those workers (their runs went to sleep at once, the third keeps
    // its dead one until idle)
    const awake = await p.evaluate(() => globalThis.mhaDebug.runs().filter((r) => r.awake).length);
    assert.equal(awake, 1, 'Break it\'s runs were not given the finished runs\' workers');
    await p.waitForSelector('html[data-breakit="done"]', { timeout: 90_000 });
    const broken = await p.evaluate(() => globalThis.mhaDebug.breakRuns().map((r) => ({ key: r.key, status: r.status,
      steps: r.stepsDone, boot: r.spent?.boot, error: r.error })));
    assert.deepEqual(broken.map((r) => [r.status, r.steps]), [['done', 16], ['done', 16]], JSON.stringify(broken));
    // each started a worker of its own once the one given did not answer
    assert.ok(broken.every((r) => r.boot > 0), JSON.stringify(broken));
    assert.equal(await p.evaluate(() => /** @type {any} */ (globalThis).workersMade) - made, 2);
    assert.deepEqual(consoleErrors, []);
  } finally {
    await p.close();
  }
});

test('a set-up slower than the start\'s timeout is not cut short once the worker has begun it', async () => {
  const p = await headsTrained(1);
  try {
    // Break it's two runs are given finished runs' workers, each a set-up 11 s long: longer than the 10 s a given
    // worker has to begin it (runs.js SETTINGS.givenReadyTimeoutMs), as the largest models' set-ups are
    await p.evaluate(() => globalThis.mhaDebug.slowSetUps(11_000));
    await p.click('#b-start');
    await p.waitForSelector('html[data-breakit="done"]', { timeout: 90_000 });
    const broken = await p.evaluate(() => globalThis.mhaDebug.breakRuns().map((r) => ({ key: r.key, status: r.status,
      boot: r.spent?.boot })));
    // both set up where they were given: no worker of their own was started for them
    assert.deepEqual(broken.map((r) => [r.status, r.boot]), [['done', 0], ['done', 0]], JSON.stringify(broken));
    assert.deepEqual(consoleErrors, []);
  } finally {
    await p.close();
  }
});
