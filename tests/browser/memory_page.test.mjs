// Memory in the page, in headless Chromium against the real build and real workers (scripts/build page):
//   - a model file whose sizes need more memory than a tab has at the form's batch is refused before a worker starts,
//     with the core's sentence naming the batch that fits (heads.js loadFile asks checkRun with the file's sizes);
//   - a file larger than the lab loads is refused from its size, before a byte of it is read: no run is made;
//   - a worker whose module runs out of memory ends its run with the sentence, and a new run trains in a new worker.
//   node --test --test-reporter=spec tests/browser/memory_page.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { largestRun, pageModule as module, TEXT } from './page_module.mjs';
import { pageSession } from './page_session.mjs';

const { openPage, consoleErrors } = pageSession({ timeout: 60_000 });
// at most B = 14 fits a tab at the page's largest heads sizes (memory.test.mjs)
const largest = (mod, batch) => largestRun(mod, batch, 2);

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
  // the form's batch, 15: its own small model fits there, the file's does not
  const p = await openPage('#panel=heads&heads=4&seeds=1&steps=6&batch=15');
  try {
    await p.setInputFiles('#c-upload', path);
    await p.waitForFunction(() => /largest batch that fits is B = 14\./.test(document.getElementById('c-error').textContent));
    const said = (await p.textContent('#c-error')).replace(/\s+/g, ' ');
    assert.match(said, /^largest\.safetensors: This run needs about \d\.\d\d GB of memory, more than the 1\.00 GB a run may use in a browser tab: at these sizes the largest batch that fits is B = 14\.$/);
    assert.equal(await p.locator('#c-error').isVisible(), true);
    assert.deepEqual(await pageRuns(p), []);
    assert.equal(p.workers().length, 0, 'a worker was started for a refused file');
  } finally {
    await p.close();
  }
});

test('a file larger than the lab loads is refused from its size before it is read: no run', async () => {
  const limit = mod._constants().limits.maxCheckpointBytes;
  const path = join(dir, 'huge.safetensors');
  execFileSync('truncate', ['-s', String(limit + 1), path]);  // sparse: no disk is used
  const p = await openPage('#panel=heads&heads=4&seeds=1&steps=6');
  try {
    // Chromium's own count of the page's JS heap (not in the standard Performance type)
    const heap = () => p.evaluate(() => /** @type {{memory?: {usedJSHeapSize: number}}} */ (/** @type {unknown} */ (performance)).memory?.usedJSHeapSize ?? 0);
    const before = await heap();
    await p.setInputFiles('#c-upload', path);
    await p.waitForFunction(() => /huge\.safetensors is \d+ MiB; a model this lab can load is at most \d+ MiB\./.test(document.getElementById('c-error').textContent));
    const mib = (n) => n / 2 ** 20;
    assert.equal((await p.textContent('#c-error')).trim(),
      `huge.safetensors is ${mib(limit + 1).toFixed(0)} MiB; a model this lab can load is at most ${mib(limit)} MiB.`);
    assert.deepEqual(await pageRuns(p), []);
    assert.equal(await p.locator('#c-runs .run-card').count(), 0);
    assert.equal(p.workers().length, 0);
    // nothing of it was read into the page: its heap did not grow by anything like the file
    assert.ok((await heap()) - before < limit / 4, 'the file was read although refused');
  } finally {
    await p.close();
  }
});

test('a worker whose module runs out of memory ends its run with the sentence; a new run trains in a new worker', async () => {
  // the first worker the page starts gets ballast before its run: runs of the largest accepted size in its own
  // module until an allocation fails there (two fit 2 GiB at most), so its module answers every call after that
  // with the out-of-memory sentence (web/marshal.hpp guarded). Later workers are left alone.
  const p = await openPage('#panel=heads&heads=4&seeds=1&steps=6&batch=2&context=16');
  let served = 0;
  await p.route('**/build/js/worker.js', async (route) => {
    const response = await route.fetch();
    let body = await response.text();
    if (served++ === 0) {
      const ballast = JSON.stringify(largest(mod, 14));
      // the ballast goes in right after the module is there (a failed assertion here leaves the worker unserved: the
      // run then fails with "did not start in time", which names no memory)
      const loading = '.then((m) => {\n  mod = m;\n';
      assert.ok(body.includes(loading), 'worker.js no longer loads its module as this test expects');
      body = body.replace(loading, `${loading}
        for (let i = 0; i < 4; ++i) if (!new m.Run()._init(${ballast}, ${JSON.stringify(TEXT)}, null).ok) break;\n`);
    }
    await route.fulfill({ response, body });
  });
  try {
    await p.click('#c-start');
    await p.waitForFunction(() => globalThis.mhaDebug.runs()[0]?.status === 'failed', null, { timeout: 120_000 });
    const [failed] = await pageRuns(p);
    assert.equal(failed.error, "This run needs more memory than a browser tab's WebAssembly module can have: choose a " +
      'smaller model, batch or context.');
    await p.waitForFunction(() => /more memory than a browser tab/.test(document.body.textContent));
    assert.equal(p.workers().length, 0, 'the worker that ran out of memory is still there');
    // a new run: a new worker, a module with its memory to spare
    await p.click('#c-start');
    await p.waitForFunction(() => globalThis.mhaDebug.runs()[0]?.status === 'done', null, { timeout: 120_000 });
    const runs = await pageRuns(p);
    assert.equal(runs.length, 1);
    assert.equal(runs[0].error, '');
    assert.equal(served, 2);
  } finally {
    await p.close();
  }
  assert.deepEqual(consoleErrors.filter((e) => !/out of memory|WebAssembly\.Memory/i.test(e)), []);
});
