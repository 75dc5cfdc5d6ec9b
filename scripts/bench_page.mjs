#!/usr/bin/env node
// The page's own numbers (DESIGN.md §7), measured on the built site (public/, `scripts/build page`) in headless
// Chromium, and printed as one JSON object on stdout (scripts/bench shows them in its table):
//   - the module's size: public/build/mha.wasm raw, gzip -9 and brotli (what a course host would send);
//   - the first heatmap: performance.mark('mha-first-heatmap') of web/js/main.js (the attention panel's heatmaps
//     are drawn), in ms from navigation start, on loads in a fresh browser profile each, from 127.0.0.1;
//   - each default experiment of the lesson as a student starts it (the heads comparison: H = 1, 4 and 8, twelve
//     seeds, 300 steps each; the offsets task; Break it; induction heads; as many runs at once as the machine has
//     cores; "Train anyway" when the page asks first, as it does before a first run of over two minutes): the wall
//     time from the click to the verdict, and what it is made of: each run's timeline (set up, started, ended), its
//     worker's milliseconds by part (web/js/costs.js: module, init, train, evaluate, trace, snapshot, ...), its
//     steps and the flops of each (the core's figure), the main thread's busy time (the DevTools protocol's
//     Performance metrics, and the page's own tally: receiving, drawing, saving), and where the machine's cores went
//     (Linux's /proc, scripts/proc_cpu.mjs: the workers, the main thread, Chromium's other threads, the other
//     processes, idle). tests/bench/page_efficiency.mjs
//     turns them into the page table of scripts/bench (page efficiency, machine limit, breakdown);
//   - for the heads comparison also the memory of a training worker: its wasm memory (the module's own report) and
//     its JS heap (Runtime.getHeapUsage over the DevTools protocol), the largest sampled every few seconds (in a
//     one-seed comparison of its own); and the page's workers alive with their wasm memory, at the verdict and once
//     the finished runs have been idle long enough to let their workers go (web/js/runs.js Run.sleep).
//   node scripts/bench_page.mjs [--quick] [--repeat N] [--only heads,offsets,break,induction] [--loads N] [--root DIR]
//     [--kernels simd128] [--no-helpers] [--fresh-workers] [--charts-paused]
//     --root: serve another built site (an older commit's public/, say: before and after on one machine)
//     --kernels simd128: the workers load mha.wasm, not mha.relaxed.wasm (web/js/kernels_module.js)
//     --no-helpers: no run is lent a helper on an idle core (web/js/helper.js): each trains on one core
//     --fresh-workers: every run starts a worker of its own, none takes a finished run's (web/js/runs.js Run.#reclaim)
//     --charts-paused: the live charts paused before the click, as the page's button does (what drawing costs)
//     --quick: 2 loads and tiny budgets (a smoke run); --repeat: each experiment N times, each in a fresh browser
// Progress goes to stderr; the pages' console errors and any request off the machine are in the JSON. Exits non-zero
// if anything fails to run; a slow figure is a figure, never a failure.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { launchChromium, watchPage } from './chromium.mjs';
import { cpuReading, cpuSeconds } from './proc_cpu.mjs';
import { startServer } from './serve.mjs';
import { IDLE_MS } from '../web/js/runs.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const REPEAT = Math.max(1, Number(option('--repeat') ?? 1) | 0);
const only = option('--only')?.split(',');
const KERNELS = option('--kernels') ?? null;
if (KERNELS !== null && KERNELS !== 'simd128') throw new Error(`--kernels: simd128 or nothing, not ${KERNELS}`);
const HELPERS = !args.includes('--no-helpers');
const REUSE = !args.includes('--fresh-workers');
const CHARTS_PAUSED = args.includes('--charts-paused');
const LOADS = Math.max(0, Number(option('--loads') ?? (quick ? 2 : 5)) | 0);  // --loads 0: no first-heatmap loads
// The default experiments of the lesson, each as a student starts it (the page's defaults; --quick: tiny budgets).
// runs: the mhaDebug list of the experiment's runs; together: its runs start together once all are set up (else one
// run more than the slots is set up ahead, beside the training ones: comparison.js).
const EXPERIMENTS = [
  { name: 'heads', title: 'heads comparison', hash: quick ? 'panel=heads&steps=24&seeds=1' : 'panel=heads',
    start: '#c-start', done: 'html[data-comparison="done"]', runs: 'runs', idle: true },
  { name: 'offsets', title: 'offsets task', hash: quick ? 'panel=heads&ctask=offsets&oseeds=1' : 'panel=heads&ctask=offsets',
    start: '#c-start', done: 'html[data-comparison="done"]', runs: 'runs' },
  { name: 'break', title: 'Break it', hash: quick ? 'panel=break&bsteps=24&bseeds=1' : 'panel=break',
    start: '#b-start', done: 'html[data-breakit="done"]', runs: 'breakRuns' },
  { name: 'induction', title: 'induction heads', hash: quick ? 'panel=induction&nsteps=60' : 'panel=induction',
    start: '#n-start', done: 'html[data-induction="done"]', runs: 'inductionRuns', together: true },
];
// A training worker's memory, measured apart from the experiments' times: a sample attaches to every worker (a
// finished run keeps its own, for looking inside: up to 36 in the heads comparison), which takes from the cores the
// runs train on. Here one seed per H, sampled every HEAP_EVERY_MS.
const MEMORY = { name: 'memory', title: 'worker memory', hash: quick ? 'panel=heads&steps=24&seeds=1' : 'panel=heads&seeds=1',
  start: '#c-start', done: 'html[data-comparison="done"]', runs: 'runs', heaps: true };
const HEAP_EVERY_MS = 1000;
// a finished run's worker goes after IDLE_MS without a request (web/js/runs.js Run.sleep): the page's workers are
// counted at the verdict and again a little longer after it (an experiment with `idle`)
const IDLE_WAIT_MS = IDLE_MS + 2_000;
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

/**
 * One default experiment, started as a student starts it: the wall time from the click to the verdict, each run's
 * figures and timeline (performance.now() of the page, ms: created, set up, started, ended) with its worker's
 * milliseconds by part (costs.js), the main thread's busy time over the experiment (the DevTools protocol's
 * Performance metrics) and the page's own tally of it; for the heads comparison also the workers' memory.
 * @param {string} base the site's URL
 * @param {typeof EXPERIMENTS[number]} exp
 */
async function experiment(base, exp) {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    watchPage(page, seen);
    await page.goto(`${base}#${exp.hash}`);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60_000 });
    if (KERNELS) await page.evaluate((k) => globalThis.mhaDebug.kernels(k), KERNELS);
    if (!HELPERS) await page.evaluate(() => globalThis.mhaDebug.helpers(false));
    if (!REUSE) await page.evaluate(() => globalThis.mhaDebug.reuseWorkers(false));
    if (CHARTS_PAUSED) await page.locator('[data-action="pause-charts"]').filter({ visible: true }).first().click();
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const mainThread = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics
      .filter((m) => /Duration$/.test(m.name)).map((m) => [m.name, m.value]));
    const before = { metrics: await mainThread(), costs: await page.evaluate(() => globalThis.mhaDebug.costs()) };
    const cpuBefore = cpuReading();
    // the verdict's moment on the page's clock: an observer notes when the done attribute (every exp.done is one of
    // <html>'s) appears, in the task that draws the verdict. Playwright's wait below polls, at last every 500 ms: it
    // returned 38–505 ms after the last run ended in ten experiments measured (the page drew its verdict 6 ms after),
    // and timed by it the shorter experiments looked up to 3% slower
    await page.evaluate((selector) => {
      const at = /** @type {{verdictAt?: number}} */ (globalThis);
      at.verdictAt = 0;
      const note = () => {
        if (at.verdictAt || !document.querySelector(selector)) return;
        at.verdictAt = performance.now();
        observer.disconnect();
      };
      const observer = new MutationObserver(note);
      observer.observe(document.documentElement, { attributes: true });
    }, exp.done);
    const t0 = Date.now();
    const clickAt = await page.evaluate(() => performance.now());
    await page.click(exp.start);
    const go = page.locator('[id$="-confirm-go"]').filter({ visible: true });
    if (await go.count()) await go.first().click();
    // with heaps, sample the workers' heaps every HEAP_EVERY_MS; between samples, and without, wait for the verdict,
    // which ends the wait at once
    const verdict = page.locator(exp.done);
    let jsHeapUsed = 0, jsHeapTotal = 0, samples = 0;
    for (;;) {
      if (exp.heaps) {
        for (const h of await workerHeaps(cdp)) {
          jsHeapUsed = Math.max(jsHeapUsed, h.usedSize);
          jsHeapTotal = Math.max(jsHeapTotal, h.totalSize);
          samples += 1;
        }
      }
      // a timeout only means no verdict yet; any other error (the page gone, say) ends the benchmark
      const shown = await verdict.waitFor({ timeout: exp.heaps ? HEAP_EVERY_MS : 30 * 60_000 }).then(() => true, (e) => {
        if (e.name !== 'TimeoutError') throw e;
        return false;
      });
      if (shown) break;
      if (Date.now() - t0 > 30 * 60_000) throw new Error(`${exp.name}: no verdict within 30 minutes`);
    }
    const verdictAt = await page.evaluate(() => /** @type {{verdictAt: number}} */ (/** @type {unknown} */ (globalThis)).verdictAt
      || performance.now());  // a done selector not on <html>: when the wait saw it
    const wallS = (verdictAt - clickAt) / 1000;
    const cpu = cpuSeconds(cpuBefore, cpuReading());
    const after = { metrics: await mainThread(), costs: await page.evaluate(() => globalThis.mhaDebug.costs()) };
    // an ended helper's worker reports what it spent a moment after the verdict (a site built before helpers has none)
    await page.waitForFunction((list) => globalThis.mhaDebug[list]().every((r) => (r.helpers ?? []).every((h) => h.spent)),
      exp.runs, { timeout: 5000 }).catch(() => {});
    const runs = await page.evaluate((list) => globalThis.mhaDebug[list]().map((r) => ({
      key: r.key, status: r.status, steps: r.stepsDone, trained: r.trained, heads: r.settings.nHeads, seed: r.settings.seed,
      task: r.facts?.task, kernels: r.facts?.kernels, d_model: r.settings.dModel, layers: r.settings.nLayers, context: r.settings.context,
      batch: r.settings.batch, step_flops: r.facts?.stepFlops ?? null, train_s: r.seconds, wall_s: r.wallSeconds,
      wasm_memory_bytes: r.heapBytes, created_ms: r.timeline.createdAt ?? r.wallStart, ready_ms: r.timeline.readyAt,
      started_ms: r.timeline.startedAt, done_ms: r.timeline.doneAt, spent_ms: r.spent, spent_before_start_ms: r.spentBeforeStart,
      helpers: (r.helpers ?? []).map((h) => ({ created_ms: h.timeline.createdAt, ready_ms: h.timeline.readyAt,
        started_ms: h.timeline.startedAt, done_ms: h.timeline.doneAt, spent_ms: h.spent })),
    })), exp.runs);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    // the workers alive and their wasm memory (each run's last report of it), at the verdict and once idle
    const workers = () => page.evaluate((list) => {
      const awake = globalThis.mhaDebug[list]().filter((r) => r.awake);
      return { count: awake.length, wasm_bytes: awake.reduce((s, r) => s + (r.heapBytes || 0), 0) };
    }, exp.runs);
    const workersAtVerdict = exp.idle ? await workers() : null;
    if (exp.idle) await page.waitForTimeout(IDLE_WAIT_MS);
    const delta = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] ?? 0)]));
    return {
      name: exp.name, title: exp.title, settings: exp.hash, together: exp.together === true, cores, wall_s: wallS, click_ms: clickAt, verdict_ms: verdictAt,
      // seconds of the main thread's tasks (TaskDuration), and of scripts, layout and style within them
      main_thread_s: delta(before.metrics, after.metrics),
      // milliseconds of the page's own tally: receiving the workers' messages, drawing, saving runs
      page_ms: delta(before.costs, after.costs),
      // CPU seconds over the same span, from /proc (scripts/proc_cpu.mjs): Chromium's threads by role, the other
      // processes, idle and stolen; null off Linux
      cpu_s: cpu,
      runs: runs.map((r) => ({ ...r, tokens_per_s: r.train_s > 0 ? (r.trained * r.batch * r.context) / r.train_s : null })),
      worker_memory: exp.heaps ? {
        wasm_bytes_max: Math.max(...runs.map((r) => r.wasm_memory_bytes)),
        js_heap_used_bytes_max: jsHeapUsed, js_heap_total_bytes_max: jsHeapTotal, js_heap_samples: samples,
      } : null,
      workers: exp.idle ? { at_verdict: workersAtVerdict, idle: await workers(), idle_s: IDLE_WAIT_MS / 1000 } : null,
    };
  } finally {
    await browser.close();
  }
}

const { server, url } = await startServer({ port: 0, root: option('--root') });
try {
  const result = { quick, helpers: HELPERS, reuse: REUSE, charts_paused: CHARTS_PAUSED, module: moduleSize() };
  say(`${LOADS} loads of ${url}, each in a fresh profile`);
  const loads = [];
  for (let i = 0; i < LOADS; ++i) loads.push(await firstHeatmapMs(url));
  if (!loads.every(Number.isFinite)) throw new Error(`the page set no mha-first-heatmap mark (${loads.join(', ')})`);
  result.first_heatmap = loads.length ? { loads_ms: loads, median_ms: median(loads) } : null;
  say(`a training worker's memory (#${MEMORY.hash}), sampled every ${HEAP_EVERY_MS} ms`);
  result.worker_memory = (await experiment(url, MEMORY)).worker_memory;
  result.experiments = [];
  for (const exp of EXPERIMENTS.filter((e) => !only || only.includes(e.name))) {
    for (let i = 0; i < REPEAT; ++i) {
      say(`${exp.title} (#${exp.hash})${REPEAT > 1 ? `, ${i + 1} of ${REPEAT}` : ''}: click, then wait for its verdict`);
      result.experiments.push(await experiment(url, exp));
    }
  }
  result.console_errors = seen.errors;
  result.foreign_requests = seen.foreign;
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  say(`failed: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  server.close();
}
