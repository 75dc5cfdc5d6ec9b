// A page that cannot start says why (web/js/loader.js), in headless Chromium against the real build:
//   node --test --test-reporter=spec tests/browser/cannot_start.test.mjs
// Each cause this file can provoke — the wasm or a script not fetched, no WebAssembly SIMD, no workers, a security
// policy that refuses WebAssembly or every script — and the sentence that replaces "Loading the WebAssembly core…".
// Nothing here measures time: each test waits, generously, for the sentence. Screenshots go to tests/browser/output/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../scripts/chromium.mjs';
import { startServer, STRICT_CSP } from '../../scripts/serve.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const PATIENCE = 60_000;   // how long a test waits for the sentence: a loaded machine is slow, never wrong
const BROWSERS = /Chrome or Edge 91 or later, Firefox 89 or later, or Safari 16\.4 or later/;

let server, base, browser, context;

before(async () => {
  ({ server, url: base } = await startServer({ port: 0 }));
  browser = await launchChromium({ viewport: { width: 1280, height: 800 } });
  ({ context } = browser);
  context.setDefaultTimeout(20_000);
});

after(async () => {
  await browser?.close();
  server?.close();
});

// opens url in a new page prepared by prepare(page), waits for the named problem; returns the page and its sentence
/** @param {(page: import('playwright-core').Page) => Promise<unknown>} [prepare] */
async function problem(cause, url, prepare = async () => {}) {
  const p = await context.newPage();
  await prepare(p);
  await p.goto(url);
  await p.waitForSelector(`html[data-load-problem="${cause}"]`, { timeout: PATIENCE });
  const status = p.locator('#load-status');
  assert.equal(await status.isVisible(), true);
  assert.equal(await status.getAttribute('role'), 'alert');
  return { p, sentence: (await status.textContent()).replace(/\s+/g, ' ') };
}

test('the wasm cannot be fetched: the page names build/mha.wasm and what to do', async () => {
  const { p, sentence } = await problem('fetch', base, (q) => q.route('**/build/mha.wasm', (r) => r.abort()));
  try {
    assert.match(sentence, /^The page cannot start\. The WebAssembly core \(build\/mha\.wasm\) could not be fetched from the server \(a network error\)\./);
    assert.match(sentence, /reload/);
    assert.equal(await p.locator('html[data-ready]').count(), 0);
  } finally {
    await p.close();
  }
});

test('a script of the page cannot be fetched: the page names it', async () => {
  const { p, sentence } = await problem('fetch', base, (q) => q.route('**/build/js/main.js', (r) => r.abort()));
  try {
    assert.match(sentence, /The page’s script build\/js\/main\.js could not be fetched from the server/);
  } finally {
    await p.close();
  }
});

test('a browser without WebAssembly SIMD: the page says so, names the browsers that have it, and loads nothing', async () => {
  const requested = [];
  const { p, sentence } = await problem('simd', base, async (q) => {
    q.on('request', (r) => requested.push(new URL(r.url()).pathname));
    // refuse any module with a SIMD instruction (the 0xfd prefix), as a browser without SIMD would
    await q.addInitScript(() => {
      const validate = WebAssembly.validate;
      WebAssembly.validate = (bytes) => !new Uint8Array(ArrayBuffer.isView(bytes) ? bytes.buffer : bytes).includes(0xfd) && validate(bytes);
    });
  });
  try {
    assert.match(sentence, /^The page cannot start\. This browser lacks WebAssembly SIMD/);
    assert.match(sentence, BROWSERS);
    assert.deepEqual(requested.filter((path) => /mha|main\.js/.test(path)), []);
    mkdirSync(OUTPUT, { recursive: true });
    await p.screenshot({ path: join(OUTPUT, 'cannot-start-simd.png') });
  } finally {
    await p.close();
  }
});

test('no workers: the page says training cannot start, and the panels without workers still work', async () => {
  const { p, sentence } = await problem('workers', base, (q) => q.addInitScript(() => {
    // (any: a stand-in that throws is no Worker constructor to the type check)
    /** @type {any} */ (self).Worker = function Worker() { throw new DOMException('Workers are switched off.', 'SecurityError'); };
  }));
  try {
    assert.match(sentence, /^Training cannot start\. This browser does not let the page start Web Workers/);
    assert.match(sentence, BROWSERS);
    await p.waitForSelector('html[data-ready="true"]');
    assert.equal(await p.locator('#attention-heads canvas').count(), 4);
  } finally {
    await p.close();
  }
});

test('a security policy without wasm-unsafe-eval: the page says the policy refused compiling WebAssembly', async () => {
  const { server: s, url } = await startServer({ port: 0, csp: STRICT_CSP.replace(" 'wasm-unsafe-eval'", '') });
  try {
    const { p, sentence } = await problem('csp', url);
    assert.match(sentence, /^The page cannot start\. A security policy of this site \(its Content-Security-Policy\) refused compiling WebAssembly under script-src\./);
    assert.match(sentence, /script-src 'self' 'wasm-unsafe-eval'/);
    await p.close();
  } finally {
    s.close();
  }
});

test('a security policy that refuses every script: the static page still says why it stays on "Loading"', async () => {
  const { server: s, url } = await startServer({ port: 0, csp: "default-src 'self'; script-src 'none'" });
  const p = await context.newPage();
  try {
    await p.goto(url);
    // no script runs at all: style.css shows the note once the loading line has stayed a while
    await p.locator('#load-status .load-stalled').waitFor({ state: 'visible', timeout: PATIENCE });
    assert.match(await p.locator('#load-status').textContent(), /scripts did not run: .*security policy/s);
  } finally {
    await p.close();
    s.close();
  }
});
