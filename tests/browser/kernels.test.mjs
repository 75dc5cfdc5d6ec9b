// Which build of the core the training workers load (web/js/kernels_module.js), in headless Chromium against the
// built site (scripts/build page):
//   node --test --test-reporter=spec tests/browser/kernels.test.mjs
// Chromium has relaxed SIMD, so its workers train with mha.relaxed.wasm (the matmuls' multiply-adds fused), fetched
// and compiled once by the page for all of them; asked for mha.wasm (mhaDebug.kernels), they train with it. The two
// builds differ only in rounding: the same runs' losses agree closely, and neither is the other's copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { kernelsFor, moduleOptions } from '../../web/js/kernels_module.js';
import { pageSession } from './page_session.mjs';

const TINY = 'panel=heads&steps=24&batch=4&context=32&layers=2&seeds=1';
const session = pageSession();
const { openPage, consoleErrors, foreignRequests } = session;

// trains the tiny comparison (H = 1, 4, 8, one seed) and returns each run's kernels and validation losses
async function train(p) {
  await p.click('#c-start');
  await p.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
  return p.evaluate(() => globalThis.mhaDebug.runs().sort((a, b) => a.settings.nHeads - b.settings.nHeads)
    .map((r) => ({ H: r.settings.nHeads, kernels: r.facts.kernels, val: [...r.val.loss] })));
}

// kernelsFor(null) in a node with relaxed SIMD switched on or off by V8's flag (node 20 has it off by default)
const kernelsInNode = (flag) => execFileSync(process.execPath, [flag, '--no-warnings', '--input-type=module', '-e',
  `import { kernelsFor } from ${JSON.stringify(new URL('../../web/js/kernels_module.js', import.meta.url).href)};
   console.log(kernelsFor(null));`], { encoding: 'utf8' }).trim();

test('the relaxed build where the engine has relaxed SIMD, else mha.wasm; asked for, mha.wasm; its URL', () => {
  assert.equal(kernelsInNode('--experimental-wasm-relaxed-simd'), 'relaxed-simd');
  assert.equal(kernelsInNode('--no-experimental-wasm-relaxed-simd'), 'simd128');
  assert.equal(kernelsFor('simd128'), 'simd128');
  assert.deepEqual(moduleOptions('simd128', 'http://h/build/js/worker.js'), {});
  assert.equal(moduleOptions('relaxed-simd', 'http://h/build/js/worker.js').locateFile('mha.wasm', 'x'),
    'http://h/build/mha.relaxed.wasm');
});

test('Chromium\'s workers train with the relaxed build, or with mha.wasm when asked; the losses agree closely', async () => {
  // the module is fetched once, by the page, which compiles it and posts it to each worker (kernels_module.js)
  const fetched = [];
  await session.context.route('**/mha.relaxed.wasm', (route) => {
    fetched.push(route.request().url());
    return route.continue();
  });
  const p = await openPage(`#${TINY}`);
  let relaxed, plain;
  try {
    relaxed = await train(p);
  } finally {
    await p.close();
    await session.context.unroute('**/mha.relaxed.wasm');
  }
  assert.equal(fetched.length, 1, `mha.relaxed.wasm was fetched ${fetched.length} times for three workers`);
  const q = await openPage(`#${TINY}`);
  try {
    await q.evaluate(() => globalThis.mhaDebug.kernels('simd128'));
    plain = await train(q);
  } finally {
    await q.close();
  }
  assert.deepEqual(relaxed.map((r) => [r.H, r.kernels]), [[1, 'relaxed-simd'], [4, 'relaxed-simd'], [8, 'relaxed-simd']]);
  assert.deepEqual(plain.map((r) => [r.H, r.kernels]), [[1, 'simd128'], [4, 'simd128'], [8, 'simd128']]);
  for (let g = 0; g < 3; ++g) {
    const a = relaxed[g].val, b = plain[g].val;
    assert.equal(a.length, b.length);
    const gap = Math.max(...a.map((x, i) => Math.abs(x - b[i])));
    console.log(`# H = ${relaxed[g].H}: largest gap between the builds' validation losses over ${a.length} measurements ${gap.toExponential(2)}`);
    // fused and unfused multiply-adds round differently: the curves are not the same bits, and stay close
    assert.ok(gap > 0, 'the two builds gave the same bits: did the relaxed module load?');
    assert.ok(gap < 1e-4, `H = ${relaxed[g].H}: the builds' losses differ by ${gap}`);
  }
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});

test('a site without mha.relaxed.wasm still trains, with mha.wasm', async () => {
  const missing = [];
  await session.context.route('**/mha.relaxed.wasm', (route) => {
    missing.push(route.request().url());
    return route.fulfill({ status: 404, body: 'not here' });
  });
  const errorsBefore = consoleErrors.length;
  try {
    const p = await openPage(`#${TINY}`);
    try {
      const runs = await train(p);
      assert.deepEqual(runs.map((r) => [r.H, r.kernels]), [[1, 'simd128'], [4, 'simd128'], [8, 'simd128']]);
      assert.ok(runs.every((r) => r.val.length === 13 && r.val.every(Number.isFinite)), JSON.stringify(runs));
      assert.ok(missing.length >= 1, 'nobody asked for mha.relaxed.wasm');
    } finally {
      await p.close();
    }
  } finally {
    await session.context.unroute('**/mha.relaxed.wasm');
  }
  // what the browser says about the refused file, and nothing else
  assert.deepEqual(consoleErrors.slice(errorsBefore).filter((e) => !/404|mha\.relaxed\.wasm/.test(e)), []);
});
