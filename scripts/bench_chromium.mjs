#!/usr/bin/env node
// The benchmark in a Chromium Web Worker: serves the web build of tests/bench (build/wasm/tests/bench, built by
// `scripts/build wasm`) on 127.0.0.1, opens bench.html in headless Chromium and prints the JSON on stdout.
//   node scripts/bench_chromium.mjs [--quick] [--dir build/wasm/tests/bench] [--timeout-s 1800]
// Progress and browser messages go to stderr. Exits non-zero if anything fails to run.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isForeign, launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const quick = argv.includes('--quick');
const dir = resolve(arg('--dir', join(ROOT, 'build/wasm/tests/bench')));
const timeoutMs = Number(arg('--timeout-s', 1800)) * 1000;

const fail = (msg) => {
  process.stderr.write(`bench_chromium: ${msg}\n`);
  process.exit(1);
};

for (const f of ['bench.html', 'bench_worker.mjs', 'mha_bench_web.js', 'mha_bench_web.wasm'])
  if (!existsSync(join(dir, f))) fail(`${join(dir, f)} is missing: run scripts/build wasm`);

const { server, url } = await startServer({ root: dir, port: 0 });
// Cross-origin isolation, so performance.now() (the C++ clock in wasm) ticks in 5 µs, not 100 µs with jitter:
// the shortest matmul takes under a millisecond. It changes the timer, not the speed of the code. These headers
// are set before serve.mjs's handler runs (its writeHead merges them).
server.prependListener('request', (_req, res) => {
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
});

let browser;
let status = 0;
try {
  browser = await launchChromium();
  const { context } = browser;
  // nothing leaves 127.0.0.1 (data: and blob: never reach the network)
  const blocked = [];
  await context.route((u) => isForeign(u.href),
    (route) => { blocked.push(route.request().url()); return route.abort(); });

  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => process.stderr.write(`chromium console.${m.type()}: ${m.text()}\n`));
  page.on('pageerror', (e) => process.stderr.write(`chromium pageerror: ${e.message}\n`));
  page.on('worker', (w) => w.on('console', (m) => process.stderr.write(`chromium worker console.${m.type()}: ${m.text()}\n`)));

  process.stderr.write(`bench_chromium: opening ${url}bench.html${quick ? '?quick' : ''}\n`);
  await page.goto(`${url}bench.html${quick ? '?quick' : ''}`);
  await page.waitForSelector('html[data-done]', { state: 'attached', timeout: timeoutMs });
  const outcome = await page.evaluate(() => document.documentElement.dataset.done);
  if (outcome !== 'result') {
    const error = await page.locator('#error').textContent();
    throw new Error(`the benchmark failed in the worker: ${error}`);
  }
  const result = JSON.parse(await page.locator('#result').textContent());
  if (blocked.length) result.environment.blocked_requests = blocked;
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  process.stderr.write(`bench_chromium: ${err?.message ?? err}\n`);
  status = 1;
} finally {
  await browser?.close().catch(() => {});
  server.close();
}
process.exit(status);
