// The heads panel's budgets: the core's default (a short look) and a longer preset at which the character model's
// samples start to read as words, each with how long the comparison will take here, and a question before anything
// longer than ASK_ABOVE_SECONDS. The time comes from this browser's own speed: the training tokens per second of the
// panel's latest run (measured in its worker), times the runs and the rounds of workers they need. Before any run has
// trained it comes from a speed measured in headless Chromium on a 2-core machine, and the line says which.
import { prop } from '../state.js';
import { count } from '../views/dom.js';

// page: the longer budget. At 2,000 steps the samples read as words with some misspellings, at 300 as word-shaped
// noise (docs/experiments.md, "A longer budget": scripts/heads_seeds 2000 6 101 and mha-train --steps 2000 --sample 300)
export const LONGER_STEPS = 2000;

const SETTINGS = {
  minSteps: 10,  // a run's speed counts once it has trained this many steps (the first include worker start-up)
  // before any run here: 72 ms per step at B = 16, T = 64 on one core of a 2-core machine in headless Chromium, the
  // break panel's default comparison of the same model (docs/experiments.md, "Break it"): 1,024 tokens / 0.072 s
  fallbackTokensPerSecond: 14200,
};

/** page: a comparison expected to take longer than this many seconds asks before it starts */
export const ASK_ABOVE_SECONDS = 120;

/** a duration as the page says it: "45 s", "3.5 min" */
export const duration = (s) => (s < 90 ? `${Math.max(1, Math.round(s))} s` : `${(s / 60).toFixed(s < 600 ? 1 : 0)} min`);

/**
 * The per-worker speed of this browser: tokens per second of the most recent run that has trained a few steps,
 * preferring one of the same sizes (D, layers, T, B: the cost of a token depends on them).
 * @param {Iterable<import('../runs.js').Run>} runs
 * @param {{cD: number, layers: number, context: number, batch: number}} s the panel's settings
 * @returns {{speed: number, sameSizes: boolean}} speed 0 when no run has trained long enough to tell
 */
export function measuredSpeed(runs, s) {
  const timed = [...runs].filter((r) => r.trained >= SETTINGS.minSteps && r.seconds > 0);
  const same = timed.filter((r) => r.settings.dModel === s.cD && r.settings.nLayers === s.layers
    && r.settings.context === s.context && r.settings.batch === s.batch);
  const r = same.at(-1) ?? timed.at(-1);
  return { speed: r ? r.tokensPerSecond() : 0, sameSizes: same.length > 0 };
}

/**
 * How long a comparison of these settings takes here.
 * @param {{steps: number, batch: number, context: number, heads: number[], seeds: number}} s the panel's settings
 * @param {{speed: number, sameSizes: boolean}} measured tokens/s of one worker (measuredSpeed), 0 when unknown
 * @param {number} slots workers at once (one per core)
 * @param {number} [fallback] tokens/s of one worker before any run here: the heads panel's model, unless another
 *   panel's model states its own (measured in headless Chromium on a 2-core machine too)
 * @returns {{runs: number, seconds: number, speed: number, source: string}} source: where the speed comes from
 */
export function estimate(s, { speed, sameSizes }, slots, fallback = SETTINGS.fallbackTokensPerSecond) {
  const runs = s.heads.length * s.seeds;
  const rounds = Math.ceil(runs / Math.max(1, slots));
  const known = speed > 0;
  const perWorker = known ? speed : fallback;
  const source = !known ? 'measured in headless Chromium on a 2-core machine; this browser\'s own speed replaces it after a first run'
    : sameSizes ? "measured in this browser's last run" : "measured in this browser's last run, of other sizes: a rough guide";
  return { runs, seconds: (rounds * s.steps * s.batch * s.context) / perWorker, speed: perWorker, source };
}

/**
 * The estimate as a sentence: "9 runs of 300 steps: about 97 s here (14,200 tokens/s per worker, measured …; 2 at a time)."
 * @param {{steps: number, heads: number[], seeds: number}} s
 * @param {{runs: number, seconds: number, speed: number, source: string}} e estimate()
 * @param {number} slots
 * @returns {string}
 */
export function durationSentence(s, e, slots) {
  return `${count(e.runs)} run${e.runs === 1 ? '' : 's'} of ${count(s.steps)} steps: about ${duration(e.seconds)} here ` +
    `(${count(Math.round(e.speed))} tokens/s per worker, ${e.source}; ${Math.min(e.runs, slots)} at a time).`;
}

/**
 * Wires the two budget buttons and the duration line.
 * @param {{short: HTMLButtonElement, longer: HTMLButtonElement, help: HTMLElement}} ui
 * @param {{state: object, runs: Map<string, any>}} app
 * @param {(steps: number) => void} setSteps puts a budget into the form and the state
 * @returns {{update: () => void, estimate: () => object|null}} update: redraw after the settings or the runs changed
 */
export function setupBudget(ui, app, setSteps) {
  const shortSteps = prop('steps').default;
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
    ui.help.textContent = valid(s) ? durationSentence(s, estimate(s, measuredSpeed(app.runs.values(), s), slots()), slots()) : '';
  }
  update();
  return {
    update,
    /** @returns {{runs: number, seconds: number, speed: number, source: string}|null} the current settings' estimate */
    estimate: () => (valid(app.state) ? estimate(app.state, measuredSpeed(app.runs.values(), app.state), slots()) : null),
  };
}
