// The page's WebAssembly module under node, as a worker holds it (public/build: scripts/build page), for the tests
// that call the core without a browser, and what the memory tests make runs of: a training text, and the page's
// largest heads sizes (H = 64, D = 256, L = 4, T = 128).
import { readFileSync } from 'node:fs';

const BUILD = new URL('../../public/build/', import.meta.url);

export const TEXT = 'In the beginning God created the heaven and the earth. '.repeat(400);

/** A fresh module, as a new worker makes one. @returns {Promise<any>} */
export async function pageModule() {
  const { default: createMha } = await import(new URL('mha.js', BUILD).href);
  return createMha({ wasmBinary: readFileSync(new URL('mha.wasm', BUILD)) });
}

/**
 * The settings of a run at the page's largest heads sizes.
 * @param {any} mod a module (its defaults)
 * @param {number} batch B
 * @param {number} steps
 */
export const largestRun = (mod, batch, steps) => ({ ...mod._constants().defaults, dModel: 256, nHeads: 64, nLayers: 4,
  context: 128, batch, steps, warmup: 0 });
