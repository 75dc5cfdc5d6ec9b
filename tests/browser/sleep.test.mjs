// A finished run lets its worker go (web/js/runs.js Run.sleep): every worker holds its model in about 50 MB of wasm
// memory, and the page kept the worker of every finished run, 2 GB at the default heads comparison. In headless
// Chromium against the built site (scripts/build page):
//   node --test --test-reporter=spec tests/browser/sleep.test.mjs
// The finished runs go to sleep by themselves once idle, and a look inside, pruning or a download of a sleeping run
// starts a worker again from its final weights: the same maps, the same pruning curve and the same file as before.
// Finished runs taken back from the browser's store after a reload come back asleep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IDLE_MS } from '../../web/js/runs.js';
import { pageSession } from './page_session.mjs';

const TINY = 'panel=heads&steps=24&batch=4&context=32&layers=2&seeds=1';
// a look inside at the run's weights now, as the panel asks one (Run.inspect)
const LOOK = { text: 'To be', source: 'live', ablate: [], tie: false, withLoss: false };
const { openPage, consoleErrors, foreignRequests } = pageSession({ timeout: 60_000 });

// asks each finished run what the page can ask it (the attention maps of a text, its pruning curve, the file of its
// model with the optimizer state) and keeps the answers in the page under `name` (they are megabytes: compared
// there, not sent back) in the order of H, whichever run answers first; returns each run's H and error, if any
function ask(name) {
  return Promise.all(globalThis.mhaDebug.runs().sort((a, b) => a.settings.nHeads - b.settings.nHeads).map(async (r, g) => {
    const look = await r.inspect({ text: 'To be, or not to be', source: 'live', ablate: [], tie: false, withLoss: true });
    const pruned = await r.pruneHeads();
    const file = await r.requestSnapshot(true);
    const error = look.error ?? pruned.error ?? file.error ?? null;
    const asked = /** @type {any} */ (globalThis).asked ??= {};
    (asked[name] ??= [])[g] = { att: look.maps?.att, valBase: look.valBase, loss: pruned.loss, file: file.bytes,
      lastFull: r.lastFull.bytes };
    return { H: r.settings.nHeads, error, step: r.stepsDone, lastFull: r.lastFull.step, kernels: r.facts.kernels };
  }));
}

// for each run, which of the answers differ between the two askings (and the first download from its last full
// snapshot): [] when none
/** @param {string[]} names the two askings */
function differences(names) {
  const [a, b] = names;
  const same = (x, y) => x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  const { asked } = /** @type {any} */ (globalThis);
  return asked[a].map((x, g) => {
    const y = asked[b][g];
    return [['maps', same(x.att, y.att) && x.att.length > 0], ['loss with the text', x.valBase === y.valBase],
      ['pruning curve', same(x.loss, y.loss) && x.loss.length > 1], ['download', same(x.file, y.file)],
      ['download = last full snapshot', same(x.file, x.lastFull)]].filter(([, ok]) => !ok).map(([what]) => what);
  });
}

test('finished runs let their workers go when idle, and come back with the same model when asked', async () => {
  const p = await openPage(`#${TINY}`);
  try {
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
    const before = await p.evaluate(ask, 'before');
    assert.deepEqual(before.map((r) => [r.H, r.error]), [[1, null], [4, null], [8, null]]);
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => r.awake)), [true, true, true]);

    // nobody asks them anything: each worker goes after the idle time, the runs stay done with their curves
    await p.waitForTimeout(IDLE_MS + 2_000);
    const asleep = await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => ({ awake: r.awake, status: r.status,
      val: r.val.loss.length })));
    assert.deepEqual(asleep.map((r) => [r.awake, r.status]), [[false, 'done'], [false, 'done'], [false, 'done']]);
    assert.ok(asleep.every((r) => r.val === 13), JSON.stringify(asleep));

    // asked again, each starts a worker from its final weights: the same weights in the same build, the same bits
    const after = await p.evaluate(ask, 'after');
    assert.deepEqual(after.map((r) => [r.H, r.error]), [[1, null], [4, null], [8, null]]);
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => r.awake)), [true, true, true]);
    assert.deepEqual(await p.evaluate(differences, ['before', 'after']), [[], [], []],
      `before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);

    // asked for while it is still busy, a run does not sleep; once answered, it can
    const busy = await p.evaluate(async () => {
      const r = globalThis.mhaDebug.runs()[0];
      const look = r.pruneHeads();
      const during = r.sleep();
      await look;
      return { during, afterwards: r.sleep(), awake: r.awake };
    });
    assert.deepEqual(busy, { during: false, afterwards: true, awake: false });

    // finished runs taken back from the browser's store after a reload come back asleep: no worker until asked
    await p.reload();
    await p.waitForSelector('html[data-ready="true"][data-runs-restored="true"]');
    await p.waitForFunction(() => globalThis.mhaDebug.runs().length === 3 &&
      globalThis.mhaDebug.runs().every((r) => r.facts && r.status === 'done'));
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => r.awake)), [false, false, false]);
    const restored = await p.evaluate(ask, 'restored');
    assert.deepEqual(restored.map((r) => [r.H, r.error]), [[1, null], [4, null], [8, null]]);
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => r.awake)), [true, true, true]);
  } finally {
    await p.close();
  }
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});

// a new comparison disposes of the runs before it: a look inside (or pruning) asked of one just before stayed
// unanswered, and the panel that asked waited for it for good (Look inside's maps no longer followed any run)
test('a request to a run disposed of meanwhile is answered, not left waiting', async () => {
  const p = await openPage('#panel=heads&steps=2000&batch=4&context=32&layers=2&seeds=1&heads=4');
  try {
    await p.click('#c-start');
    await p.waitForFunction(() => globalThis.mhaDebug.runs()[0]?.status === 'running');
    const answers = await p.evaluate(async (look) => {
      const run = globalThis.mhaDebug.runs()[0], worker = run.worker;
      const asked = [run.inspect(look), run.pruneHeads()];
      run.dispose();
      asked.push(run.requestSnapshot(true));  // and one asked after: answered at once, no worker started for it
      const noAnswer = new Promise((resolve) => setTimeout(resolve, 10_000, { ok: 'no answer' }));
      const said = (await Promise.all(asked.map((a) => Promise.race([a, noAnswer])))).map((a) => [a.ok, a.error]);
      return { said, sameWorker: run.worker === worker };
    }, LOOK);
    assert.deepEqual(answers, { said: Array(3).fill([false, 'The worker stopped.']), sameWorker: true });
  } finally {
    await p.close();
  }
});

test('a run that failed for good answers a request at once', async () => {
  const p = await openPage(`#${TINY}`);
  try {
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
    const r = await p.evaluate(async (look) => {
      const { Run } = await import(new URL('build/js/runs.js', location.href).href);
      // the page's own run settings on an empty text: the worker refuses to set the run up, and it fails for good
      const settings = globalThis.mhaDebug.runs()[0].settings;
      const run = await new Promise((resolve) => {
        const made = new Run({ key: 'x', label: 'x', settings, text: '', onEvent: (e) => e.type === 'failed' && resolve(made) });
      });
      const noAnswer = new Promise((resolve) => setTimeout(resolve, 10_000, { ok: 'no answer' }));
      const a = await Promise.race([run.inspect(look), noAnswer]);
      return { status: run.status, said: run.error.length > 0, answer: [a.ok, a.error] };
    }, LOOK);
    assert.deepEqual(r, { status: 'failed', said: true, answer: [false, 'The worker stopped.'] });
  } finally {
    await p.close();
  }
});

test('a sleeping run whose worker cannot start again says why to every request made meanwhile', async () => {
  const p = await openPage(`#${TINY}`);
  try {
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
    const r = await p.evaluate(async (look) => {
      const run = globalThis.mhaDebug.runs()[0];
      const kept = run.lastFull;
      run.sleep();
      run.lastFull = { step: kept.step, bytes: new Uint8Array([1, 2, 3]) };  // weights its new worker cannot load
      // three requests at once: the first wakes the run, the other two come while its worker sets up
      const noAnswer = new Promise((resolve) => setTimeout(resolve, 20_000, { ok: 'no answer' }));
      const asked = await Promise.all([
        run.inspect(look),
        run.pruneHeads(), run.requestSnapshot(true)].map((a) => Promise.race([a, noAnswer])));
      const failed = { answers: asked.map((a) => [a.ok, typeof a.error === 'string' && a.error.length > 0]),
        awake: run.awake, status: run.status };
      // with its own weights back it wakes, answers, and can sleep again: nothing of the failed start is left waiting
      run.lastFull = kept;
      const again = await run.inspect(look);
      return { failed, lookOk: again.ok, sleepsAgain: run.sleep() };
    }, LOOK);
    assert.deepEqual(r.failed, { answers: [[false, true], [false, true], [false, true]], awake: false, status: 'done' });
    assert.deepEqual([r.lookOk, r.sleepsAgain], [true, true]);
  } finally {
    await p.close();
  }
});
