// Memory in the page, in headless Chromium against the real build and real workers (scripts/build page):
//   - a model file whose sizes need more memory than a tab has at the form's batch is refused before a worker starts,
//     with the core's sentence naming the batch that fits (heads.js loadFile asks checkRun with the file's sizes).
//   node --test --test-reporter=spec tests/browser/memory_page.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageSession } from './page_session.mjs';

const { openPage } = pageSession({ timeout: 60_000 });
const BUILD = new URL('../../public/build/', import.meta.url);
const TEXT = 'In the beginning God created the heaven and the earth. '.repeat(400);
// the page's module under node, as a worker holds it: what these tests make their files with
const module = async () => {
  const { default: createMha } = await import(new URL('mha.js', BUILD).href);
  return createMha({ wasmBinary: readFileSync(new URL('mha.wasm', BUILD)) });
};
// the page's largest heads sizes: H = 64, D = 256, L = 4, T = 128; at most B = 15 fits a tab (memory.test.mjs)
const largest = (mod, batch) => ({ ...mod._constants().defaults, dModel: 256, nHeads: 64, nLayers: 4, context: 128,
  batch, steps: 2, warmup: 0 });

let dir = '', mod = null;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mha-memory-'));
  mod = await module();
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

// the page's runs and the workers it has started
const pageRuns = (p) => p.evaluate(() => globalThis.mhaDebug.runs().map((r) => ({ key: r.key, status: r.status, error: r.error ?? '' })));

test('a model file that needs more memory at the form\'s batch is refused before a worker starts, naming B', async () => {
  // a model of the largest heads sizes, its weights only (about 13 MB)
  const run = new mod.Run();
  assert.equal(run._init(largest(mod, 1), TEXT, null).ok, true);
  const saved = run._snapshot(false);
  run.delete();
  assert.equal(saved.ok, true);
  const path = join(dir, 'largest.safetensors');
  writeFileSync(path, saved.bytes);
  // the form's batch, 16: its own small model fits there, the file's does not
  const p = await openPage('#panel=heads&heads=4&seeds=1&steps=6&batch=16');
  try {
    await p.setInputFiles('#c-upload', path);
    await p.waitForFunction(() => /largest batch that fits is B = 15\./.test(document.getElementById('c-error').textContent));
    const said = (await p.textContent('#c-error')).replace(/\s+/g, ' ');
    assert.match(said, /^largest\.safetensors: This run needs about \d\.\d\d GB of memory, more than the 1\.00 GB a run may use in a browser tab: at these sizes the largest batch that fits is B = 15\.$/);
    assert.equal(await p.locator('#c-error').isVisible(), true);
    assert.deepEqual(await pageRuns(p), []);
    assert.equal(p.workers().length, 0, 'a worker was started for a refused file');
  } finally {
    await p.close();
  }
});
