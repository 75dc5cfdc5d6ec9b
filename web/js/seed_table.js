// The final table of a comparison over paired seeds (comparison.js), as data: the seeds every setting has finished
// (the paired ones, the only ones the core compares), and the caption and rows the panels show from the core's
// result (heads: each H against the first; Break it: each variant against canonical). No DOM: a panel lays it out
// (views/dom.js table) and node tests check it (tests/browser/seed_table.test.mjs).
import { endedAsPlanned } from './run_state.js';
import { count, plural } from './views/dom.js';
import { outcomeWords, pairedCell, signedCount } from './views/seed_words.js';

/**
 * A run that counts in a comparison: ended as its schedule says (run_state.js endedAsPlanned: to its last step, or
 * at its stopping loss), with a final validation loss.
 * @param {Parameters<typeof endedAsPlanned>[0]} run
 * @returns {boolean}
 */
export const finished = (run) => endedAsPlanned(run) && Number.isFinite(run?.val.loss.at(-1));

/**
 * The paired seeds of a comparison.
 * @param {{index: number, seed: number, cancelled: boolean, run: object|null}[]} plan
 * @param {(p: object) => string|number} settingOf the setting a planned run belongs to (its H, its variant)
 * @param {(string|number)[]} settings every setting, the reference first
 * @param {number} seeds seeds per setting
 * @returns {{complete: number[], used: object[][], seedList: number[], training: boolean, anyDone: boolean}}
 *   complete: the seed indices every setting has finished; used (settings × complete): their runs; seedList: their
 *   seeds; training: a planned run may still finish; anyDone: some run has finished
 */
export function pairedSeeds(plan, settingOf, settings, seeds) {
  const entry = (s, index) => plan.find((p) => settingOf(p) === s && p.index === index);
  const complete = Array.from({ length: seeds }, (_, i) => i).filter((i) => settings.every((s) => finished(entry(s, i)?.run)));
  return {
    complete,
    used: settings.map((s) => complete.map((i) => entry(s, i).run)),
    seedList: complete.map((i) => entry(settings[0], i).seed),
    training: plan.some((p) => !p.cancelled && !['done', 'failed'].includes(p.run?.status)),
    anyDone: plan.some((p) => p.run?.status === 'done'),
  };
}

/**
 * What stands where the table will be while no seed is paired yet: '' before any run has finished.
 * @param {{anyDone: boolean, training: boolean}} paired pairedSeeds()
 * @param {string} every who must finish a seed: 'every H', 'canonical and every variant'
 * @returns {string}
 */
export function noPairedSeed({ anyDone, training }, every) {
  if (!anyDone) return '';
  return training ? `The final numbers appear once ${every} ${/^every/.test(every) ? 'has' : 'have'} finished the same seed.`
    : `No seed was trained to the end of the schedule for ${every}, so there are no final numbers to compare.`;
}

/**
 * The caption's sentences about the seeds: which were compared, how the cells read, and the seeds still to come or
 * left out.
 * @param {{complete: number[], seedList: number[], training: boolean}} paired pairedSeeds()
 * @param {number} seeds seeds per setting planned
 * @param {string} every 'every H', 'canonical and every variant'
 * @returns {string}
 */
export function seedsCaption({ complete, seedList, training }, seeds, every) {
  const n = complete.length;
  const left = seeds - n;
  return `over ${plural(n, 'seed')} (${seedList.join(', ')}), the same ${n > 1 ? 'seeds' : 'seed'} for ${every}: ` +
    'mean ± half the range, and the lowest to the highest seed.' +
    (left ? ` ${plural(left, 'more seed')} ${training ? 'to come' : 'left out (stopped or failed)'}.` : '');
}

/**
 * The table's rows: per setting its name, parameters, mean ± half the range (one seed: the value), lowest–highest,
 * the paired difference to the reference with its 95% interval, and the outcome in a few words.
 * @param {string[]} labels the settings' names, the reference first
 * @param {object[][]} used pairedSeeds().used
 * @param {{settings: {mean: number, spread: number, min: number, max: number}[],
 *          toReference: {mean: number, low: number, high: number, outcome: string}[], margin: number}} c the core's
 *   comparison of the final losses (compareOverSeeds, compareVariants)
 * @returns {string[][]}
 */
export function finalRows(labels, used, c) {
  const n = used[0].length;
  return labels.map((label, g) => {
    const x = c.settings[g], d = c.toReference[g];
    return [label, used[g][0].facts ? count(used[g][0].facts.params) : '–',
      n > 1 ? `${x.mean.toFixed(3)} ± ${x.spread.toFixed(3)}` : x.mean.toFixed(3),
      n > 1 ? `${x.min.toFixed(3)}–${x.max.toFixed(3)}` : '–',
      g === 0 ? 'reference' : pairedCell(d, n), g === 0 ? '' : outcomeWords(d, c.margin)];
  });
}

/** The columns of finalRows, with the reference's name. @param {string} reference @returns {string[]} */
export const finalColumns = (first, reference) => [first, 'parameters', 'final validation loss', 'seeds: min–max',
  `paired difference to ${reference} (95% interval)`, 'verdict'];

/**
 * The steps at which each seed's run first reached a comparison's threshold, per setting: a seed that never got there
 * counts as the budget (it reached it no sooner), so that the steps can be paired by seed and judged.
 * @param {{settings: {first: number[]}[], budget: number}} reach the core's reachOverSeeds()
 * @returns {number[][]} (G,S)
 */
export const reachSteps = (reach) => reach.settings.map((x) => x.first.map((s) => (s < 0 ? reach.budget : s)));

/** The rule reachVerdict applies (the core's, compareOverSeeds, on steps instead of nats). */
export const REACH_RULE = 'Each verdict judges the paired differences of the steps (the same seed for both settings): ' +
  'an effect when their 95% t-interval excludes 0; otherwise cannot tell yet.';

/**
 * The paired verdict on the steps to a threshold, for setting g against the reference, in steps.
 * @param {string} label
 * @param {string} reference
 * @param {{mean: number, low: number, high: number, outcome: string, seedsToDecide: number}} d the core's
 *   PairedDifference of the steps (compareOverSeeds of reachSteps)
 * @param {number} n paired seeds
 * @returns {string}
 */
export function reachVerdict(label, reference, d, n) {
  const over = n > 1 ? `95% t-interval over ${n} paired seeds: ${signedCount(d.low)} to ${signedCount(d.high)} steps`
    : 'one seed: no interval';
  const head = `${label} − ${reference}, the first step at the threshold: ${signedCount(d.mean)} steps (${over})`;
  if (d.outcome === 'effect') return `${head}: ${label} gets there ${d.mean < 0 ? 'sooner' : 'later'}, an effect.`;
  // steps differ by whole measurements: an interval inside the core's margin is every seed at the same step
  if (d.outcome === 'equivalent') return `${head}: no difference, every seed got there at the same measurement.`;
  return `${head}: cannot tell yet` + (d.seedsToDecide > n ? `; about ${d.seedsToDecide} seeds would likely decide it.` : '.');
}
