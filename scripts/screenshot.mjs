#!/usr/bin/env node
// Serves public/ on a free loopback port, opens the page in headless Chromium at 1280x800 and saves a
// screenshot of what a visitor first sees (the README uses it). Build first: scripts/build wasm.
//   node scripts/screenshot.mjs [out.png] [--hash '#D=8&H=4']      default out: public/img/screenshot.png
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const args = process.argv.slice(2);
const hashAt = args.indexOf('--hash');
const hash = hashAt >= 0 ? args.splice(hashAt, 2)[1] ?? '' : '';
const out = resolve(args[0] ?? fileURLToPath(new URL('../public/img/screenshot.png', import.meta.url)));

const { server, url } = await startServer({ port: 0 });
const profile = mkdtempSync(join(tmpdir(), 'mha-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 },
  });
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
  await context?.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
