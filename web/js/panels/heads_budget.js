// The heads panel's budgets: the core's default (a short look) and a longer preset at which the character model's
// samples start to read as words, each with how long the comparison will take here, and a question before anything
// longer than ASK_ABOVE_SECONDS. The time comes from this browser's own speed: the median over its finished runs of
// the same sizes of the tokens each trained per second of its wall time (start-up, evaluations and the other
// workers' share of the machine included), times the runs and the rounds of workers they need. Before any run has
// finished it comes from the same figure measured on an idle machine, and the line says which. Break it estimates
// with the same functions.
import { prop } from '../state.js';
import { count } from '../views/dom.js';

// page: the longer budget. At 2,000 steps the samples read as words with some misspellings, at 300 as word-shaped
// noise (docs/experiments.md, "A longer budget": scripts/heads_seeds 2000 6 101 and mha-train --steps 2000 --sample 300)
export const LONGER_STEPS = 2000;

const SETTINGS = {
  minSteps: 10,  // a run's speed counts once it has trained this many steps
  // before any run here: the speed of the default heads comparison in headless Chromium on an idle 2-core AMD EPYC
  // VM (36 runs of 300 steps × 16 × 64 tokens, two at a time, one set up ahead), per worker of wall time: the median
  // over its runs of the tokens each trained per second of its set-up and training, in two runs of
  // `node scripts/bench_page.mjs` (2026-11-27; docs/experiments.md, "The default experiments, click to verdict").
  // The page has grown faster since: on that VM, the same figure 57,900-60,500 in 7 runs (2026-11-29); on the Xeon VM
  // about 32,700 from the comparison's wall (36 runs of 307,200 tokens, two at a time, in 169.1 s; 2026-11-28). Kept
  // at the slower machine's pace: a first estimate that errs long on a fast machine rather than short on a slow one
  fallbackTokensPerSecond: 33300,
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** page: a comparison expected to take longer than this many seconds asks before it starts */
export const ASK_ABOVE_SECONDS = 120;

/** a duration as the page says it: "45 s", "3.5 min" */
export const duration = (s) => (s < 90 ? `${Math.max(1, Math.round(s))} s` : `${(s / 60).toFixed(s < 600 ? 1 : 0)} min`);

/**
 * The per-worker speed of this browser: the median over its finished runs (trained here, not restored) of the
 * tokens each trained per second of its wall time, over those of the same sizes (D, layers, T, B: the cost of a
 * token depends on them) when there are any.
 * @param {Iterable<import('../runs.js').Run>} runs
 * @param {{cD: number, layers: number, context: number, batch: number}} s the settings the estimate is for
 * @returns {{speed: number, sameSizes: boolean}} speed 0 when no run has finished to tell
 */
export function measuredSpeed(runs, s) {
  const timed = [...runs].filter((r) => r.status === 'done' && !r.restoredAt && r.trained >= SETTINGS.minSteps
    && r.wallSeconds > 0);
  const same = timed.filter((r) => r.settings.dModel === s.cD && r.settings.nLayers === s.layers
    && r.settings.context === s.context && r.settings.batch === s.batch);
  const pick = same.length ? same : timed;
  const speeds = pick.map((r) => (r.trained * r.settings.batch * r.settings.context) / r.wallSeconds);
  return { speed: speeds.length ? median(speeds) : 0, sameSizes: same.length > 0 };
}

/** the speed before any run here, and where it was measured (a panel whose model costs differently gives its own) */
export const FALLBACK_SPEED = Object.freeze({ speed: SETTINGS.fallbackTokensPerSecond,
  source: 'measured on an idle 2-core machine in headless Chromium' });

/**
 * Seconds for `runs` runs of `steps` steps of B × T tokens, `slots` at a time, at this speed (or the fallback).
 * @param {{runs: number, steps: number, batch: number, context: number}} p
 * @param {{speed: number, sameSizes: boolean}} measured measuredSpeed()
 * @param {number} slots
 * @param {{speed: number, source: string}} [fallback]
 * @returns {{runs: number, seconds: number, speed: number, source: string}}
 */
export function runsEstimate({ runs, steps, batch, context }, { speed, sameSizes }, slots, fallback = FALLBACK_SPEED) {
  const rounds = Math.ceil(runs / Math.max(1, slots));
  const known = speed > 0;
  const perWorker = known ? speed : fallback.speed;
  const source = !known ? `${fallback.source}; this browser's own speed replaces it after a first run`
    : sameSizes ? "this browser's median over its finished runs" : "this browser's median over its finished runs, of other sizes: a rough guide";
  return { runs, seconds: (rounds * steps * batch * context) / perWorker, speed: perWorker, source };
}

/**
 * How long a comparison of these settings takes here.
 * @param {{steps: number, batch: number, context: number, heads: number[], seeds: number}} s the panel's settings
 * @param {{speed: number, sameSizes: boolean}} measured tokens/s of one worker (measuredSpeed), 0 when unknown
 * @param {number} slots workers at once (one per core)
 * @param {{speed: number, source: string}} [fallback] the speed before any run here: the heads panel's model's,
 *   unless another panel's model states its own
 * @param {number} [kept] runs of this comparison that the finished one before would keep instead of training them
 *   (comparison.js wouldKeep)
 * @returns {{runs: number, kept: number, seconds: number, speed: number, source: string}} runs: those that train;
 *   source: where the speed comes from
 */
export function estimate(s, measured, slots, fallback = FALLBACK_SPEED, kept = 0) {
  return { ...runsEstimate({ runs: s.heads.length * s.seeds - kept, steps: s.steps, batch: s.batch, context: s.context },
    measured, slots, fallback), kept };
}

/**
 * The estimate as a sentence: "36 runs of 300 steps: about 2.8 min here (33,300 tokens/s per worker, measured …; 2 at
 * a time)."; with runs kept from the comparison before, "12 runs of 300 steps, and 24 kept from the comparison before:
 * …", and when every run would be kept, that nothing trains.
 * @param {{steps: number, heads: number[], seeds: number}} s
 * @param {{runs: number, kept?: number, seconds: number, speed: number, source: string}} e estimate()
 * @param {number} slots
 * @returns {string}
 */
export function durationSentence(s, e, slots) {
  const kept = e.kept ?? 0;
  if (kept > 0 && e.runs === 0) return `All ${count(kept)} runs of ${count(s.steps)} steps are kept from the comparison before: nothing to train.`;
  return `${count(e.runs)} run${e.runs === 1 ? '' : 's'} of ${count(s.steps)} steps` +
    `${kept ? `, and ${count(kept)} kept from the comparison before` : ''}: about ${duration(e.seconds)} here ` +
    `(${count(Math.round(e.speed))} tokens/s per worker, ${e.source}; ${Math.min(e.runs, slots)} at a time).`;
}

/**
 * Wires the two budget buttons and the duration line.
 * @param {{short: HTMLButtonElement, longer: HTMLButtonElement, help: HTMLElement}} ui
 * @param {{state: import('../state.js').State, runs: Map<string, any>}} app
 * @param {(steps: number) => void} setSteps puts a budget into the form and the state
 * @param {() => number} kept how many runs of the current settings the comparison before would keep
 * @returns {{update: () => void, estimate: () => object|null}} update: redraw after the settings or the runs changed
 */
export function setupBudget(ui, app, setSteps, kept) {
  const shortSteps = /** @type {number} */ (prop('steps').default);  // an int setting
  ui.short.textContent = `Short: ${count(shortSteps)} steps`;
  ui.longer.textContent = `Longer: ${count(LONGER_STEPS)} steps`;
  ui.short.addEventListener('click', () => setSteps(shortSteps));
  ui.longer.addEventListener('click', () => setSteps(LONGER_STEPS));
  const slots = () => Math.max(1, navigator.hardwareConcurrency || 1);
  const valid = (s) => [s.steps, s.batch, s.context, s.seeds].every(Number.isFinite) && Array.isArray(s.heads) && s.heads.length > 0;
  function update() {
    const s = app.state;
    ui.short.setAttribute('aria-pressed', String(s.steps === shortSteps));
    ui.longer.setAttribute('aria-pressed', String(s.steps === LONGER_STEPS));
    ui.help.textContent = valid(s) ? durationSentence(s, now(), slots()) : '';
  }
  const now = () => estimate(app.state, measuredSpeed(app.runs.values(), app.state), slots(), FALLBACK_SPEED, kept());
  update();
  return {
    update,
    /** @returns {{runs: number, kept: number, seconds: number, speed: number, source: string}|null} the current
     *  settings' estimate (runs: those that would train) */
    estimate: () => (valid(app.state) ? now() : null),
  };
}
