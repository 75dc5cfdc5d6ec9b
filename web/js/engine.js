// The WebAssembly core behind the page: loads the module once and wraps its `_`-prefixed Embind functions
// in camelCase functions. Arguments are checked here only as far as Embind needs (a whole number that fits its
// 32-bit int, a string), so a bad value becomes { ok: false, error } with a sentence, never a TypeError from
// Embind. The core checks the limits (constants().limits) and D divisible by H, and words its own messages; we
// pass those through unchanged. No DOM in this file.
import createMha from '../mha.js';

/** @typedef {'canonical'|'swapped'} HeadOrder  a way of cutting D channels into heads */
/** @type {ReadonlyArray<HeadOrder>} The two ways: view(B,T,H,d_h) and view(B,T,d_h,H). */
export const ORDERS = Object.freeze(['canonical', 'swapped']);

/** @type {Promise<{simdArch: string}> | null} */
let loading = null;
/** @type {import('../mha.js').Mha | null} the Embind module once loaded */
let mod = null;

/**
 * Loads and instantiates the wasm module; later calls return the same promise.
 * @returns {Promise<{simdArch: string}>} resolves when the functions below are ready
 */
export function loadEngine() {
  if (!loading) {
    loading = createMha().then((m) => {
      mod = m;
      return { simdArch: m._simdArch() };
    });
  }
  return loading;
}

// ---------------------------------------------------------------- argument checks
// each returns null when the argument is fine, otherwise the sentence to show

/** @returns {{ok: false, error: string}} */
function fail(error) {
  return { ok: false, error };
}

function notLoaded() {
  return mod ? null : 'The WebAssembly module is not loaded yet.';
}

// Embind passes an int argument as a 32-bit integer: a larger whole number would arrive wrapped around
function checkInt(value, name) {
  if (typeof value !== 'number' || !Number.isInteger(value)) return `${name} must be a whole number.`;
  if ((value | 0) !== value) return `${name} = ${value} is far too large.`;
  return null;
}

// Embind passes a std::string argument only from a JS string; which names are orders is the core's to say
function checkOrder(order) {
  return typeof order === 'string' ? null : 'The head order must be given by its name.';
}

// ---------------------------------------------------------------- wrapped functions

/**
 * Which head each of the D channels of one position lands in, and where inside that head.
 * canonical view(B,T,H,d_h): head h gets channels h·d_h … h·d_h+d_h−1;
 * swapped view(B,T,d_h,H): head h gets channels h, h+H, h+2H, …
 * @param {number} D embedding size (d_model), a whole number
 * @param {number} H number of heads, a whole number that divides D
 * @param {HeadOrder} order
 * @returns {{ok: true, dModel: number, nHeads: number, headSize: number,
 *            head: Int32Array, lane: Int32Array}
 *         | {ok: false, error: string}}
 *   head (D): head of channel c; lane (D): index of channel c inside its head, 0..headSize-1
 */
export function headLayout(D, H, order) {
  const err = notLoaded() ?? checkInt(D, 'D') ?? checkInt(H, 'H') ?? checkOrder(order);
  if (err) return fail(err);
  return mod._headLayout(D, H, order);
}

/**
 * One causal attention layer with seeded random weights, run over the words of a sentence.
 * @param {string} text split into words and punctuation, at most constants().limits.demoMaxTokens tokens (the rest
 *   is dropped)
 * @param {number} D embedding size
 * @param {number} H number of heads
 * @param {number} seed whole number 0 … constants().limits.maxSeed
 * @param {HeadOrder} order
 * @returns {{ok: true, tokens: string[], nHeads: number, T: number, att: Float32Array}
 *         | {ok: false, error: string}}
 *   tokens (T); att (H,T,T) row-major: att[(h*T + t)*T + s] is how much query position t attends to
 *   key position s in head h; causal, so s > t is 0 and every row sums to 1
 */
export function attentionDemo(text, D, H, seed, order) {
  let err = notLoaded() ?? (typeof text === 'string' ? null : 'The text must be a string.');
  err = err ?? checkInt(D, 'D') ?? checkInt(H, 'H') ?? checkOrder(order);
  const maxSeed = mod ? constants().limits.maxSeed : 0;  // not loaded: err says so already
  if (!err && (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > maxSeed))
    err = `The seed must be a whole number from 0 to ${maxSeed}.`;
  if (err) return fail(err);
  return mod._attentionDemo(text, D, H, seed, order);
}

/**
 * Parameters of one attention layer: Q, K, V, O, each a (D,D) weight and a (D) bias.
 * @param {number} D embedding size
 * @returns {{ok: true, params: number} | {ok: false, error: string}} params = 4D² + 4D, whatever H is
 */
export function attentionParams(D) {
  const err = notLoaded() ?? checkInt(D, 'D');
  if (err) return fail(err);
  return mod._attentionParams(D);
}

/**
 * The SIMD flavour the core was compiled for, e.g. "wasm-simd128 (xsimd sse2)".
 * @returns {string} empty before the module has loaded
 */
export function simdArch() {
  return mod ? mod._simdArch() : '';
}

// ---------------------------------------------------------------- parameters, KV cache, worked example

/**
 * The per-tensor parameter table of a GPT of this config (PyTorch names and shapes).
 * @param {{vocab: number, dModel: number, nHeads: number, nLayers: number, context: number, mlp: boolean}} c
 * @returns {{ok: true, names: string[], shapes: string[], sizes: Float64Array, total: number}
 *         | {ok: false, error: string}} names, shapes ('64×64'), sizes: one per tensor, in the flat buffer's order
 */
export function parameterLedger(c) {
  const err = notLoaded() ?? checkInt(c.vocab, 'V') ?? checkInt(c.dModel, 'D') ?? checkInt(c.nHeads, 'H')
    ?? checkInt(c.nLayers, 'L') ?? checkInt(c.context, 'T');
  if (err) return fail(err);
  return mod._parameterLedger(c.vocab, c.dModel, c.nHeads, c.nLayers, c.context, !!c.mlp);
}

/**
 * @typedef {{q: number, k: number, v: number, o: number, bias: number, perLayer: number, allLayers: number,
 *            kvCacheBytes: number}} AttentionCount
 */

/**
 * Attention parameters and KV-cache bytes of a shape as MHA (H_kv = H), as given (GQA), and as MQA (H_kv = 1).
 * @param {{layers: number, dModel: number, nHeads: number, nKvHeads: number, headDim: number, bias: boolean,
 *          context: number, batch: number, bytesPerValue: number}} shape
 * @returns {{ok: true, mha: AttentionCount, gqa: AttentionCount, mqa: AttentionCount, gqaFraction: number,
 *            mqaFraction: number} | {ok: false, error: string}}
 */
export function kvArithmetic(shape) {
  const err = notLoaded();
  if (err) return fail(err);
  return mod._kvArithmetic(shape);
}

/**
 * @typedef {{T: number, D: number, H: number, x: number[], wq: number[], wk: number[], wv: number[], wo: number[]}}
 *   WorkedInput  x (T,D); the weights (D,D) each in (in,out) layout: Q = X W_Q
 */

/**
 * Every step of one multi-head attention layer on a tiny input (core/lab/worked_example.hpp).
 * @param {WorkedInput} input
 * @returns {{ok: true, T: number, D: number, H: number, hs: number, x: Float64Array, wqH: Float64Array,
 *            wkH: Float64Array, wvH: Float64Array, q: Float64Array, k: Float64Array, v: Float64Array,
 *            scores: Float64Array, scaled: Float64Array, masked: Float64Array, att: Float64Array,
 *            heads: Float64Array, concat: Float64Array, wo: Float64Array, out: Float64Array}
 *         | {ok: false, error: string}}
 *   wqH/wkH/wvH (H,D,hs); q/k/v/heads (H,T,hs); scores/scaled/masked/att (H,T,T) (masked has -Infinity above
 *   the diagonal); x/concat/out (T,D); wo (D,D)
 */
export function workedExample(input) {
  const err = notLoaded();
  if (err) return fail(err);
  return mod._workedExample(input);
}

// ---------------------------------------------------------------- the core's rules: constants, run settings

/**
 * @typedef {import('./run_settings_type.js').RunSettings} RunSettings  a run's settings as the core takes them
 *   (generated from the core's settings table); other keys (the worker's evalEvery, snapshotEvery, causality,
 *   swapCheck) are ignored
 * @typedef {{key: string, name: string, kind: 'whole'|'real'|'flag'|'name', flag: string, min?: number, max?: number,
 *            task: string, label: string, help: string, default: number|boolean|string}} SettingField  one row of the
 *   core's settings table: key is the RunSettings key; min and max for whole numbers only; task '' for every task
 * @typedef {{name: string, label: string, description: string, vocabulary: string, baseline: string, notes: string,
 *            preset: string, text: boolean, inductionProbes: boolean, fields: string[]}} TaskRow  one row of the
 *   core's task table: name is RunSettings.task; preset names its entry in presets; fields are its own settings' keys
 * @typedef {{task: string, description: string, settings: RunSettings, evalEvery: number, threshold: number}} Preset
 *   a run a panel starts from (evalEvery 0: the panel's own; threshold 0: none)
 * @typedef {{
 *   limits: {maxDModel: number, maxHeads: number, maxLayers: number, maxSeqLen: number, maxVocab: number,
 *            maxBatch: number, maxSteps: number, maxChunk: number, maxEvalBatches: number, maxLr: number,
 *            maxSeed: number, maxSampleChars: number, maxTextBytes: number, maxCheckpointBytes: number,
 *            valFraction: number, demoMaxTokens: number},
 *   thresholds: {induction: number, previous: number, first: number, broad: number},
 *   divergenceFactor: number,
 *   variants: string[],
 *   tasks: TaskRow[],
 *   presets: Record<string, Preset>,
 *   settingFields: SettingField[],
 *   inductionSettings: Record<string, {context: number, segMin: number, segMax: number, batch: number, steps: number,
 *                                      lr: number}>,
 *   induction: {warmup: number, vocab: number, probes: number},
 *   offsetsSetting: {offsets: string, symbols: number, nLayers: number, mlp: boolean, context: number, batch: number,
 *                    steps: number, warmup: number, lr: number, minLr: number, weightDecay: number, evalEvery: number,
 *                    threshold: number},
 *   endSample: {chars: number, temperature: number},
 *   evalBatches: number,
 *   pruningThreshold: number,
 *   defaults: RunSettings}} CoreConstants
 *   limits: what the core accepts (maxTextBytes: UTF-8 bytes of a training text, of which the last valFraction is
 *   held out; demoMaxTokens: the words attentionDemo reads); thresholds: the head labels' (an entropy ≥ broad × the
 *   uniform maximum is broad); divergenceFactor: a step whose loss is above it × ln V blew up; variants: the
 *   attention variants, 'canonical' first, in the core's (the lesson's) order; inductionSettings: the induction
 *   lab's settings of its task ('short', 'long') with the steps each needs; induction: that lab's schedule and task;
 *   offsetsSetting: the offsets task as the heads panel ships it (its model and schedule; D and H are the form's;
 *   its validation loss measured every evalEvery steps, and the loss whose first crossing compares the settings);
 *   defaults: a full run settings object; settingFields: the settings table, in the order of defaults' keys; tasks:
 *   the task table, in the page's order (its choice, labels and notes); presets: by name ('heads', 'break',
 *   'offsets', 'induction-short', 'induction-long'), each a whole run's settings; pruningThreshold: the rise of the
 *   validation loss, in nats, that head pruning asks about (core/lab/head_pruning.hpp kPruningThreshold)
 */

/**
 * The core's constants: its limits, lists, tables, thresholds and defaults, for the page to build its forms and
 * sentences from instead of copying them. Call after loadEngine().
 * @returns {CoreConstants}
 */
export function constants() {
  cachedConstants ??= mod._constants();  // fixed for the module's life: read through Embind once
  return cachedConstants;
}
let cachedConstants = null;

/**
 * A task's row of the core's task table (constants().tasks): its words, its preset, whether it trains on a text and
 * whether the induction lab's probes measure it. A name the table does not know gets the first row (the text).
 * @param {string} name
 * @returns {TaskRow}
 */
export function taskRow(name) {
  const { tasks } = constants();
  return tasks.find((t) => t.name === name) ?? tasks[0];
}

/**
 * What a .safetensors file is a model of: settings with the file's model (D, H, layers, T, MLP, variant) and the task
 * it was trained on (its metadata says: the text, offsets or induction) in place of those given, and the steps it
 * has trained (0 for weights alone). The file is read and checked whole (core/app/run_settings.hpp).
 * @param {Uint8Array} file
 * @param {Partial<RunSettings>} settings the panel's settings, whose schedule is kept
 * @returns {{ok: true, settings: RunSettings, step: number} | {ok: false, error: string}}
 */
export function checkpointSettings(file, settings) {
  const err = notLoaded() ?? (file instanceof Uint8Array ? null : 'The file must be bytes.');
  if (err) return fail(err);
  return mod._checkpointSettings(file, settings);
}

/**
 * The core's verdict on a run's settings without building the run (no text, no checkpoint): whole numbers,
 * ranges, D divisible by H (naming the nearest H that is), a segment that fits the context, …. Check a form with
 * it before starting workers.
 * @param {Partial<RunSettings>} settings
 * @returns {{ok: true} | {ok: false, error: string}}
 */
export function checkRun(settings) {
  const err = notLoaded() ?? (settings && typeof settings === 'object' ? null : 'The settings must be an object.');
  if (err) return fail(err);
  return mod._checkRun(settings);
}

/**
 * The first of the core's refusals among its verdicts on several runs (checkRun), or null when it accepts them all.
 * @param {Array<{ok: true} | {ok: false, error: string}>} verdicts
 * @returns {string|null}
 */
export function refusal(verdicts) {
  for (const v of verdicts) if (v.ok === false) return v.error;
  return null;
}

/**
 * The learning rate the core's schedule gives a step: linear warm-up from 0 over warmup steps, then a cosine to
 * minLr at steps (train/optimizer.hpp lr_at). Call after loadEngine().
 * @param {number} step counting from 0
 * @param {{steps: number, warmup: number, lr: number, minLr: number}} s a run's schedule (RunSettings)
 * @returns {number}
 */
export function lrAt(step, s) {
  return mod._lrAt(step, s.steps, s.warmup, s.lr, s.minLr);
}

// ---------------------------------------------------------------- the core's rules: comparisons over seeds

/**
 * @typedef {{seeds: number, mean: number, min: number, max: number, spread: number}} SeedSummary  one setting's
 *   values over its seeds; spread = (max − min) / 2, the "±"
 * @typedef {{mean: number, min: number, max: number, sd: number, low: number, high: number, spread: number,
 *   agree: number, outcome: 'effect' | 'equivalent' | 'undecided', seedsToDecide: number}} PairedDifference
 *   values[g][s] − values[reference][s] over the seeds s: their mean, range and standard deviation, the 95%
 *   t-interval of the mean [low, high] (±Infinity with one seed), the seeds agreeing with the mean's sign, the
 *   outcome, and for 'undecided' the seeds in all that would likely decide it (0: unknown or over 64); spread: the
 *   larger half-range of the two settings
 */

/**
 * Is a difference between settings real, or seed noise? The core's verdict on paired runs
 * (core/lab/seed_effects.hpp): seed s of every setting drew the same data order and initialisation, so setting g is
 * compared with the reference seed by seed, by a 95% t-interval on the paired differences: an effect, no effect
 * larger than the practical threshold (margin, in nats), or cannot tell yet. The page shows the verdicts as they are.
 * @param {string[]} labels (G) the settings' names, e.g. ['H = 1', 'H = 4', 'H = 8']
 * @param {number[][]} values (G,S) one number per setting and seed (e.g. the final validation loss), every row the
 *   same seeds in the same order, S ≥ 1
 * @param {number} reference index of the setting the others are compared with
 * @returns {{ok: true, settings: SeedSummary[], toReference: PairedDifference[], verdicts: string[], margin: number,
 *         rule: string} | {ok: false, error: string}} settings, toReference, verdicts: (G) each; the reference's
 *         verdict is ''; rule: the rule in one sentence
 */
export function compareOverSeeds(labels, values, reference) {
  let err = notLoaded() ?? checkInt(reference, 'The reference');
  if (!err && !(Array.isArray(labels) && labels.every((l) => typeof l === 'string'))) err = 'The labels must be strings.';
  if (!err && !(Array.isArray(values) && values.every(Array.isArray))) err = 'The values must be one list per setting.';
  if (err) return fail(err);
  return mod._compareOverSeeds(labels, values, reference);
}

/**
 * compareOverSeeds for "Break it": the variants against canonical (the reference, wherever it is in the list), with
 * each variant's verdict also phrased against what the lesson predicts for it (core/lab/variant_lessons.hpp).
 * @param {string[]} variants (G) the core's variant names, 'canonical' among them
 * @param {number[][]} values (G,S) the final validation loss per variant and seed, paired
 * @param {number} steps the budget the runs trained for (named in the verdicts)
 * @returns {{ok: true, settings: SeedSummary[], toReference: PairedDifference[], verdicts: string[], margin: number,
 *         rule: string, lessons: string[]} | {ok: false, error: string}} as compareOverSeeds, plus lessons (G): ''
 *         for canonical
 */
export function compareVariants(variants, values, steps) {
  let err = notLoaded() ?? checkInt(steps, 'The number of steps');
  if (!err && !(Array.isArray(variants) && variants.every((l) => typeof l === 'string'))) err = 'The variants must be names.';
  if (!err && !(Array.isArray(values) && values.every(Array.isArray))) err = 'The values must be one list per variant.';
  if (err) return fail(err);
  return mod._compareVariants(variants, values, steps);
}

/**
 * How soon does each setting learn? Per run the first evaluation step at which its validation loss is at or below
 * threshold, and per setting the median and range over its seeds, with a sentence (core/lab/reach.hpp).
 * @param {string[]} labels (G) the settings' names
 * @param {number[][]} steps (G*S) each run's evaluation steps, setting-major (row g*S + s: setting g, seed s)
 * @param {number[][]} losses (G*S) each run's validation losses at those steps
 * @param {number} seeds S
 * @param {number} threshold nats
 * @param {number} budget the steps every run trained for
 * @returns {{ok: true, threshold: number, budget: number, sentences: string[], settings: Array<{first: number[],
 *   reached: number, median: number, min: number, max: number, lowest: number}>} | {ok: false, error: string}}
 *   first (S): the step, or −1 where the seed never got there; median −1 when it is such a seed
 */
export function reachOverSeeds(labels, steps, losses, seeds, threshold, budget) {
  let err = notLoaded() ?? checkInt(seeds, 'The number of seeds') ?? checkInt(budget, 'The number of steps');
  if (!err && !(Array.isArray(labels) && labels.every((l) => typeof l === 'string'))) err = 'The labels must be strings.';
  if (!err && !(Array.isArray(steps) && steps.every(Array.isArray) && Array.isArray(losses) && losses.every(Array.isArray))) {
    err = 'The curves must be one list per run.';
  }
  if (!err && !Number.isFinite(threshold)) err = 'The threshold must be a number.';
  if (err) return fail(err);
  return mod._reachOverSeeds(labels, steps, losses, seeds, threshold, budget);
}

/**
 * @typedef {{mean: number, sd: number, low: number, high: number}} PruningRise  the rise of the validation loss with k
 *   heads off, loss(k) − loss(0), over the seeds: its mean, standard deviation and 95% t-interval [low, high]
 *   (±Infinity with one seed; exactly 0 at k = 0)
 * @typedef {'removable' | 'rises' | 'cannot-tell'} PruningOutcome  what decides the answer at k = removable + 1:
 *   every head can go ('removable'), one more surely raises the loss past the threshold ('rises'), or its interval
 *   reaches both sides of the threshold ('cannot-tell'; always so with one seed)
 * @typedef {{ok: true, L: number, H: number, seeds: number, threshold: number, meanLoss: number[], rise: PruningRise[],
 *   removable: number, risesAt: number, outcome: PruningOutcome, sentence: string}} PruningVerdict
 *   meanLoss, rise: (L·H + 1) per number of heads off k = 0 … L·H; removable: the largest k whose rise, and every
 *   smaller k's, is surely below the threshold; risesAt: the first k whose rise is surely above it (−1: none);
 *   sentence: the answer in words
 */

/**
 * How many heads can be switched off, least important first, before the validation loss rises by more than the
 * threshold? The core's answer over paired seeds (core/lab/head_pruning.hpp pruning_over_seeds): each seed pruned its
 * own model in its own order (Run.pruneHeads), and the rise loss(k) − loss(0) is judged per k by a 95% t-interval.
 * @param {number} L layers
 * @param {number} H heads per layer
 * @param {number[][]} losses (S, L·H + 1) each seed's pruning curve (pruneHeads().loss), S ≥ 1
 * @param {number} threshold nats, > 0 (constants().pruningThreshold)
 * @returns {PruningVerdict | {ok: false, error: string}}
 */
export function pruningOverSeeds(L, H, losses, threshold) {
  let err = notLoaded() ?? checkInt(L, 'The number of layers') ?? checkInt(H, 'The number of heads');
  if (!err && !(Array.isArray(losses) && losses.length > 0 && losses.every((c) => Array.isArray(c) || ArrayBuffer.isView(c)))) {
    err = 'The pruning curves must be one list of losses per seed.';
  }
  if (!err && !Number.isFinite(threshold)) err = 'The threshold must be a number.';
  if (err) return fail(err);
  // typed arrays (as a worker sends them) become plain lists: the binding reads arrays
  return mod._pruningOverSeeds(L, H, losses.map((c) => Array.from(c)), threshold);
}

/**
 * @typedef {{step: number[], score: number[], lossFirst: number[], lossRepeat: number[]}} PhaseSeries
 *   one run's induction measurements (n each): the evaluation steps (increasing), the best last-layer induction score,
 *   the loss on the first copy and on the repeated copy, nats
 * @typedef {{ok: true, threshold: number, evalEvery: number, lastStep: number, crossStep: number, dropStep: number,
 *   lag: number, happened: boolean, dropFraction: number, sentence: string}} PhaseChange
 *   crossStep: the first step with the score at or above threshold; dropStep: the first step from which the repeat's
 *   loss stays at or below dropFraction × the first copy's; −1: never; lag: dropStep − crossStep (0 unless happened)
 */

/**
 * The induction phase change of one run (core/lab/phase_change.hpp): when the induction score crossed the threshold,
 * when the repeat's loss dropped, the lag, and the sentence that says it.
 * @param {PhaseSeries} series
 * @param {number} threshold the induction score that counts as a head (constants().thresholds.induction)
 * @param {number} evalEvery steps between the measurements: the lag's resolution
 * @returns {PhaseChange | {ok: false, error: string}}
 */
export function phaseChange(series, threshold, evalEvery) {
  let err = notLoaded() ?? checkInt(evalEvery, 'The evaluation interval');
  const keys = ['step', 'score', 'lossFirst', 'lossRepeat'];
  if (!err && !(series && keys.every((k) => Array.isArray(series[k])))) err = 'The series must be four lists of numbers.';
  if (!err && !keys.every((k) => series[k].every((v) => typeof v === 'number'))) err = 'The series must hold numbers only.';
  if (!err && !Number.isFinite(threshold)) err = 'The threshold must be a number.';
  if (err) return fail(err);
  return mod._phaseChange(series, threshold, evalEvery);
}
