// Number inputs bound to settings. Each field is [input, prop name, label for messages]; the inputs take their min
// and max from PROPS (state.js), so the page's HTML does not repeat the bounds.
import { propRange, rangeError } from '../state.js';
import { numberIn } from './dom.js';

/**
 * @param {Array<[HTMLInputElement, string, string]>} fields in the order their errors are reported
 * @returns {{ inputs: HTMLInputElement[], show(state: object): void, read(state: object): void,
 *   error(state: object): string|null, invalid(state: object): HTMLInputElement|null }} show writes the state into
 *   the inputs, read the inputs into the state (NaN for an empty box), error gives the first value outside its range
 *   as a sentence, or null, and invalid the input that holds it (to move the focus there)
 */
export function numberFields(fields) {
  for (const [input, name] of fields) {
    const { min, max } = propRange(name);
    input.min = String(min);
    input.max = String(max);
  }
  return {
    inputs: fields.map(([input]) => input),
    show(state) { for (const [input, name] of fields) input.value = state[name]; },
    read(state) { for (const [input, name] of fields) state[name] = numberIn(input); },
    error(state) {
      for (const [, name, label] of fields) {
        const err = rangeError(name, state[name], label);
        if (err) return err;
      }
      return null;
    },
    invalid(state) {
      return fields.find(([, name, label]) => rangeError(name, state[name], label))?.[0] ?? null;
    },
  };
}
