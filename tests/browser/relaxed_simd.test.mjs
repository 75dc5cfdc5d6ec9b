// scripts/relaxed_simd.mjs, the rewrite of the toolchain's prototype relaxed fma to the standard opcode, on modules
// written byte by byte here (no browser needed):
//   node --test tests/browser/relaxed_simd.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewritePrototypeFma } from '../../scripts/relaxed_simd.mjs';

// a module of one function () -> v128 with the given body instructions (no locals)
function moduleWith(instructions) {
  const body = [0, ...instructions, 0x0b];
  const code = [1, body.length, ...body];
  return new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7b, 3, 2, 1, 0, 10, code.length, ...code]);
}
const SPLAT_ZERO = [0x43, 0, 0, 0, 0, 0xfd, 0x13];                   // f32.const 0; f32x4.splat
// v128.const whose 16 bytes hold the prototype's opcode bytes: data, never to be touched
const CONST_WITH_LOOKALIKE = [0xfd, 0x0c, 0xfd, 0xaf, 0x01, 0xfd, 0xaf, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const PROTOTYPE_FMA = [0xfd, 0xaf, 0x01];
const RELAXED_MADD = [0xfd, 0x85, 0x02];

test('rewrites the prototype fma, and only the instruction, not the same bytes inside a constant', () => {
  const wasm = moduleWith([...CONST_WITH_LOOKALIKE, ...SPLAT_ZERO, ...SPLAT_ZERO, ...PROTOTYPE_FMA]);
  const want = moduleWith([...CONST_WITH_LOOKALIKE, ...SPLAT_ZERO, ...SPLAT_ZERO, ...RELAXED_MADD]);
  assert.equal(rewritePrototypeFma(wasm), 1);
  assert.deepEqual(wasm, want);
  // and what it wrote is a module an engine with relaxed SIMD accepts; the prototype's never is
  assert.equal(WebAssembly.validate(moduleWith([...SPLAT_ZERO, ...SPLAT_ZERO, ...SPLAT_ZERO, ...PROTOTYPE_FMA])), false);
});

test('a module without the prototype fma comes out unchanged', () => {
  const wasm = moduleWith([...SPLAT_ZERO, ...SPLAT_ZERO, 0xfd, 0xe4, 0x01]);  // f32x4.add
  const copy = wasm.slice();
  assert.equal(rewritePrototypeFma(wasm), 0);
  assert.deepEqual(wasm, copy);
  assert.equal(WebAssembly.validate(wasm), true);
});

test('stops at an opcode it does not know, and at a body cut short', () => {
  // 0xfd 0xb0 0x01: the prototype's fms, which the rewrite does not handle
  assert.throws(() => rewritePrototypeFma(moduleWith([...SPLAT_ZERO, ...SPLAT_ZERO, ...SPLAT_ZERO, 0xfd, 0xb0, 0x01])),
    /SIMD opcode 0xb0 .* neither final SIMD nor the prototype fma/);
  assert.throws(() => rewritePrototypeFma(moduleWith([0xfe, 0x00])), /unknown opcode 0xfe/);
  assert.throws(() => rewritePrototypeFma(moduleWith([0xfd, 0x0c, 1, 2, 3])), /ends inside an immediate/);
  assert.throws(() => rewritePrototypeFma(new Uint8Array([1, 2, 3, 4])), /not a wasm module/);
});
