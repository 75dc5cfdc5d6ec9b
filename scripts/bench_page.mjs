#!/usr/bin/env node
// The page's own numbers (DESIGN.md §7), measured on the built site (public/, `scripts/build page`) in headless
// Chromium, and printed as one JSON object on stdout (scripts/bench shows them in its table):
//   - the module's size: public/build/mha.wasm raw, gzip -9 and brotli (what a course host would send);
//   - the first heatmap: performance.mark('mha-first-heatmap') of web/js/main.js (the attention panel's heatmaps
//     are drawn), in ms from navigation start, on loads in a fresh browser profile each, from 127.0.0.1;
//   - the heads panel's comparison as a student starts it (the default settings: H = 1, 4 and 8, twelve seeds, 300
//     steps each, tiny-char's model, as many runs at once as the machine has cores; "Train anyway" when the page
//     asks first, as it does before a first run of over two minutes): the wall time from the click
//     to the comparison's verdict, each run's training time and tokens/s, and the memory of a training worker:
//     its wasm memory (the module's own report) and its JS heap (Runtime.getHeapUsage over the DevTools protocol),
//     the largest sampled every few seconds while the runs train.
//   node scripts/bench_page.mjs [--quick]     (--quick: 2 loads, a 24-step comparison with one seed)
// Progress goes to stderr; the pages' console errors and any request off the machine are in the JSON. Exits non-zero
// if anything fails to run; a slow figure is a figure, never a failure.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { launchChromium, watchPage } from './chromium.mjs';
import { startServer } from './serve.mjs';

const quick = process.argv.includes('--quick');
const LOADS = quick ? 2 : 5;
const COMPARISON = quick ? 'panel=heads&steps=24&seeds=1' : 'panel=heads';  // else the page's defaults
const HEAP_EVERY_MS = quick ? 1000 : 5000;
const WASM = fileURLToPath(new URL('../public/build/mha.wasm', import.meta.url));

const say = (msg) => process.stderr.write(`bench_page: ${msg}\n`);
const seen = { errors: [], foreign: [] };  // every page's console errors and requests off the machine (watchPage)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** the module's size as stored and as a server would compress it */
function moduleSize() {
  const bytes = readFileSync(WASM);
  return {
    file: 'public/build/mha.wasm',
    bytes: bytes.length,
    gzip_bytes: gzipSync(bytes, { level: 9 }).length,
    brotli_bytes: brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

/** opens the page in a fresh browser profile and reads when its first heatmap was drawn, ms from navigation start */
async function firstHeatmapMs(url) {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    watchPage(page, seen);
    await page.goto(url);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60_000 });
    return await page.evaluate(() => performance.getEntriesByName('mha-first-heatmap')[0]?.startTime ?? NaN);
  } finally {
    await browser.close();
  }
}

/**
 * The JS heaps of the page's dedicated workers, through the DevTools protocol (non-flat sessions: playwright's
 * CDPSession speaks to one target; sendMessageToTarget reaches the others).
 * @returns {Promise<{usedSize: number, totalSize: number}[]>}
 */
async function workerHeaps(cdp) {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const heaps = [];
  for (const { targetId } of targetInfos.filter((t) => t.type === 'worker')) {
    try {
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: false });
      const reply = new Promise((ok) => {
        const on = (e) => {
          if (e.sessionId !== sessionId) return;
          const m = JSON.parse(e.message);
          if (m.id !== 1) return;
          cdp.off('Target.receivedMessageFromTarget', on);
          ok(m.result);
        };
        cdp.on('Target.receivedMessageFromTarget', on);
      });
      await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method: 'Runtime.getHeapUsage' }) });
      const result = await Promise.race([reply, new Promise((ok) => setTimeout(ok, 2000, null))]);
      await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
      if (result) heaps.push({ usedSize: result.usedSize, totalSize: result.totalSize });
    } catch {
      // a worker that ended between the list and the attach: nothing to measure
    }
  }
  return heaps;
}

/** the heads comparison, started as a student starts it: wall time, each run's figures, the workers' memory */
async function comparison(base) {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    watchPage(page, seen);
    await page.goto(`${base}#${COMPARISON}`);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60_000 });
    const cdp = await browser.context.newCDPSession(page);
    const t0 = Date.now();
    await page.click('#c-start');
    if (await page.locator('#c-confirm').isVisible()) await page.click('#c-confirm-go');
    // the heaps every HEAP_EVERY_MS (each sample attaches to every worker: sampling every second slowed the
    // comparison, docs/experiments.md, "Speed of the page"); between samples, wait for the verdict, which ends the
    // wait at once
    const verdict = page.locator('html[data-comparison="done"]');
    let jsHeapUsed = 0, jsHeapTotal = 0, samples = 0;
    for (;;) {
      for (const h of await workerHeaps(cdp)) {
        jsHeapUsed = Math.max(jsHeapUsed, h.usedSize);
        jsHeapTotal = Math.max(jsHeapTotal, h.totalSize);
        samples += 1;
      }
      // a timeout only means no verdict yet; any other error (the page gone, say) ends the benchmark
      const shown = await verdict.waitFor({ timeout: HEAP_EVERY_MS }).then(() => true, (e) => {
        if (e.name !== 'TimeoutError') throw e;
        return false;
      });
      if (shown) break;
      if (Date.now() - t0 > 20 * 60_000) throw new Error('the comparison did not finish within 20 minutes');
    }
    const wallS = (Date.now() - t0) / 1000;
    const runs = await page.evaluate(() => globalThis.mhaDebug.runs().map((r) => ({
      heads: r.settings.nHeads, seed: r.settings.seed, status: r.status, steps: r.stepsDone,
      d_model: r.settings.dModel, layers: r.settings.nLayers, context: r.settings.context, batch: r.settings.batch,
      train_s: r.seconds, wall_s: r.wallSeconds, wasm_memory_bytes: r.heapBytes,
    })));
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    return {
      settings: COMPARISON, cores, wall_s: wallS,
      runs: runs.map((r) => ({ ...r, tokens_per_s: r.train_s > 0 ? (r.steps * r.batch * r.context) / r.train_s : null })),
      worker_memory: {
        wasm_bytes_max: Math.max(...runs.map((r) => r.wasm_memory_bytes)),
        js_heap_used_bytes_max: jsHeapUsed, js_heap_total_bytes_max: jsHeapTotal, js_heap_samples: samples,
      },
    };
  } finally {
    await browser.close();
  }
}

const { server, url } = await startServer({ port: 0 });
try {
  const result = { quick, module: moduleSize() };
  say(`${LOADS} loads of ${url}, each in a fresh profile`);
  const loads = [];
  for (let i = 0; i < LOADS; ++i) loads.push(await firstHeatmapMs(url));
  if (!loads.every(Number.isFinite)) throw new Error(`the page set no mha-first-heatmap mark (${loads.join(', ')})`);
  result.first_heatmap = { loads_ms: loads, median_ms: median(loads) };
  say(`the heads comparison (#${COMPARISON}): click, then wait for its verdict`);
  result.comparison = await comparison(url);
  result.console_errors = seen.errors;
  result.foreign_requests = seen.foreign;
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  say(`failed: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  server.close();
}
