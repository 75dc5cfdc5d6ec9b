// All the page's settings in one table (PROPS), and their round trip through the URL hash:
//   #panel=heads&steps=200&lr=0.003&heads=1,4,8&hide=corpus,lr
// A link reproduces what the sender saw. Values that make no sense (D=abc, order=sideways) fall back to
// their defaults, and readHash() names them so the page can say so. The table is completed from the core's
// constants (engine.js constants()) once the core has loaded: the core's limits, its variant list, the induction
// lab's settings and the run defaults come from there. Numbers written here are the page's own choices (a
// narrower range that a tab trains in reasonable time, the demo's defaults), marked "page". The core still checks
// everything it is given. No DOM in this file.
import { STEP_IDS } from './lesson/steps.js';

/**
 * @typedef {{name: string, defaults: Readonly<Record<string, number>>}} Follows  a default that is another
 *   setting's choice's: the induction lab's steps and rate are those of the setting (ntask) chosen
 * @typedef {{name: string, type: 'int', default: number, min: number, max: number, help: string, follows?: Follows}
 *         | {name: string, type: 'number', default: number, min: number, max: number, help: string, follows?: Follows}
 *         | {name: string, type: 'enum', default: string, values: string[], help: string}
 *         | {name: string, type: 'string', default: string, maxLength: number, help: string}
 *         | {name: string, type: 'ints', default: number[], min: number, max: number, minCount: number,
 *            maxCount: number, help: string}
 *         | {name: string, type: 'numbers', default: number[], count: number, help: string}
 *         | {name: string, type: 'words', default: string[], values: readonly string[], help: string}} Prop
 * @typedef {Extract<Prop, {max: number}>} RangedProp  a setting with bounds: an int, a number or ints
 * @typedef {number|string|number[]|string[]} Value  a setting's value: its prop's type says which
 * @typedef {{panel: string[], D: number, H: number, order: import('./engine.js').HeadOrder, seed: number, text: string,
 *            wx: number[], wq: number[], wk: number[], wv: number[], wo: number[],
 *            heads: number[], cD: number, layers: number, context: number, batch: number, steps: number, lr: number,
 *            cseed: number, seeds: number, corpus: string, ctask: string, oheads: number[], oseeds: number, ostop: string,
 *            itext: string, irun: number,
 *            variants: string[], bsteps: number, bbatch: number, blr: number, bseed: number, bseeds: number,
 *            ntask: string, nsteps: number, nlr: number, nseed: number,
 *            kvL: number, kvD: number, kvH: number, kvKv: number, kvHs: number, kvCtx: number, kvB: number,
 *            kvBytes: number, kvBias: string,
 *            hide: string[], embed: string, downloads: string, frame: string, lesson: string[]}} State  one value per PROPS entry, by
 *   name, of its prop's type (makeProps: keep the two in step); a number field the user emptied holds NaN
 * @typedef {{name: string, value: string, reason: string}} Rejected  one URL entry that was not used
 */
const IDENTITY4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** The panels, in page order; 'all' shows every one. */
export const PANELS = Object.freeze(['all', 'reshape', 'attention', 'worked', 'heads', 'break', 'inside', 'induction', 'params']);

/** Controls that hide=… can remove from the page (an instructor's embed), by their data-control name. */
export const HIDEABLE = Object.freeze(['D', 'H', 'order', 'seed', 'text', 'corpus', 'heads', 'cD', 'layers',
  'context', 'batch', 'steps', 'lr', 'cseed', 'seeds', 'ctask', 'why', 'upload', 'export', 'weights', 'itext', 'snapshots',
  'kv', 'budget', 'variants', 'bsteps', 'bbatch', 'blr', 'bseed', 'bseeds', 'ntask', 'nsteps', 'nlr', 'nseed']);

// the settings that lay the page out: the page's own, readable before the core has loaded (readLayout)
/** @type {Readonly<Record<'panel'|'hide'|'embed'|'downloads'|'frame'|'lesson', Prop>>} */
const LAYOUT = Object.freeze({
  // one panel, or a list shown together in one frame (panel=heads,inside: train, then look)
  panel: { name: 'panel', type: 'words', default: ['all'], values: PANELS, help: 'panels shown' },
  hide: { name: 'hide', type: 'words', default: [], values: HIDEABLE, help: 'controls hidden' },
  embed: { name: 'embed', type: 'enum', default: '0', values: ['0', '1'], help: 'one panel without page chrome' },
  downloads: { name: 'downloads', type: 'enum', default: '0', values: ['0', '1'],
    help: 'downloads allowed in an opaque-origin frame (frame_downloads.js)' },
  // a course page with several frames tells their height messages apart by this name (main.js reportHeight)
  frame: { name: 'frame', type: 'string', default: '', maxLength: 64, help: 'name echoed in the frame\'s height messages' },
  // the lesson (lesson/lesson.js): 1 for every step, or the steps an instructor chose (lesson=reshape,heads,offsets)
  lesson: { name: 'lesson', type: 'words', default: [], values: ['1', ...STEP_IDS], help: 'lesson steps shown' },
});

// page: the training panels' ranges, narrower than the core's, so that a run fits a tab
const PAGE = Object.freeze({
  minLr: 1e-6,           // learning rates from here up to the core's maxLr (the induction lab: up to inductionMaxLr)
  maxSteps: 5000,        // steps of the heads and break-it panels
  inductionMaxSteps: 20000,
  inductionMaxLr: 1,
  maxHeadCounts: 4,      // head counts compared side by side in the heads panel
  // seeds per head count in the heads panel (paired: the same seeds for every H): on the text, 12, the fewest at
  // which the 95% t-interval decides H = 4 and H = 8 against H = 1 at the default 300 steps (seeds 1..12: no
  // difference larger than 0.02 nats; with 10, H = 8 cannot tell yet; docs/experiments.md, "Heads comparison");
  // on the offsets task 3 decide (the gap is 0.16 nats against a spread of 0.005)
  seeds: 12,
  offsetSeeds: 3,
  breakSeeds: 3,         // seeds per variant in Break it: 3 decide its default variants (docs/experiments.md)
  maxSeeds: 16,          // at most: 4 head counts × 16 seeds is 64 runs
});

/**
 * The tasks "Heads, compared" trains: every task of the core's table but the one the induction lab's probes measure
 * (panel 7 has its own).
 * @param {import('./engine.js').CoreConstants} c the core's constants
 * @returns {import('./engine.js').TaskRow[]}
 */
export const headsTasks = (c) => c.tasks.filter((t) => !t.inductionProbes);

/**
 * The settings table, in the order the settings are written to the URL.
 * @param {import('./engine.js').CoreConstants} c the core's constants
 * @returns {Prop[]}
 */
function makeProps(c) {
  const { limits, defaults: run } = c;
  /** @type {(name: string, help: string) => Prop} */
  const seed = (name, help) => ({ name, type: 'int', default: run.seed, min: 0, max: limits.maxSeed, help });
  /** @type {(name: string, def: number, max: number, help: string, follows?: Follows) => Prop} */
  const lr = (name, def, max, help, follows) => ({ name, type: 'number', default: def, min: PAGE.minLr, max, help,
    ...(follows ? { follows } : {}) });
  const ntask = 'short';  // page: the induction lab's default setting, the one that fits a minute
  // the induction lab's settings are the core's presets 'induction-<setting>'; each brings its steps and rate, so
  // that a link with ntask=long and no nsteps or nlr trains the long setting as the core measured it
  const inductionSettings = Object.keys(c.presets).filter((k) => k.startsWith('induction-')).map((k) => k.slice('induction-'.length));
  const induction = c.presets[`induction-${ntask}`].settings;
  /** @type {(key: 'steps'|'lr') => Follows} */
  const perSetting = (key) => ({ name: 'ntask',
    defaults: Object.fromEntries(inductionSettings.map((n) => [n, c.presets[`induction-${n}`].settings[key]])) });
  const broken = c.presets.break.settings;  // Break it's runs: the core's preset
  return [
    LAYOUT.panel,
    // reshape and attention (random weights): the page sets the demo's defaults and text length
    { name: 'D', type: 'int', default: 8, min: 1, max: limits.maxDModel, help: 'embedding size d_model' },
    { name: 'H', type: 'int', default: 4, min: 1, max: limits.maxHeads, help: 'number of heads' },
    { name: 'order', type: 'enum', default: 'canonical', values: ['canonical', 'swapped'], help: 'how D is cut into heads' },
    { name: 'seed', type: 'int', default: 1, min: 0, max: limits.maxSeed, help: 'seed of the random weights' },
    { name: 'text', type: 'string', default: "The animal didn't cross the street because it was too tired .",
      maxLength: 2000, help: 'sentence for the attention heads' },
    // worked example: X (3,4) and the four (4,4) weights in (in,out) layout
    { name: 'wx', type: 'numbers', default: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0], count: 12, help: 'worked example X' },
    { name: 'wq', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_Q' },
    { name: 'wk', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_K' },
    { name: 'wv', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_V' },
    { name: 'wo', type: 'numbers', default: IDENTITY4, count: 16, help: 'worked example W_O' },
    // heads, compared: the core's default run, in the page's ranges
    { name: 'heads', type: 'ints', default: [1, 4, 8], min: 1, max: limits.maxHeads, minCount: 1,
      maxCount: PAGE.maxHeadCounts, help: 'head counts compared' },
    { name: 'cD', type: 'int', default: run.dModel, min: 8, max: 256, help: 'embedding size of the compared models' },
    { name: 'layers', type: 'int', default: run.nLayers, min: 1, max: 4, help: 'layers' },
    { name: 'context', type: 'int', default: run.context, min: 8, max: 128, help: 'context length T' },
    { name: 'batch', type: 'int', default: run.batch, min: 1, max: 64, help: 'batch size B' },
    { name: 'steps', type: 'int', default: run.steps, min: 1, max: PAGE.maxSteps, help: 'training steps' },
    lr('lr', run.lr, limits.maxLr, 'peak learning rate'),
    seed('cseed', 'seed of weights and batches'),
    { name: 'seeds', type: 'int', default: PAGE.seeds, min: 1, max: PAGE.maxSeeds,
      help: 'seeds per head count: cseed, cseed + 1, … for every H' },
    { name: 'corpus', type: 'enum', default: 'shipped', values: ['shipped', 'pasted'], help: 'training text' },
    // the comparison's task: the text, or another task of the core's with its own architecture (its preset)
    { name: 'ctask', type: 'enum', default: c.presets.heads.task, values: headsTasks(c).map((t) => t.name),
      help: 'task of the compared models' },
    { name: 'oheads', type: 'ints', default: [1, 4], min: 1, max: limits.maxHeads, minCount: 1,
      maxCount: PAGE.maxHeadCounts, help: 'head counts compared on the offsets task' },
    { name: 'oseeds', type: 'int', default: PAGE.offsetSeeds, min: 1, max: PAGE.maxSeeds,
      help: 'seeds per head count on the offsets task' },
    { name: 'ostop', type: 'enum', default: 'reach', values: ['reach', 'budget'],
      help: 'an offsets run ends at its first measurement at the threshold loss (reach) or after its whole budget' },
    // look inside
    { name: 'itext', type: 'string', default: 'And God said, Let there be light: and there was light.', maxLength: 200,
      help: 'sentence for the trained heads' },
    { name: 'irun', type: 'int', default: 4, min: 1, max: limits.maxHeads, help: 'heads of the run looked inside' },
    // break it: the variants trained beside the canonical model (the core's default model, the shipped corpus)
    { name: 'variants', type: 'words', default: ['no_transpose_split', 'no_transpose_merge', 'swapped_order'],
      values: c.variants.filter((v) => v !== 'canonical'), help: 'variants trained beside canonical' },
    { name: 'bsteps', type: 'int', default: broken.steps, min: 1, max: PAGE.maxSteps, help: 'training steps of each variant' },
    { name: 'bbatch', type: 'int', default: broken.batch, min: 1, max: 64, help: 'batch size of each variant' },
    lr('blr', broken.lr, limits.maxLr, 'peak learning rate of each variant'),
    seed('bseed', 'seed of weights and batches'),
    { name: 'bseeds', type: 'int', default: PAGE.breakSeeds, min: 1, max: PAGE.maxSeeds,
      help: 'seeds per variant: bseed, bseed + 1, … for canonical and every variant' },
    // induction heads: 2-layer attention-only model and a 1-layer control on the repeated-segment task
    { name: 'ntask', type: 'enum', default: ntask, values: inductionSettings, help: 'setting of the induction lab' },
    { name: 'nsteps', type: 'int', default: induction.steps, min: 1, max: PAGE.inductionMaxSteps,
      help: 'training steps of the induction lab', follows: perSetting('steps') },
    lr('nlr', induction.lr, PAGE.inductionMaxLr, 'learning rate (constant) of the induction lab', perSetting('lr')),
    seed('nseed', 'seed of the induction lab'),
    // parameters and KV cache (Llama-2-70B: panels/kv_presets.js): arithmetic only, nothing is built
    { name: 'kvL', type: 'int', default: 80, min: 1, max: 1000, help: 'layers' },
    { name: 'kvD', type: 'int', default: 8192, min: 1, max: 1048576, help: 'd_model' },
    { name: 'kvH', type: 'int', default: 64, min: 1, max: 4096, help: 'query heads' },
    { name: 'kvKv', type: 'int', default: 8, min: 1, max: 4096, help: 'KV heads' },
    { name: 'kvHs', type: 'int', default: 128, min: 1, max: 4096, help: 'head size' },
    { name: 'kvCtx', type: 'int', default: 4096, min: 1, max: 2097152, help: 'context' },
    { name: 'kvB', type: 'int', default: 8, min: 1, max: 4096, help: 'batch' },
    { name: 'kvBytes', type: 'int', default: 2, min: 1, max: 8, help: 'bytes per value' },
    { name: 'kvBias', type: 'enum', default: '0', values: ['0', '1'], help: 'biases in Q, K, V, O' },
    // embedding
    LAYOUT.hide,
    LAYOUT.embed,
    LAYOUT.downloads,
    LAYOUT.frame,
    LAYOUT.lesson,
  ];
}

/** @type {ReadonlyArray<Prop> | null} the settings, once completeProps has run */
let PROPS = null;
/** @type {Map<string, Prop>} */
let BY_NAME = new Map();

/**
 * Completes the settings table from the core's constants. The page calls it once, after loading the core and
 * before reading the URL; every function below except readLayout needs it.
 * @param {import('./engine.js').CoreConstants} constants engine.js constants()
 * @returns {ReadonlyArray<Prop>} the table (as props() returns it)
 */
export function completeProps(constants) {
  const table = makeProps(constants).map((p) => Object.freeze(p));
  // a page's choice that the core's constants have overtaken (a default outside its range) is a bug: say which
  for (const p of table) {
    const all = 'follows' in p && p.follows ? Object.values(p.follows.defaults) : [p.default];
    for (const d of all) {
      const raw = Array.isArray(d) ? d.join(',') : String(d);
      const parsed = parseValue(p, raw);
      if (parsed.ok === false) throw new Error(`state.js: the default of ${p.name} (${raw}) does not fit: it ${parsed.reason}`);
    }
  }
  PROPS = Object.freeze(table);
  BY_NAME = new Map(PROPS.map((p) => [p.name, p]));
  return PROPS;
}

/**
 * The settings, in the order they are written to the URL.
 * @returns {ReadonlyArray<Prop>}
 */
export function props() {
  if (!PROPS) throw new Error('state.js: completeProps() has not run (the core is not loaded yet)');
  return PROPS;
}

/**
 * One setting's entry of the table.
 * @param {string} name e.g. 'heads'
 * @returns {Prop}
 */
export function prop(name) {
  props();
  return BY_NAME.get(name);
}

/**
 * The default settings.
 * @returns {State}
 */
export function defaultState() {
  return defaultsOf(props());
}

/**
 * A setting's default where the others are as in state: its own, or the one of the choice it follows.
 * @param {Prop} p
 * @param {State} state
 * @returns {Value}
 */
export function defaultIn(p, state) {
  if (!('follows' in p) || !p.follows) return p.default;
  const choice = state[p.follows.name];
  return typeof choice === 'string' && Object.hasOwn(p.follows.defaults, choice) ? p.follows.defaults[choice] : p.default;
}

/**
 * @param {ReadonlyArray<Prop>} table the settings table, or LAYOUT's part of it (then only those settings are set)
 * @returns {State}
 */
function defaultsOf(table) {
  return /** @type {State} */ (Object.fromEntries(table.map((p) => [p.name, Array.isArray(p.default) ? [...p.default] : p.default])));
}

/**
 * Parses one raw string for a prop.
 * @param {Prop} prop
 * @param {string} raw
 * @returns {{ok: true, value: Value} | {ok: false, reason: string}}
 */
export function parseValue(prop, raw) {
  // reasons say what the value must be, in the user's terms ("must be a whole number from 1 to 64")
  if (prop.type === 'int') {
    const v = Number(raw);
    if (!/^\s*\d+\s*$/.test(raw) || v < prop.min || v > prop.max)
      return { ok: false, reason: `must be a whole number from ${prop.min} to ${prop.max}` };
    return { ok: true, value: v };
  }
  if (prop.type === 'number') {
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(v) || v < prop.min || v > prop.max)
      return { ok: false, reason: `must be a number from ${prop.min} to ${prop.max}` };
    return { ok: true, value: v };
  }
  if (prop.type === 'ints') {
    const parts = raw.split(',');
    const bad = parts.length < prop.minCount || parts.length > prop.maxCount
      || parts.some((p) => !/^\s*\d+\s*$/.test(p) || Number(p) < prop.min || Number(p) > prop.max);
    if (bad) {
      return { ok: false, reason: `must be ${prop.minCount === prop.maxCount ? prop.minCount : `${prop.minCount} to ${prop.maxCount}`} ` +
        `whole numbers from ${prop.min} to ${prop.max}, separated by commas` };
    }
    return { ok: true, value: parts.map(Number) };
  }
  if (prop.type === 'numbers') {
    const parts = raw.split(',');
    const vs = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
    if (parts.length !== prop.count || vs.some((v) => !Number.isFinite(v) || Math.abs(v) > 1e6))
      return { ok: false, reason: `must be ${prop.count} numbers from −1,000,000 to 1,000,000, separated by commas` };
    return { ok: true, value: vs };
  }
  if (prop.type === 'words') {
    const vs = raw.split(',').map((w) => w.trim()).filter(Boolean);
    const bad = vs.find((w) => !prop.values.includes(w));
    if (bad !== undefined) return { ok: false, reason: `must be one or more of ${prop.values.join(', ')}, separated by commas` };
    return { ok: true, value: vs };
  }
  if (prop.type === 'enum') {
    return prop.values.includes(raw) ? { ok: true, value: raw } : { ok: false, reason: `must be one of ${prop.values.join(', ')}` };
  }
  if (raw.length > prop.maxLength) return { ok: false, reason: `must be at most ${prop.maxLength} characters long` };
  return { ok: true, value: raw };
}

/**
 * The bounds of a numeric prop.
 * @param {string} name a setting with bounds (RangedProp)
 * @returns {{min: number, max: number}}
 */
export function propRange(name) {
  const { min, max } = /** @type {RangedProp} */ (prop(name));
  return { min, max };
}

/**
 * What is wrong with a value typed into a form for a setting, by that setting's range in PROPS (the one place the
 * ranges are written): whole numbers ('int') from min to max; other numbers (learning rates) above 0 and at most max.
 * @param {string} name the setting, e.g. 'bsteps': an int or a number
 * @param {number} value NaN for an empty field
 * @param {string} label how the sentence names the field, e.g. 'Steps'
 * @returns {string|null} a sentence, or null when the value is usable
 */
export function rangeError(name, value, label) {
  const p = /** @type {RangedProp} */ (prop(name));
  if (p.type === 'int') {
    return Number.isInteger(value) && value >= p.min && value <= p.max ? null : `${label} must be a whole number from ${p.min} to ${p.max}.`;
  }
  return Number.isFinite(value) && value > 0 && value <= p.max ? null : `${label} must be above 0 and at most ${p.max}.`;
}

/**
 * Reads settings from a URL's query and hash (the hash wins: the page writes its state there; the query is how
 * an embed says ?embed=1&panel=heads). Missing settings take their defaults; nonsense ones too, and are listed.
 * A default that follows another setting (defaultIn) is that of the choice read: ?ntask=long gives the long
 * setting's steps and rate.
 * @param {string} hash e.g. location.hash, with or without the leading '#'
 * @param {string} [search] e.g. location.search, with or without the leading '?'
 * @returns {{state: State, rejected: Rejected[]}}
 */
export function readHash(hash, search = '') {
  return read(props(), hash, search);
}

/**
 * The settings that lay the page out (panel, embed, hide, downloads, the frame's name), read before the core has
 * loaded so that an embedded panel shows without the page chrome from the start. Nonsense takes the defaults
 * silently: readHash reports it.
 * @param {string} hash
 * @param {string} [search]
 * @returns {{panel: string[], embed: string, hide: string[], downloads: string, frame: string, lesson: string[]}}
 */
export function readLayout(hash, search = '') {
  const { state } = read(Object.values(LAYOUT), hash, search);
  return { panel: state.panel, embed: state.embed, hide: state.hide, downloads: state.downloads, frame: state.frame,
    lesson: state.lesson };
}

/**
 * @param {ReadonlyArray<Prop>} table
 * @param {string} hash
 * @param {string} search
 * @returns {{state: State, rejected: Rejected[]}}
 */
function read(table, hash, search) {
  const byName = new Map(table.map((p) => [p.name, p]));
  const state = defaultsOf(table);
  const rejected = [];
  const given = new Set();
  const params = [...new URLSearchParams(search.replace(/^\?/, '')), ...new URLSearchParams(hash.replace(/^#/, ''))];
  for (const [name, value] of params) {
    const p = byName.get(name);
    if (!p) {
      rejected.push({ name, value, reason: 'not a setting of this page' });
      continue;
    }
    const parsed = parseValue(p, value);
    if (parsed.ok === true) {
      state[name] = parsed.value;
      given.add(name);
    } else {
      rejected.push({ name, value, reason: parsed.reason });
    }
  }
  for (const p of table) if ('follows' in p && p.follows && !given.has(p.name)) state[p.name] = defaultIn(p, state);
  return { state, rejected };
}

/**
 * Writes settings as a URL hash, in PROPS order, leaving out those at their defaults (defaultIn: short links). Values are
 * written as they are (the page may hold a D the core rejects, so that the link reproduces the message);
 * readHash() is the strict side.
 * @param {State} state
 * @returns {string} '#D=12&H=2&…' ('#' alone when everything is at its default)
 */
export function writeHash(state) {
  const params = new URLSearchParams();
  for (const p of props()) {
    const v = state[p.name];
    if (typeof v === 'number' && !Number.isFinite(v)) continue;  // an emptied number field: left out
    if (Array.isArray(v) && v.some((x) => typeof x === 'number' && !Number.isFinite(x))) continue;  // and a list
    const d = defaultIn(p, state);
    if (Array.isArray(v) && Array.isArray(d) ? v.join(',') === d.join(',') : v === d) continue;
    params.set(p.name, Array.isArray(v) ? v.join(',') : String(v));
  }
  return '#' + params.toString();
}
