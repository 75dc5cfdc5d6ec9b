// All the page's settings in one table (PROPS), and their round trip through the URL hash:
//   #D=8&H=4&order=canonical&seed=1&panel=all&text=The+animal+...
// A link reproduces what the sender saw. Values that make no sense (D=abc, order=sideways) fall back to
// their defaults, and readHash() names them so the page can say so. Limits mirror the core's (config.hpp);
// the core still checks everything it is given. No DOM in this file.

/**
 * @typedef {{name: string, type: 'int', default: number, min: number, max: number, help: string}
 *         | {name: string, type: 'enum', default: string, values: string[], help: string}
 *         | {name: string, type: 'string', default: string, maxLength: number, help: string}} Prop
 * @typedef {{D: number, H: number, order: 'canonical'|'swapped', seed: number, panel: 'all'|'reshape'|'attention',
 *            text: string}} State
 * @typedef {{name: string, value: string, reason: string}} Rejected  one hash entry that was not used
 */

/** @type {ReadonlyArray<Prop>} the settings, in the order they are written to the URL */
export const PROPS = Object.freeze([
  { name: 'D', type: 'int', default: 8, min: 1, max: 1024, help: 'embedding size d_model' },
  { name: 'H', type: 'int', default: 4, min: 1, max: 64, help: 'number of heads' },
  { name: 'order', type: 'enum', default: 'canonical', values: ['canonical', 'swapped'], help: 'how D is cut into heads' },
  { name: 'seed', type: 'int', default: 1, min: 0, max: 4294967295, help: 'seed of the random weights' },
  { name: 'panel', type: 'enum', default: 'all', values: ['all', 'reshape', 'attention'], help: 'panels shown' },
  { name: 'text', type: 'string', default: "The animal didn't cross the street because it was too tired .",
    maxLength: 2000, help: 'sentence for the attention heads' },
]);

const BY_NAME = new Map(PROPS.map((p) => [p.name, p]));

/**
 * The default settings.
 * @returns {State}
 */
export function defaultState() {
  return Object.fromEntries(PROPS.map((p) => [p.name, p.default]));
}

/**
 * Parses one raw string for a prop.
 * @param {Prop} prop
 * @param {string} raw
 * @returns {{ok: true, value: number|string} | {ok: false, reason: string}}
 */
export function parseValue(prop, raw) {
  if (prop.type === 'int') {
    if (!/^\s*\d+\s*$/.test(raw)) return { ok: false, reason: 'not a whole number' };
    const v = Number(raw);
    if (v < prop.min || v > prop.max) return { ok: false, reason: `outside ${prop.min}…${prop.max}` };
    return { ok: true, value: v };
  }
  if (prop.type === 'enum') {
    return prop.values.includes(raw) ? { ok: true, value: raw } : { ok: false, reason: `not one of ${prop.values.join(', ')}` };
  }
  if (raw.length > prop.maxLength) return { ok: false, reason: `longer than ${prop.maxLength} characters` };
  return { ok: true, value: raw };
}

/**
 * Reads settings from a URL hash. Missing settings take their defaults; nonsense ones too, and are listed.
 * @param {string} hash e.g. location.hash, with or without the leading '#'
 * @returns {{state: State, rejected: Rejected[]}}
 */
export function readHash(hash) {
  const state = defaultState();
  const rejected = [];
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  for (const [name, value] of params) {
    const prop = BY_NAME.get(name);
    if (!prop) {
      rejected.push({ name, value, reason: 'not a setting of this page' });
      continue;
    }
    const parsed = parseValue(prop, value);
    if (parsed.ok) state[name] = parsed.value;
    else rejected.push({ name, value, reason: parsed.reason });
  }
  return { state, rejected };
}

/**
 * Writes settings as a URL hash, in PROPS order. Values are written as they are (the page may hold a D the
 * core rejects, so that the link reproduces the message); readHash() is the strict side.
 * @param {State} state
 * @returns {string} '#D=8&H=4&…'
 */
export function writeHash(state) {
  const params = new URLSearchParams();
  for (const p of PROPS) {
    const v = state[p.name];
    if (typeof v === 'number' && !Number.isFinite(v)) continue;  // an emptied number field: left out
    params.set(p.name, String(v));
  }
  return '#' + params.toString();
}
