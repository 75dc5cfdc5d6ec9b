#!/usr/bin/env node
// Serves public/ on a free loopback port, opens the page in headless Chromium at 1280x800 and saves a
// screenshot of what a visitor first sees (the README uses it). Build first: scripts/build wasm.
//   node scripts/screenshot.mjs [out.png] [--hash '#D=8&H=4']      default out: public/img/screenshot.png
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';

const args = process.argv.slice(2);
const hashAt = args.indexOf('--hash');
const hash = hashAt >= 0 ? args.splice(hashAt, 2)[1] ?? '' : '';
const out = resolve(args[0] ?? fileURLToPath(new URL('../public/img/screenshot.png', import.meta.url)));

const { server, url } = await startServer({ port: 0 });
let browser;
try {
  browser = await launchChromium({ viewport: { width: 1280, height: 800 } });
  const { context } = browser;
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(url + hash);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 15_000 });
  await page.waitForTimeout(100);  // let the resize observer's redraw land
  mkdirSync(dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  if (problems.length) console.warn(`page reported: ${problems.join(' | ')}`);
  console.log(`saved ${out}`);
} catch (err) {
  console.error(`screenshot failed: ${err.message}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  server.close();
}
