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
//   best schedule      the least wall time any order of these runs could take on S slots, each run on one slot from
//                      start to end, at their measured training times and with nothing else: a lower bound
//                      (scheduleBound). Runs of unequal lengths leave a slot idle whatever the page does (the
//                      induction model beside its shorter control, three long H = 1 runs of the offsets task on two
//                      slots), so pure training / wall cannot reach 100% there; best schedule / wall can
//   breakdown          W cut into parts that add up to it, each Σ over runs / S: training, start-up (the worker's
//                      script and module), set-up, waiting for the other runs to be set up (a comparison whose runs
//                      start together), evaluation, induction probes, head traces, snapshots, end checks and sample,
//                      the rest of a run's time in its slot (messages, the gaps between chunks), and the slots left
//                      idle (the queue, the tail)
//   helpers            a run may be lent a helper on a slot no run is left to take (web/js/helper.js): a worker that
//                      takes the second half of each of its steps. A helper holds its slot from its creation to its
//                      end like a run, and its parts count like a run's (its halves are training); the best schedule
//                      is then no bound (it keeps each run on one slot) and the page can beat it
//   set up ahead       a comparison sets up one run more than its slots while the others train (comparison.js): such
//                      a run takes its slot when it starts training, and the work of its set-up (everything its worker
//                      did before it was told to start) is not in the slots' time but beside it, on the same cores;
//                      it is given apart (ahead), Σ over those runs / S

/**
 * @typedef {{created_ms: number, ready_ms: number, started_ms: number, done_ms: number,
 *   spent_ms: Record<string, number>|null, spent_before_start_ms?: Record<string, number>|null}} MeasuredWorker
 * @typedef {MeasuredWorker & {steps: number, trained: number, step_flops: number|null,
 *   helpers?: MeasuredWorker[]}} MeasuredRun  helpers: the helpers it was lent, in order (a helper starts serving
 *   as soon as it is set up, so it is never set up ahead and has no spent_before_start_ms)
 * @typedef {{name: string, cores: number, wall_s: number, click_ms: number, verdict_ms: number, together?: boolean,
 *   main_thread_s?: Record<string, number>, page_ms?: Record<string, number>, cpu_s?: Record<string, number>|null,
 *   runs: MeasuredRun[]}} MeasuredExperiment
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
const AHEAD_MS = 10;  // a run that waited longer than this between its set-up and its start was set up ahead

/**
 * A lower bound on the time S slots take to run jobs of these lengths, each job on one slot from start to end (no
 * job split or shared): the total over S, and for every k ≥ 0 the k + 1 shortest of the k·S + 1 longest jobs, since
 * some slot runs at least k + 1 of those (k = 0: the longest job).
 * @param {number[]} lengths
 * @param {number} slots
 * @returns {number}
 */
export function scheduleBound(lengths, slots) {
  const desc = [...lengths].sort((a, b) => b - a);
  let bound = sum(desc) / slots;
  for (let k = 0; k * slots < desc.length; ++k) {
    const longest = desc.slice(0, k * slots + 1);
    bound = Math.max(bound, sum(longest.slice(-(k + 1))));
  }
  return bound;
}

/**
 * @param {MeasuredExperiment} e
 * @param {number} ceilingGflops one core's wasm ceiling in Chromium (GFLOP/s); NaN when unknown
 * @returns {{slots: number, wall: number, pure: number, efficiency: number, flops: number, limit: number,
 *   overLimit: number, best: number, ofBest: number, parts: Record<string, number>, ahead: number,
 *   mainThread: number, pageMs: Record<string, number>, workersBusy: number, workersCpu: number,
 *   cores: Record<string, number>|null, complete: boolean}} seconds; parts per slot, adding up to wall; ahead: the
 *   set-up work of the runs set up ahead, per slot, beside the parts; overLimit = wall / limit; best: the best
 *   schedule of the runs' training times (scheduleBound), ofBest = best / wall; workersBusy: every part of every run,
 *   summed (not per slot), as the workers' own clocks timed them, so with the time a worker waited for a core;
 *   workersCpu: the workers' CPU time as /proc counted it (NaN when not measured); cores: where the cores went
 *   (cpuShares); complete: every run ended with its worker's figures
 */
export function pageEfficiency(e, ceilingGflops) {
  const slots = Math.max(1, e.cores);
  const trainingRuns = e.runs.filter((r) => r.spent_ms && r.done_ms > 0);
  // every worker that held a slot: the runs' and their helpers'
  const runs = [...trainingRuns, ...trainingRuns.flatMap((r) => (r.helpers ?? []).filter((h) => h.spent_ms && h.done_ms > 0))];
  const keysOf = PARTS.flatMap(([, , keys]) => keys);
  const seconds = (ms, keys) => sum(keys.map((k) => ms?.[k] ?? 0)) / 1000;
  // a run set up ahead: not one started together with the others, and set up well before it was told to start (a run
  // set up while a slot is free starts in the same task, within a few milliseconds: 0–2 ms measured)
  const setUpAhead = (r) => !e.together && r.started_ms - r.ready_ms > AHEAD_MS;
  // what a run did in its slot: all of its work, or for a run set up ahead what it did after it was told to start
  const inSlot = (r, keys) => seconds(r.spent_ms, keys) - (setUpAhead(r) ? seconds(r.spent_before_start_ms, keys) : 0);
  const parts = Object.fromEntries(PARTS.map(([key, , keys]) => [key, sum(runs.map((r) => inSlot(r, keys))) / slots]));
  // a run's time in its slot: from its creation (from its start, when set up ahead) to its end; a run of a comparison
  // that starts together waits in its slot for the others to be set up
  const wait = (r) => (setUpAhead(r) ? 0 : Math.max(0, r.started_ms - r.ready_ms) / 1000);
  parts.together = sum(runs.map(wait)) / slots;
  const life = (r) => (r.done_ms - (setUpAhead(r) ? r.started_ms : r.created_ms)) / 1000;
  parts.other = sum(runs.map((r) => life(r) - inSlot(r, keysOf) - wait(r))) / slots;
  const wall = e.wall_s;
  const pageWall = (e.verdict_ms - e.click_ms) / 1000;  // the same span on the page's clock
  parts.idle = pageWall - sum(runs.map(life)) / slots;
  const ahead = sum(runs.filter(setUpAhead).map((r) => seconds(r.spent_before_start_ms, keysOf))) / slots;
  const flops = sum(trainingRuns.map((r) => r.trained * (r.step_flops ?? NaN)));
  const limit = flops / (slots * ceilingGflops * 1e9);
  const pure = parts.train;
  // each run's training as if it had trained alone: its own and its helpers'
  const best = scheduleBound(trainingRuns.map((r) => inSlot(r, ['train']) + sum((r.helpers ?? []).map((h) => inSlot(h, ['train'])))), slots);
  return {
    slots, wall, pure, efficiency: pure / wall, flops, limit, overLimit: wall / limit, best, ofBest: best / wall, parts, ahead,
    mainThread: e.main_thread_s?.TaskDuration ?? NaN, pageMs: e.page_ms ?? {},
    workersBusy: sum(runs.map((r) => sum(Object.values(r.spent_ms ?? {})))) / 1000,
    workersCpu: e.cpu_s?.workers ?? NaN, cores: cpuShares(e),
    complete: trainingRuns.length === e.runs.length && trainingRuns.length > 0,
  };
}

/**
 * the roles of cpuShares, in the order the report gives them: [key, label, the keys of scripts/proc_cpu.mjs it sums]
 * @type {ReadonlyArray<[string, string, string[]]>}
 */
export const CPU_ROLES = [
  ['workers', "the page's workers", ['workers']],
  ['main', 'its main thread', ['main']],
  ['renderer', "the renderer's other threads", ['renderer']],
  ['browser', "Chromium's browser process", ['browser']],
  ['gpu', 'its GPU and utility processes', ['gpu', 'utility']],
  ['others', 'other processes', ['other_processes']],
  ['idle', 'idle', ['idle']],
  ['steal', "taken by the VM's host", ['steal']],
];

/**
 * Where the machine's cores went over an experiment, as shares of all its CPU seconds then (cores × the span, as
 * /proc counted them): scripts/proc_cpu.mjs's seconds by role, grouped as CPU_ROLES. null when not measured.
 * @param {{cpu_s?: Record<string, number>|null}} e
 * @returns {Record<string, number>|null}
 */
export function cpuShares(e) {
  if (!e.cpu_s) return null;
  const total = sum(Object.values(e.cpu_s));
  if (!(total > 0)) return null;
  return Object.fromEntries(CPU_ROLES.map(([key, , keys]) => [key, sum(keys.map((k) => e.cpu_s?.[k] ?? 0)) / total]));
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
