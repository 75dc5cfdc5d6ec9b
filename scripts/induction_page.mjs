#!/usr/bin/env node
// The induction panel's default run in headless Chromium, as a visitor would start it: serves public/ on a free
// loopback port, opens ?panel=induction, presses Train, waits for both workers to finish, and prints the wall time and
// what the panel measured; then switches layer 0 off, prints the core's numbers with and without it, and saves
// screenshots of the panel, and of the switch with its table, at 1280 and 390 px wide. Build first: scripts/build page.
//   node scripts/induction_page.mjs [out-dir] [--hash 'nsteps=800&nseed=2']   default out-dir: build/induction_page
// Information, not a test (the tests are tests/browser/experiments.test.mjs): the time depends on the machine.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';

const args = process.argv.slice(2);
const hashAt = args.indexOf('--hash');
const hash = hashAt >= 0 ? args.splice(hashAt, 2)[1] ?? '' : '';
const out = resolve(args[0] ?? fileURLToPath(new URL('../build/induction_page/', import.meta.url)));
const WIDTHS = [1280, 390];
const TIMEOUT_MS = 60 * 60 * 1000;  // a loaded machine: the default run takes minutes

const { server, url } = await startServer({ port: 0 });
let browser;
try {
  mkdirSync(out, { recursive: true });
  browser = await launchChromium({ viewport: { width: WIDTHS[0], height: 900 } });
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(`${url}?panel=induction${hash ? `#${hash}` : ''}`);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30_000 });
  const steps = await page.inputValue('#n-steps'), seed = await page.inputValue('#n-seed');
  const t0 = Date.now();
  await page.click('#n-start');
  // the panel asks before a run it expects to take over two minutes here: this script means to run it
  if (await page.isVisible('#n-confirm')) await page.click('#n-confirm-go');
  await page.waitForSelector('html[data-induction="done"]', { timeout: TIMEOUT_MS });
  const seconds = (Date.now() - t0) / 1000;
  console.log(`induction panel, ${steps} steps, seed ${seed}: both runs done in ${seconds.toFixed(0)} s of wall time`);
  console.log(`  status: ${await page.locator('#n-status').textContent()}`);
  console.log(`  summary: ${await page.locator('#n-summary').textContent()}`);
  await page.click('#n-layer0');
  await page.waitForSelector('#n-layer0-result .layer0-table tbody tr', { timeout: 60_000 });
  const rows = await page.locator('#n-layer0-result tbody tr').evaluateAll((/** @type {HTMLTableRowElement[]} */ trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)));
  console.log('  layer 0 on → off:');
  for (const [name, on, off] of rows) console.log(`    ${name}: ${on} → ${off}`);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);  // let the resize observer's redraw land
    const file = resolve(out, `induction_${width}.png`);
    await page.locator('#panel-induction').screenshot({ path: file });
    // and the switch with its table alone, readable at a phone's width
    const part = resolve(out, `induction_layer0_${width}.png`);
    await page.locator('#n-layer0').evaluate((b) => b.closest('.button-row').scrollIntoView());
    const box = await page.evaluate(() => {
      const a = document.getElementById('n-layer0').closest('.button-row').getBoundingClientRect();
      const b = document.getElementById('n-layer0-result').getBoundingClientRect();
      return { x: 0, y: a.top + scrollY, width: innerWidth, height: b.bottom - a.top };
    });
    await page.screenshot({ path: part, clip: box, fullPage: true });
    console.log(`  saved ${file}, ${part}`);
  }
  if (problems.length) console.warn(`page reported: ${problems.join(' | ')}`);
} catch (err) {
  console.error(`induction_page failed: ${err.message}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  server.close();
}
