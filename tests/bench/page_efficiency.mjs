// The page's efficiency, from what scripts/bench_page.mjs measured of one experiment (its runs' timelines, their
// workers' milliseconds by part, the main thread's busy time) and the wasm ceiling scripts/bench_chromium.mjs
// measured: pure arithmetic, for tests/bench/report.mjs's page table (and its test, tests/browser/page_efficiency.test.mjs).
//
//   slots S            runs at once: the machine's cores (the page runs one worker per core)
//   wall W             seconds from the click to the verdict
//   pure training      Σ over runs of the worker's training seconds (Run._train alone) / S: the wall time the
//                      experiment would take if the slots did nothing but train
//   page efficiency    pure training / W
//   machine limit      Σ over runs of steps × the step's flops / (S × the ceiling): the experiment at the kernels' best
//   breakdown          W cut into parts that add up to it, each Σ over runs / S: training, start-up (the worker's
//                      script and module), set-up, waiting for the other runs to be set up, evaluation, induction
//                      probes, head traces, snapshots, end checks and sample, the rest of a run's life (messages,
//                      the gaps between chunks), and the slots left idle (the queue, the tail)

/**
 * @typedef {{steps: number, trained: number, step_flops: number|null, created_ms: number, ready_ms: number,
 *   started_ms: number, done_ms: number, spent_ms: Record<string, number>|null}} MeasuredRun
 * @typedef {{name: string, cores: number, wall_s: number, click_ms: number, verdict_ms: number,
 *   main_thread_s: Record<string, number>, page_ms: Record<string, number>, runs: MeasuredRun[]}} MeasuredExperiment
 */

/**
 * the breakdown's parts, in the order a run meets them: [key, label, the worker's cost parts it sums]
 * @type {ReadonlyArray<[string, string, string[]]>}
 */
export const PARTS = [
  ['train', 'training', ['train']],
  ['startup', 'worker start-up and module', ['boot', 'module']],
  ['setup', 'set-up (data, model)', ['init']],
  ['together', 'waiting for the others to set up', []],
  ['evaluate', 'evaluation', ['evaluate']],
  ['induction', 'induction probes', ['induction']],
  ['trace', 'head traces', ['trace']],
  ['snapshot', 'snapshots', ['snapshot']],
  ['finish', 'end checks and sample', ['causality', 'finish']],
  ['other', 'messages and gaps in a run', []],
  ['idle', 'slots idle (queue, tail)', []],
];

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/**
 * @param {MeasuredExperiment} e
 * @param {number} ceilingGflops one core's wasm ceiling in Chromium (GFLOP/s); NaN when unknown
 * @returns {{slots: number, wall: number, pure: number, efficiency: number, flops: number, limit: number,
 *   overLimit: number, parts: Record<string, number>, mainThread: number, pageMs: Record<string, number>,
 *   complete: boolean}} seconds; parts per slot, adding up to wall; overLimit = wall / limit; complete: every run
 *   ended with its worker's figures
 */
export function pageEfficiency(e, ceilingGflops) {
  const slots = Math.max(1, e.cores);
  const runs = e.runs.filter((r) => r.spent_ms && r.done_ms > 0);
  const spent = (r, keys) => sum(keys.map((k) => r.spent_ms[k] ?? 0)) / 1000;
  const parts = Object.fromEntries(PARTS.map(([key, , keys]) => [key, sum(runs.map((r) => spent(r, keys))) / slots]));
  // a run's life: created → set up → started (held until every run of a "together" comparison is set up) → ended
  parts.together = sum(runs.map((r) => Math.max(0, r.started_ms - r.ready_ms))) / 1000 / slots;
  const life = (r) => (r.done_ms - r.created_ms) / 1000;
  const accounted = (r) => spent(r, PARTS.flatMap(([, , keys]) => keys)) + Math.max(0, r.started_ms - r.ready_ms) / 1000;
  parts.other = sum(runs.map((r) => life(r) - accounted(r))) / slots;
  const wall = e.wall_s;
  const pageWall = (e.verdict_ms - e.click_ms) / 1000;  // the same span on the page's clock
  parts.idle = pageWall - sum(runs.map(life)) / slots;
  const flops = sum(runs.map((r) => r.trained * (r.step_flops ?? NaN)));
  const limit = flops / (slots * ceilingGflops * 1e9);
  const pure = parts.train;
  return {
    slots, wall, pure, efficiency: pure / wall, flops, limit, overLimit: wall / limit, parts,
    mainThread: e.main_thread_s?.TaskDuration ?? NaN, pageMs: e.page_ms ?? {},
    complete: runs.length === e.runs.length && runs.length > 0,
  };
}

/**
 * The range of a figure over repeated measurements: min, median, max.
 * @param {number[]} xs
 * @returns {{min: number, median: number, max: number, n: number}}
 */
export function range(xs) {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { min: s[0], median: m, max: s[s.length - 1], n: s.length };
}
