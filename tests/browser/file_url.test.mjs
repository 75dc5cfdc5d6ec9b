// The page opened straight from disk (file://…/public/index.html), as a student who downloaded the site would: an
// opaque origin where module scripts, fetch() and importScripts() of files are all refused, so the page runs its
// classic builds and builds each training worker's script from the functions it loaded (runs.js spawnWorker).
//   node --test --test-reporter=spec tests/browser/file_url.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium, watchPage } from '../../scripts/chromium.mjs';

const PAGE = pathToFileURL(fileURLToPath(new URL('../../public/index.html', import.meta.url))).href;
let browser, context;
const consoleErrors = [];
const foreignRequests = [];

before(async () => {
  browser = await launchChromium({ viewport: { width: 1280, height: 800 } });
  ({ context } = browser);
  context.setDefaultTimeout(30_000);
});

after(async () => {
  await browser?.close();
});

test('from file://: the page loads, a comparison trains to the end and looks inside', async () => {
  const p = await context.newPage();
  watchPage(p, { errors: consoleErrors, foreign: foreignRequests });
  try {
    await p.goto(`${PAGE}#panel=heads,inside&heads=1,4&steps=8&batch=2&context=16&seeds=1`);
    await p.waitForSelector('html[data-ready="true"]');
    assert.equal(await p.evaluate(() => self.origin), 'null');  // really the opaque origin of a file
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 90_000 });
    assert.match(await p.locator('#c-status').textContent(), /^Done: 2 runs in /);
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => [r.status, r.stepsDone])), [['done', 8], ['done', 8]]);
    // from disk the workers get the build the page itself loaded, mha.classic.js (README, "Embedding in a course page")
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => r.facts.kernels)), ['simd128', 'simd128']);
    await p.locator('#panel-inside').scrollIntoViewIfNeeded();
    await p.locator('#i-grid canvas').nth(1).waitFor();
  } finally {
    await p.close();
  }
});

test('no console errors, nothing requested beyond the files', () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests.filter((u) => !u.startsWith('file:')), []);
});
