// The heads panel's budgets: the core's default (a short look) and a longer preset at which the character model's
// samples start to read as words, each with how long the comparison will take here. The time comes from this
// browser's own speed: the training tokens per second of the panel's latest run (measured in its worker), times
// the runs and the rounds of workers they need. Before any run has trained there is no speed to go by, and the line
// says so rather than guessing from another machine.
import { prop } from '../state.js';
import { count } from '../views/dom.js';

// page: the longer budget. At 2,000 steps the samples read as words with some misspellings, at 300 as word-shaped
// noise (docs/experiments.md, "A longer budget": scripts/heads_seeds 2000 3 and mha-train --steps 2000 --sample 300)
export const LONGER_STEPS = 2000;

const SETTINGS = {
  minSteps: 10,  // a run's speed counts once it has trained this many steps (the first include worker start-up)
};

const minutes = (s) => (s < 90 ? `${Math.max(1, Math.round(s))} s` : `${(s / 60).toFixed(s < 600 ? 1 : 0)} min`);

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
 * How long a comparison of these settings takes here, as a sentence.
 * @param {{steps: number, batch: number, context: number, heads: number[], seeds: number}} s the panel's settings
 * @param {{speed: number, sameSizes: boolean}} measured tokens/s of one worker (measuredSpeed), 0 when unknown
 * @param {number} slots workers at once (one per core)
 * @returns {string}
 */
export function durationSentence(s, { speed, sameSizes }, slots) {
  const runs = s.heads.length * s.seeds;
  const rounds = Math.ceil(runs / Math.max(1, slots));
  const tokens = s.steps * s.batch * s.context;
  const what = `${count(runs)} run${runs === 1 ? '' : 's'} of ${count(s.steps)} steps`;
  if (!(speed > 0)) return `${what}; the time it takes here is shown once a run has trained a few steps.`;
  const seconds = (rounds * tokens) / speed;
  const source = sameSizes ? "this browser's last run" : "this browser's last run, of other sizes: a rough guide";
  return `${what}: about ${minutes(seconds)} here (${count(Math.round(speed))} tokens/s per worker, measured in ` +
    `${source}; ${Math.min(runs, slots)} at a time).`;
}

/**
 * Wires the two budget buttons and the duration line.
 * @param {{short: HTMLButtonElement, longer: HTMLButtonElement, help: HTMLElement}} ui
 * @param {{state: object, runs: Map<string, any>}} app
 * @param {(steps: number) => void} setSteps puts a budget into the form and the state
 * @returns {{update: () => void}} update: redraw after the settings or the runs changed
 */
export function setupBudget(ui, app, setSteps) {
  const shortSteps = prop('steps').default;
  ui.short.textContent = `Short: ${count(shortSteps)} steps`;
  ui.longer.textContent = `Longer: ${count(LONGER_STEPS)} steps`;
  ui.short.addEventListener('click', () => setSteps(shortSteps));
  ui.longer.addEventListener('click', () => setSteps(LONGER_STEPS));
  function update() {
    const s = app.state;
    ui.short.setAttribute('aria-pressed', String(s.steps === shortSteps));
    ui.longer.setAttribute('aria-pressed', String(s.steps === LONGER_STEPS));
    const valid = Number.isFinite(s.steps) && Array.isArray(s.heads) && s.heads.length > 0;
    ui.help.textContent = valid
      ? durationSentence(s, measuredSpeed(app.runs.values(), s), Math.max(1, navigator.hardwareConcurrency || 1))
      : '';
  }
  update();
  return { update };
}
