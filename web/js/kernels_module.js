// Which build of the core a training worker loads. mha.relaxed.wasm has the matmul kernels' multiply-adds as relaxed
// SIMD's f32x4.relaxed_madd (one fused instruction where the CPU has FMA, a multiply and an add elsewhere); mha.wasm
// has them as a multiply and an add everywhere. Both come from the same sources and load through the same glue
// (mha.js). A worker loads the relaxed one where the browser has relaxed SIMD, unless the page asked for mha.wasm
// (mhaDebug.kernels, for comparisons: scripts/bench_page.mjs --kernels simd128). No DOM in this file.

/** @typedef {'relaxed-simd' | 'simd128'} Kernels */

// a module whose one function is f32.const 0; f32x4.splat (three times); f32x4.relaxed_madd (0xfd 0x85 0x02): valid
// only where the relaxed-SIMD proposal is implemented with its final opcodes
const RELAXED_SIMD_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 28, 1, 26, 0, 67, 0, 0, 0, 0, 253, 19, 67, 0, 0, 0, 0, 253, 19, 67, 0, 0, 0, 0, 253, 19, 253, 133, 2, 11]);

export function hasRelaxedSimd() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_MODULE) === true;
  } catch {
    return false;
  }
}

/**
 * The kernels a worker loads: mha.wasm when asked for it (mhaDebug.kernels('simd128')), else the relaxed build where
 * the browser runs it.
 * @param {Kernels | null} asked
 * @returns {Kernels}
 */
export function kernelsFor(asked) {
  if (asked === 'simd128') return 'simd128';
  return hasRelaxedSimd() ? 'relaxed-simd' : 'simd128';
}

/**
 * The URL of the core's module with those kernels.
 * @param {Kernels} kernels
 * @param {string} base a URL in the site's build/js/ folder
 */
export function moduleUrl(kernels, base) {
  return new URL(kernels === 'relaxed-simd' ? '../mha.relaxed.wasm' : '../mha.wasm', base).href;
}

/**
 * The options of createMha (mha.js) that load those kernels: mha.js's glue finds mha.wasm beside itself unless told.
 * @param {Kernels} kernels
 * @param {string} base a URL in the site's build/js/ folder (the worker's own)
 * @returns {{locateFile?: (path: string, prefix: string) => string}}
 */
export function moduleOptions(kernels, base) {
  return kernels === 'relaxed-simd' ? { locateFile: () => moduleUrl(kernels, base) } : {};
}

/** @typedef {{kernels: Kernels, module: WebAssembly.Module | null}} CompiledCore */
/** @type {Map<Kernels, Promise<CompiledCore>>} */
const compiled = new Map();

/**
 * The core's module, fetched and compiled once per page and posted to every module worker, which instantiates it
 * (WebAssembly.Module crosses postMessage within one origin): the workers share one copy of the code, fetched and
 * compiled once, where each fetched and compiled its own before (35-66 ms of a worker's start against 9-30 ms,
 * docs/experiments.md). The relaxed build falls back to mha.wasm where it cannot be had (a site copied without it);
 * module null when neither can, and then each worker loads its own as it can.
 * @param {Kernels} kernels
 * @param {string} base a URL in the site's build/js/ folder
 * @returns {Promise<CompiledCore>}
 */
export function compiledCore(kernels, base) {
  let core = compiled.get(kernels);
  if (!core) {
    core = fetch(moduleUrl(kernels, base))
      .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`${r.status}`))))
      .then((bytes) => WebAssembly.compile(bytes))
      .then((module) => ({ kernels, module }),
        () => (kernels === 'relaxed-simd' ? compiledCore('simd128', base) : { kernels, module: null }));
    compiled.set(kernels, core);
  }
  return core;
}
