// Memory, with the page's own module under node as a worker holds it (no browser):
//   - the largest run the core accepts at the page's largest heads sizes trains and evaluates, and one batch more is
//     refused with a sentence that names the batch that fits (core/app/run.hpp, run_memory_bytes);
//   - an allocation failure (forced: three such runs in one module, past its 2 GiB) is a sentence in the user's
//     terms when the run is made (everything a step needs is allocated then), and the module is not used again:
//     every later call answers the same sentence (a half-resized buffer under an old view would read out of
//     bounds), while a new module, as a new worker holds, trains. runs.js ends such a worker (FROM_WORKER.failed
//     with outOfMemory).
//   node --test tests/browser/memory.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { largestRun, pageModule as module, TEXT } from './page_module.mjs';

// at B = 64 about 1.9 GB ran out in a worker
const largest = (mod, batch) => largestRun(mod, batch, 5);

test('the largest accepted run trains and evaluates; one batch more is refused, naming the batch that fits', async () => {
  const mod = await module();
  const refused = mod._checkRun(largest(mod, 15));
  assert.equal(refused.ok, false);
  assert.match(refused.error, /^This run needs about \d\.\d\d GB of memory, more than the 1\.00 GB a run may use in a browser tab: at these sizes the largest batch that fits is B = 14\.$/);
  const run = new mod.Run();
  assert.equal(run._init(largest(mod, 14), TEXT, null).ok, true);
  assert.equal(run._train(1).ok, true);
  assert.equal(run._evaluate().ok, true);
  console.log(`# the B = 14 run: the module's memory ${(mod.HEAPU8.length / 2 ** 20).toFixed(0)} MiB after a step and an evaluation`);
  assert.ok(mod.HEAPU8.length <= 2 ** 31);
  run.delete();
});

test('out of memory: a sentence, then nothing more from that module; a new module trains', async () => {
  const mod = await module();
  const runs = [0, 1, 2].map(() => new mod.Run());
  let failed = null;
  for (const r of runs) {
    // a run's buffers are allocated when it is made (Gpt::reserve): memory runs out at a set-up, never at a step
    const init = r._init(largest(mod, 14), TEXT, null);
    if (!init.ok) { failed = init; break; }
    assert.equal(r._train(1).ok, true, 'a run that was made could not take a step');
  }
  assert.ok(failed, 'three runs of 1 GB each fitted one module');
  assert.equal(failed.outOfMemory, true);
  assert.equal(failed.error, "This run needs more memory than a browser tab's WebAssembly module can have: choose a " +
    'smaller model, batch or context.');
  // the same module answers every later call with it, a small new run included
  for (const later of [runs[0]._evaluate(), runs[0]._snapshot(false)]) assert.equal(later.outOfMemory, true);
  const small = new mod.Run();
  const init = small._init({ ...mod._constants().defaults, context: 16, batch: 2, steps: 2, warmup: 0 }, TEXT, null);
  assert.equal(init.ok, false);
  assert.equal(init.outOfMemory, true);
  for (const r of [...runs, small]) r.delete();
  // a fresh module (a new worker) is not affected
  const fresh = await module();
  const run = new fresh.Run();
  assert.equal(run._init({ ...fresh._constants().defaults, context: 16, batch: 2, steps: 2, warmup: 0 }, TEXT, null).ok, true);
  assert.equal(run._train(2).ok, true);
  run.delete();
});
