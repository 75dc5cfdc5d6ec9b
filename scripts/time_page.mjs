#!/usr/bin/env node
// How long one of the page's comparisons takes from the click to its verdict, in headless Chromium as a visitor
// starts it (the built site, public/: scripts/build page), for docs/teaching.md's times. Information, not a test: the
// time depends on the machine and on what else it runs.
//   node scripts/time_page.mjs HASH START DONE
//     e.g. node scripts/time_page.mjs '#panel=break' '#b-start' 'html[data-breakit="done"]'
//          node scripts/time_page.mjs '#panel=heads&ctask=offsets' '#c-start' 'html[data-comparison="done"]'
// "Train anyway" is pressed when the page asks first. Prints the seconds and the panel's status line.
import { launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';

const [hash, start, done] = process.argv.slice(2);
if (!hash || !start || !done) {
  console.error("usage: node scripts/time_page.mjs HASH START DONE   (e.g. '#panel=break' '#b-start' 'html[data-breakit=\"done\"]')");
  process.exit(2);
}
const { server, url } = await startServer({ port: 0 });
const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
try {
  const p = await browser.context.newPage();
  await p.goto(url + hash);
  await p.waitForSelector('html[data-ready="true"]');
  const t0 = Date.now();
  await p.click(start);
  const go = p.locator('#c-confirm-go, #n-confirm-go').filter({ visible: true });
  if (await go.count()) await go.first().click();
  await p.waitForSelector(done, { timeout: 60 * 60 * 1000 });
  console.log(`${hash}: ${((Date.now() - t0) / 1000).toFixed(1)} s from the click to the verdict`);
  console.log((await p.locator('#c-status, #b-status, #n-status').allTextContents()).filter(Boolean).join(' | '));
} finally {
  await browser.close();
  server.close();
}
