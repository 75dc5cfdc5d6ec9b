// All the page's settings in one table (PROPS), and their round trip through the URL hash:
//   #panel=heads&steps=200&lr=0.003&heads=1,4,8&hide=corpus,lr
// A link reproduces what the sender saw. Values that make no sense (D=abc, order=sideways) fall back to
// their defaults, and readHash() names them so the page can say so. Limits mirror the core's (config.hpp);
// the core still checks everything it is given. No DOM in this file.

/**
 * @typedef {{name: string, type: 'int', default: number, min: number, max: number, help: string}
 *         | {name: string, type: 'number', default: number, min: number, max: number, help: string}
 *         | {name: string, type: 'enum', default: string, values: string[], help: string}
 *         | {name: string, type: 'string', default: string, maxLength: number, help: string}
 *         | {name: string, type: 'ints', default: number[], min: number, max: number, minCount: number,
 *            maxCount: number, help: string}
 *         | {name: string, type: 'numbers', default: number[], count: number, help: string}
 *         | {name: string, type: 'words', default: string[], values: string[], help: string}} Prop
 * @typedef {Record<string, number|string|number[]|string[]>} State  one value per PROPS entry, by name
 * @typedef {{name: string, value: string, reason: string}} Rejected  one URL entry that was not used
 */

const IDENTITY4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** The panels, in page order; 'all' shows every one. */
export const PANELS = Object.freeze(['all', 'reshape', 'attention', 'worked', 'heads', 'break', 'inside', 'induction', 'params']);

/** The attention variants of "Break it" besides canonical (core/config.hpp, AttentionVariant), in lesson order. */
export const VARIANTS = Object.freeze(['swapped_order', 'no_transpose_split', 'no_transpose_merge', 'no_transpose_both',
  'scale_sqrt_d', 'no_wo', 'per_head_proj', 'split_input', 'tied_heads']);

/** Controls that hide=… can remove from the page (an instructor's embed), by their data-control name. */
export const HIDEABLE = Object.freeze(['D', 'H', 'order', 'seed', 'text', 'corpus', 'heads', 'cD', 'layers',
  'context', 'batch', 'steps', 'lr', 'cseed', 'upload', 'export', 'weights', 'itext', 'snapshots', 'kv',
  'variants', 'bsteps', 'bbatch', 'blr', 'bseed', 'ntask', 'nsteps', 'nlr', 'nseed']);

// The induction lab's two settings of its task (prop ntask, web/js/panels/induction.js), each with the steps it
// needs. Measured natively, lr 2e-3:
//   short: the layer-1 induction score passes 0.4 by step 2,750 for 14 of 16 seeds and by 4,750 for all, about a
//          minute in a tab; the 1-layer control scores 0.21 to 0.26 at step 3,000 (scripts/induction_budget).
//   long:  the phase change comes after 11,750 to 13,750 steps (4 seeds), the control stays near 0.15.
export const INDUCTION_TASKS = Object.freeze({
  short: { context: 16, segMin: 3, segMax: 7, batch: 64, steps: 3000 },
  long: { context: 32, segMin: 4, segMax: 10, batch: 32, steps: 16000 },
});

/** @type {ReadonlyArray<Prop>} the settings, in the order they are written to the URL */
export const PROPS = Object.freeze([
  { name: 'panel', type: 'enum', default: 'all', values: PANELS, help: 'panel shown' },
  // panels 1 and 2: reshape, attention with random weights
  { name: 'D', type: 'int', default: 8, min: 1, max: 1024, help: 'embedding size d_model' },
  { name: 'H', type: 'int', default: 4, min: 1, max: 64, help: 'number of heads' },
  { name: 'order', type: 'enum', default: 'canonical', values: ['canonical', 'swapped'], help: 'how D is cut into heads' },
  { name: 'seed', type: 'int', default: 1, min: 0, max: 4294967295, help: 'seed of the random weights' },
  { name: 'text', type: 'string', default: "The animal didn't cross the street because it was too tired .",
    maxLength: 2000, help: 'sentence for the attention heads' },
  // worked example: X (3,4) and the four (4,4) weights in (in,out) layout
  { name: 'wx', type: 'numbers', default: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], count: 12, help: 'worked example X' },
  { name: 'wq', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_Q' },
  { name: 'wk', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_K' },
  { name: 'wv', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_V' },
  { name: 'wo', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_O' },
  // heads, compared
  { name: 'heads', type: 'ints', default: [1, 4, 8], min: 1, max: 64, minCount: 1, maxCount: 4, help: 'head counts compared' },
  { name: 'cD', type: 'int', default: 64, min: 8, max: 256, help: 'embedding size of the compared models' },
  { name: 'layers', type: 'int', default: 2, min: 1, max: 4, help: 'layers' },
  { name: 'context', type: 'int', default: 64, min: 8, max: 128, help: 'context length T' },
  { name: 'batch', type: 'int', default: 16, min: 1, max: 64, help: 'batch size B' },
  { name: 'steps', type: 'int', default: 300, min: 1, max: 5000, help: 'training steps' },
  { name: 'lr', type: 'number', default: 0.003, min: 1e-6, max: 10, help: 'peak learning rate' },
  { name: 'cseed', type: 'int', default: 1, min: 0, max: 2147483647, help: 'seed of weights and batches' },
  { name: 'corpus', type: 'enum', default: 'shipped', values: ['shipped', 'pasted'], help: 'training text' },
  // look inside
  { name: 'itext', type: 'string', default: 'And God said, Let there be light: and there was light.', maxLength: 200,
    help: 'sentence for the trained heads' },
  { name: 'irun', type: 'int', default: 4, min: 1, max: 64, help: 'heads of the run looked inside' },
  // break it: the variants trained beside the canonical model (D = 64, H = 4, 2 layers, T = 64, the shipped corpus)
  { name: 'variants', type: 'words', default: ['no_transpose_split', 'no_transpose_merge', 'swapped_order'], values: VARIANTS,
    help: 'variants trained beside canonical' },
  { name: 'bsteps', type: 'int', default: 200, min: 1, max: 5000, help: 'training steps of each variant' },
  { name: 'bbatch', type: 'int', default: 16, min: 1, max: 64, help: 'batch size of each variant' },
  { name: 'blr', type: 'number', default: 0.003, min: 1e-6, max: 10, help: 'peak learning rate of each variant' },
  { name: 'bseed', type: 'int', default: 1, min: 0, max: 2147483647, help: 'seed of weights and batches' },
  // induction heads: 2-layer attention-only model and a 1-layer control on the repeated-segment task
  { name: 'ntask', type: 'enum', default: 'short', values: Object.keys(INDUCTION_TASKS), help: 'setting of the induction lab' },
  { name: 'nsteps', type: 'int', default: INDUCTION_TASKS.short.steps, min: 1, max: 20000, help: 'training steps of the induction lab' },
  { name: 'nlr', type: 'number', default: 0.002, min: 1e-6, max: 1, help: 'learning rate (constant) of the induction lab' },
  { name: 'nseed', type: 'int', default: 1, min: 0, max: 2147483647, help: 'seed of the induction lab' },
  // parameters and KV cache (Llama-2-70B)
  { name: 'kvL', type: 'int', default: 80, min: 1, max: 1000, help: 'layers' },
  { name: 'kvD', type: 'int', default: 8192, min: 1, max: 1048576, help: 'd_model' },
  { name: 'kvH', type: 'int', default: 64, min: 1, max: 4096, help: 'query heads' },
  { name: 'kvKv', type: 'int', default: 8, min: 1, max: 4096, help: 'KV heads' },
  { name: 'kvHs', type: 'int', default: 128, min: 1, max: 4096, help: 'head size' },
  { name: 'kvCtx', type: 'int', default: 4096, min: 1, max: 2097152, help: 'context' },
  { name: 'kvB', type: 'int', default: 8, min: 1, max: 4096, help: 'batch' },
  { name: 'kvBytes', type: 'int', default: 2, min: 1, max: 8, help: 'bytes per value' },
  // embedding
  { name: 'hide', type: 'words', default: [], values: HIDEABLE, help: 'controls hidden' },
  { name: 'embed', type: 'enum', default: '0', values: ['0', '1'], help: 'one panel without page chrome' },
]);

const BY_NAME = new Map(PROPS.map((p) => [p.name, p]));

/**
 * The default settings.
 * @returns {State}
 */
export function defaultState() {
  return Object.fromEntries(PROPS.map((p) => [p.name, Array.isArray(p.default) ? [...p.default] : p.default]));
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
  if (prop.type === 'number') {
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(v)) return { ok: false, reason: 'not a number' };
    if (v < prop.min || v > prop.max) return { ok: false, reason: `outside ${prop.min}…${prop.max}` };
    return { ok: true, value: v };
  }
  if (prop.type === 'ints') {
    const parts = raw.split(',');
    if (parts.length < prop.minCount || parts.length > prop.maxCount)
      return { ok: false, reason: `not ${prop.minCount} to ${prop.maxCount} whole numbers` };
    const vs = [];
    for (const p of parts) {
      if (!/^\s*\d+\s*$/.test(p)) return { ok: false, reason: 'not a list of whole numbers' };
      const v = Number(p);
      if (v < prop.min || v > prop.max) return { ok: false, reason: `a value outside ${prop.min}…${prop.max}` };
      vs.push(v);
    }
    return { ok: true, value: vs };
  }
  if (prop.type === 'numbers') {
    const parts = raw.split(',');
    if (parts.length !== prop.count) return { ok: false, reason: `not ${prop.count} numbers` };
    const vs = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
    if (vs.some((v) => !Number.isFinite(v) || Math.abs(v) > 1e6)) return { ok: false, reason: 'not a list of numbers' };
    return { ok: true, value: vs };
  }
  if (prop.type === 'words') {
    const vs = raw.split(',').map((w) => w.trim()).filter(Boolean);
    const bad = vs.find((w) => !prop.values.includes(w));
    if (bad !== undefined) return { ok: false, reason: `“${bad}” is not one of ${prop.values.join(', ')}` };
    return { ok: true, value: vs };
  }
  if (prop.type === 'enum') {
    return prop.values.includes(raw) ? { ok: true, value: raw } : { ok: false, reason: `not one of ${prop.values.join(', ')}` };
  }
  if (raw.length > prop.maxLength) return { ok: false, reason: `longer than ${prop.maxLength} characters` };
  return { ok: true, value: raw };
}

/**
 * The bounds of a numeric prop.
 * @param {string} name
 * @returns {{min: number, max: number}}
 */
export function propRange(name) {
  const { min, max } = BY_NAME.get(name);
  return { min, max };
}

/**
 * What is wrong with a value typed into a form for a setting, by that setting's range in PROPS (the one place the
 * ranges are written): whole numbers ('int') from min to max; other numbers (learning rates) above 0 and at most max.
 * @param {string} name the setting, e.g. 'bsteps'
 * @param {number} value NaN for an empty field
 * @param {string} label how the sentence names the field, e.g. 'Steps'
 * @returns {string|null} a sentence, or null when the value is usable
 */
export function rangeError(name, value, label) {
  const p = BY_NAME.get(name);
  if (p.type === 'int') {
    return Number.isInteger(value) && value >= p.min && value <= p.max ? null : `${label} must be a whole number from ${p.min} to ${p.max}.`;
  }
  return Number.isFinite(value) && value > 0 && value <= p.max ? null : `${label} must be above 0 and at most ${p.max}.`;
}

/**
 * Reads settings from a URL's query and hash (the hash wins: the page writes its state there; the query is how
 * an embed says ?embed=1&panel=heads). Missing settings take their defaults; nonsense ones too, and are listed.
 * @param {string} hash e.g. location.hash, with or without the leading '#'
 * @param {string} [search] e.g. location.search, with or without the leading '?'
 * @returns {{state: State, rejected: Rejected[]}}
 */
export function readHash(hash, search = '') {
  const state = defaultState();
  const rejected = [];
  const params = [...new URLSearchParams(search.replace(/^\?/, '')), ...new URLSearchParams(hash.replace(/^#/, ''))];
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
 * Writes settings as a URL hash, in PROPS order, leaving out those at their defaults (short links). Values are
 * written as they are (the page may hold a D the core rejects, so that the link reproduces the message);
 * readHash() is the strict side.
 * @param {State} state
 * @returns {string} '#D=12&H=2&…' ('#' alone when everything is at its default)
 */
export function writeHash(state) {
  const params = new URLSearchParams();
  for (const p of PROPS) {
    const v = state[p.name];
    if (typeof v === 'number' && !Number.isFinite(v)) continue;  // an emptied number field: left out
    if (Array.isArray(v) ? v.join(',') === p.default.join(',') : v === p.default) continue;
    params.set(p.name, Array.isArray(v) ? v.join(',') : String(v));
  }
  return '#' + params.toString();
}
