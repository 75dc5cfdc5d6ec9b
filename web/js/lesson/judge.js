// A prediction against what the core read from the student's own runs (steps.js): right, wrong, not yet decided by
// the core's rule, or waiting for the runs. Never a canned answer: with no reading there is no judgement. No DOM.

/**
 * @typedef {{mark: 'waiting'|'undecided'|'right'|'wrong', sentence: string, answer: string|number|null,
 *            evidence: string, more: {setting: string, seeds: number}|null}} Judgement
 */

/**
 * The words of a prediction or an answer: a choice's label, or a number with its unit.
 * @param {import('./steps.js').Prediction} p
 * @param {string|number} value
 * @returns {string}
 */
export function words(p, value) {
  if (p.kind === 'number') return `${value} ${p.unit}`;
  return p.choices.find((c) => c.value === value)?.label ?? String(value);
}

/**
 * @param {import('./steps.js').Prediction} p the step's prediction control
 * @param {string|number} predicted what the student committed to
 * @param {import('./steps.js').Reading} reading what the core read from the runs
 * @returns {Judgement}
 */
export function judge(p, predicted, reading) {
  if (reading.ready === false) return { mark: 'waiting', sentence: reading.waiting, answer: null, evidence: '', more: null };
  const { answer, evidence } = reading;
  // a number the runs have narrowed to a range (lo … hi) without deciding it: a prediction within the tolerance of
  // every value in it is right whatever the rest turns out to be, one beyond the tolerance of every value is wrong
  if (answer === null && p.kind === 'number' && reading.range) {
    const [lo, hi] = reading.range, v = Number(predicted);
    const said = `“${words(p, predicted)}”; the core measured ${lo === hi ? words(p, lo) : `${lo} to ${words(p, hi)}`} so far`;
    if (v >= hi - p.tolerance && v <= lo + p.tolerance) {
      return { mark: 'right', answer: null, evidence, more: null, sentence: `You predicted ${said}, within ${p.tolerance} of all of it.` };
    }
    if (v < lo - p.tolerance || v > hi + p.tolerance) {
      return { mark: 'wrong', answer: null, evidence, more: null, sentence: `You predicted ${said}, more than ${p.tolerance} away from all of it.` };
    }
  }
  if (answer === null) {
    const more = reading.more ?? null;
    return { mark: 'undecided', answer, evidence, more,
      sentence: `The runs cannot decide it yet, so your prediction (“${words(p, predicted)}”) is neither right nor wrong ` +
        `so far.${more ? ` About ${more.seeds} seeds would likely decide it.` : ''}` };
  }
  const right = p.kind === 'number' ? Math.abs(Number(predicted) - Number(answer)) <= p.tolerance : predicted === answer;
  const near = p.kind === 'number' && right && Number(predicted) !== Number(answer) ? `, within ${p.tolerance} of it` : '';
  return { mark: right ? 'right' : 'wrong', answer, evidence, more: null,
    sentence: `You predicted “${words(p, predicted)}”; the core measured “${words(p, answer)}”${near}.` };
}
