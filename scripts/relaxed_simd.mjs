#!/usr/bin/env node
// Rewrites the relaxed-SIMD fused multiply-add of Emscripten 3.1.6's toolchain to the standard opcode.
//
//   node scripts/relaxed_simd.mjs IN OUT       IN: a .wasm, or a .js with the wasm inside (-sSINGLE_FILE)
//
// clang 14 and binaryen of Emscripten 3.1.6 know relaxed SIMD only as its prototype: __builtin_wasm_fma_f32x4(p, q, r)
// is emitted as 0xfd 0xaf 0x01 ("f32x4.relaxed_fma", p·q + r), an opcode no shipping engine accepts. The standard
// f32x4.relaxed_madd (p·q + r, the same operand order) is 0xfd 0x85 0x02, the same length, so the rewrite changes no
// size and no offset. The opcode is found by decoding every instruction of every function body (never by searching
// the bytes: 0xfd 0xaf 0x01 can sit inside a constant), and any opcode this decoder does not know stops it, so a
// module built with more of the prototype than its fma fails here, not in a browser. Prints how many it rewrote.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const PROTOTYPE_FMA_F32X4 = 0xaf;   // SIMD sub-opcode of the prototype
const RELAXED_MADD_F32X4 = 0x105;   // the standard relaxed-SIMD proposal's, LEB128 0x85 0x02

/** a byte reader over one function body */
class Reader {
  constructor(bytes, pos, end) {
    this.b = bytes;
    this.pos = pos;
    this.end = end;
  }
  byte() {
    if (this.pos >= this.end) throw new Error(`the body ends inside an instruction at byte ${this.pos}`);
    return this.b[this.pos++];
  }
  uleb() {
    let result = 0, shift = 0, byte;
    do {
      byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  }
  sleb() {  // the value is not needed, only its length
    let byte;
    do byte = this.byte(); while (byte & 0x80);
  }
  skip(n) {
    if (this.pos + n > this.end) throw new Error(`the body ends inside an immediate at byte ${this.pos}`);
    this.pos += n;
  }
  memarg() {
    this.uleb();
    this.uleb();
  }
}

// SIMD sub-opcodes (0xfd prefix) and their immediates, as the final SIMD proposal numbers them
function simdImmediates(r, op) {
  if (op <= 11 || op === 92 || op === 93) return r.memarg();          // loads, v128.store, load32/64_zero
  if (op === 12 || op === 13) return r.skip(16);                       // v128.const, i8x16.shuffle
  if (op >= 21 && op <= 34) return r.skip(1);                          // extract_lane, replace_lane
  if (op >= 84 && op <= 91) return (r.memarg(), r.skip(1));            // load_lane, store_lane
  return undefined;
}

// the sub-opcodes the final SIMD proposal leaves unassigned below 0x100 (the prototype relaxed ops used them)
const SIMD_HOLES = new Set([0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0,
  0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

/**
 * Decodes one function body's instructions from r.pos to r.end, rewriting each prototype fma.
 * @returns {number} how many it rewrote
 */
function patchBody(r) {
  let rewritten = 0;
  const locals = r.uleb();
  for (let i = 0; i < locals; ++i) {
    r.uleb();
    r.byte();
  }
  while (r.pos < r.end) {
    const op = r.byte();
    if (op === 0x02 || op === 0x03 || op === 0x04) {          // block, loop, if: a block type
      const t = r.b[r.pos];
      if (t === 0x40 || t === 0x7f || t === 0x7e || t === 0x7d || t === 0x7c || t === 0x7b || t === 0x70 || t === 0x6f) r.byte();
      else r.sleb();                                          // a type index
    } else if (op === 0x0c || op === 0x0d || op === 0x10 || (op >= 0x20 && op <= 0x26) || op === 0xd2) {
      r.uleb();                                               // br, br_if, call, locals, globals, tables, ref.func
    } else if (op === 0x0e) {                                 // br_table
      const n = r.uleb();
      for (let i = 0; i <= n; ++i) r.uleb();
    } else if (op === 0x11) {                                 // call_indirect: type, table
      r.uleb();
      r.uleb();
    } else if (op === 0x1c) {                                 // select with types
      const n = r.uleb();
      r.skip(n);
    } else if (op >= 0x28 && op <= 0x3e) {
      r.memarg();
    } else if (op === 0x3f || op === 0x40 || op === 0xd0) {   // memory.size, memory.grow, ref.null
      r.byte();
    } else if (op === 0x41 || op === 0x42) {
      r.sleb();
    } else if (op === 0x43) {
      r.skip(4);
    } else if (op === 0x44) {
      r.skip(8);
    } else if (op === 0xfc) {                                 // saturating truncations, bulk memory, tables
      const sub = r.uleb();
      if (sub <= 7) continue;
      if (sub === 8) (r.uleb(), r.byte());
      else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) r.uleb();
      else if (sub === 10) r.skip(2);
      else if (sub === 11) r.byte();
      else if (sub === 12 || sub === 14) (r.uleb(), r.uleb());
      else throw new Error(`unknown opcode 0xfc ${sub} at byte ${r.pos}`);
    } else if (op === 0xfd) {
      const at = r.pos;
      const sub = r.uleb();
      if (sub === PROTOTYPE_FMA_F32X4) {
        if (r.pos - at !== 2) throw new Error(`a prototype fma in ${r.pos - at} bytes at ${at}: cannot rewrite in place`);
        r.b[at] = 0x80 | (RELAXED_MADD_F32X4 & 0x7f);
        r.b[at + 1] = RELAXED_MADD_F32X4 >> 7;
        ++rewritten;
      } else if (sub >= 0x100 || SIMD_HOLES.has(sub)) {
        throw new Error(`SIMD opcode 0x${sub.toString(16)} at byte ${at} is neither final SIMD nor the prototype fma`);
      } else {
        simdImmediates(r, sub);
      }
    } else if (op === 0x05 || op === 0x0b || op === 0x00 || op === 0x01 || op === 0x0f || op === 0x1a ||
               op === 0x1b || op === 0xd1 || (op >= 0x45 && op <= 0xc4)) {
      // no immediates
    } else {
      throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${r.pos - 1}`);
    }
  }
  if (r.b[r.end - 1] !== 0x0b) throw new Error(`a function body at ${r.end} does not end with end`);
  return rewritten;
}

/**
 * Rewrites, in place, every prototype f32x4 fma of a wasm module's code section.
 * @param {Uint8Array} wasm
 * @returns {number} how many it rewrote
 */
export function rewritePrototypeFma(wasm) {
  if (wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) throw new Error('not a wasm module');
  const top = new Reader(wasm, 8, wasm.length);
  let rewritten = 0;
  while (top.pos < wasm.length) {
    const id = top.byte();
    const size = top.uleb();
    const end = top.pos + size;
    if (id === 10) {                                          // the code section
      const count = top.uleb();
      for (let f = 0; f < count; ++f) {
        const bodySize = top.uleb();
        rewritten += patchBody(new Reader(wasm, top.pos, top.pos + bodySize));
        top.pos += bodySize;
      }
      if (top.pos !== end) throw new Error('the code section is not its function bodies');
    }
    top.pos = end;
  }
  return rewritten;
}

const DATA_URI = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/;

/** @param {string[]} argv */
function main([input, output]) {
  if (!input || !output) {
    console.error('usage: node scripts/relaxed_simd.mjs IN.wasm|IN.js OUT');
    process.exit(2);
  }
  let n;
  if (input.endsWith('.js')) {
    // the wasm inside, as base64 in a data: URI, rewritten in place
    const src = fs.readFileSync(input, 'utf8');
    const m = DATA_URI.exec(src);
    if (!m) throw new Error(`${input} has no wasm inside (-sSINGLE_FILE)`);
    const wasm = new Uint8Array(Buffer.from(m[1], 'base64'));
    n = rewritePrototypeFma(wasm);
    fs.writeFileSync(output, src.replace(m[1], Buffer.from(wasm).toString('base64')));
  } else {
    const wasm = new Uint8Array(fs.readFileSync(input));
    n = rewritePrototypeFma(wasm);
    fs.writeFileSync(output, wasm);
  }
  console.log(`${output}: ${n} relaxed_madd`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
