// A run too big for a tab's WebAssembly memory (no browser: the page's module under node, as a worker holds it): the
// allocation failure is a sentence in the user's terms, and the module is not used again. Every later call on it
// answers the same sentence (a half-resized buffer under an old view would read out of bounds), while a new module,
// as a new worker holds, trains a small run. runs.js ends such a worker (FROM_WORKER.failed with outOfMemory).
//   node --test tests/browser/memory.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const BUILD = new URL('../../public/build/', import.meta.url);
const TEXT = 'In the beginning God created the heaven and the earth. '.repeat(400);
const module = async () => {
  const { default: createMha } = await import(new URL('mha.js', BUILD).href);
  return createMha({ wasmBinary: readFileSync(new URL('mha.wasm', BUILD)) });
};

test('out of memory: a sentence, then nothing more from that module; a new module trains', async () => {
  const mod = await module();
  const big = new mod.Run();
  // the page's largest heads settings: H = 64, D = 256, L = 4, T = 128, B = 64 (about 2 GB of activations)
  const settings = { ...mod._constants().defaults, dModel: 256, nHeads: 64, nLayers: 4, context: 128, batch: 64,
    steps: 5, warmup: 0 };
  assert.equal(big._init(settings, TEXT, null).ok, true);
  const r = big._train(1);
  assert.equal(r.ok, false);
  assert.equal(r.outOfMemory, true);
  assert.equal(r.error, "This run needs more memory than a browser tab's WebAssembly module can have: choose a " +
    'smaller model, batch or context.');
  // the same module answers every later call with it, a small new run included
  for (const later of [big._evaluate(), big._snapshot(false)]) assert.equal(later.outOfMemory, true);
  const small = new mod.Run();
  const init = small._init({ ...mod._constants().defaults, context: 16, batch: 2, steps: 2, warmup: 0 }, TEXT, null);
  assert.equal(init.ok, false);
  assert.equal(init.outOfMemory, true);
  big.delete();
  small.delete();
  // a fresh module (a new worker) is not affected
  const fresh = await module();
  const run = new fresh.Run();
  assert.equal(run._init({ ...fresh._constants().defaults, context: 16, batch: 2, steps: 2, warmup: 0 }, TEXT, null).ok, true);
  assert.equal(run._train(2).ok, true);
  run.delete();
});
