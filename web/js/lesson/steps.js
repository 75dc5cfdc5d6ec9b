// The lesson's steps, as data: per step the panel it runs in and the settings it fixes, one question, the prediction
// the student commits to (a choice or a whole number), how the answer is read from the core's results on the
// student's own runs (the panels' findings, findings.js, or a core computation on the student's inputs), the
// explanation and the concept. No DOM: lesson_view.js lays a step out, judge.js compares a prediction with what was
// read here, and tests/browser/lesson_steps.test.mjs checks every reading against hand-made core results.
//
// A reading is {ready: false, waiting} until the runs have said something, then {ready: true, answer, evidence}:
// answer is one of the step's choice values (or a number), or null when the core's rule cannot tell yet, with
// `more` naming the setting whose seeds would decide it and how many the core says would likely do.

import { reachSteps } from '../seed_table.js';
import { textModel } from '../text_model.js';
import { signedCount } from '../views/seed_words.js';

/**
 * @typedef {{value: string, label: string}} Choice
 * @typedef {{kind: 'choice', choices: Choice[]} | {kind: 'number', min: number, max: number, tolerance: number,
 *            unit: string}} Prediction
 * @typedef {{ready: false, waiting: string}
 *   | {ready: true, answer: string|number|null, evidence: string, more?: {setting: string, seeds: number},
 *      range?: [number, number]}} Reading  range: a number not decided yet, narrowed to lo … hi
 * @typedef {{headLayout: Function, workedExample: Function, parameterLedger: Function, compareOverSeeds: Function,
 *            constants: Function}} Core  the engine.js functions a reading may call
 * @typedef {{state: object, finding: (kind: string) => any, vocab: () => number, core: Core}} Context
 *   vocab: V of the text the heads panel trains on (the shipped corpus's until a run of a text says)
 * @typedef {{id: string, title: string, panel: string[], settings: (ctx: Context) => object,
 *            question: (ctx: Context) => string, prediction: (ctx: Context) => Prediction,
 *            read: (ctx: Context) => Reading, explanation: string, concept: string, charts: string[],
 *            run: string}} Step
 *   charts: ids of the chart containers whose pictures the report keeps; run: what the student does
 */

/**
 * A paired difference of the core (seed_effects.hpp) as one of three answers: the setting's loss is higher, the
 * same within δ, or lower than the reference's; null while the rule cannot tell.
 * @param {{outcome: string, mean: number}} d
 * @returns {'higher'|'same'|'lower'|null}
 */
export function threeWay(d) {
  if (d.outcome === 'effect') return d.mean > 0 ? 'higher' : 'lower';
  if (d.outcome === 'equivalent') return 'same';
  return null;
}

/** "+0.013 nats (95% interval +0.002 to +0.024, 12 seeds)" @param {{mean: number, low: number, high: number}} d @param {number} n */
function interval(d, n) {
  const f = (v) => `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(3)}`;
  return n > 1 ? `${f(d.mean)} nats (95% t-interval ${f(d.low)} to ${f(d.high)}, ${n} paired seeds)` : `${f(d.mean)} nats (one seed)`;
}

/** "√D = √64 = 8", or "√D = √48 ≈ 6.93" where the root is not whole @param {string} name @param {number} n */
function root(name, n) {
  const r = Math.sqrt(n);
  return Number.isInteger(r) ? `√${name} = √${n} = ${r}` : `√${name} = √${n} ≈ ${r.toFixed(2)}`;
}

/** a reading from a paired difference: its answer, its evidence, and more seeds where it cannot tell */
function pairedReading(d, n, what, seedsSetting) {
  const answer = threeWay(d);
  const rule = d.outcome === 'effect' ? 'an effect: the interval excludes 0'
    : d.outcome === 'equivalent' ? 'no difference larger than 0.02 nats: the interval lies within ±0.02'
      : 'cannot tell yet: the interval neither excludes 0 nor lies within ±0.02';
  /** @type {Reading} */
  const r = { ready: true, answer, evidence: `${what}: ${interval(d, n)}, judged by the core as ${rule}.` };
  if (answer === null) r.more = { setting: seedsSetting, seeds: d.seedsToDecide > n ? d.seedsToDecide : Math.min(16, n * 2) };
  return r;
}

const SAME_LOWER_HIGHER = (subject, reference) => /** @type {Prediction} */ ({ kind: 'choice', choices: [
  { value: 'lower', label: `${subject}'s loss is lower than ${reference}'s` },
  { value: 'same', label: `no difference larger than 0.02 nats` },
  { value: 'higher', label: `${subject}'s loss is higher than ${reference}'s` },
] });

const channelsOf = (layout, head) => [...layout.head].flatMap((h, c) => (h === head ? [c] : []));

/** @type {Step[]} */
export const STEPS = [
  {
    id: 'reshape', title: 'Reshape: channels into heads', panel: ['reshape'],
    run: 'Look at the two reshapes below: the core lays out D = 8 channels into H = 4 heads both ways.',
    settings: () => ({ D: 8, H: 4 }),
    question: () => 'PyTorch splits D = 8 channels into H = 4 heads with view(B,T,H,d_h).transpose(1,2): head 1 gets ' +
      'channels 2 and 3. Which channels does head 1 get if the code says view(B,T,d_h,H) instead?',
    prediction: () => ({ kind: 'choice', choices: [
      { value: '2,3', label: 'channels 2 and 3, the same' },
      { value: '1,5', label: 'channels 1 and 5' },
      { value: '4,5', label: 'channels 4 and 5' },
    ] }),
    read: ({ core }) => {
      const layout = core.headLayout(8, 4, 'swapped');
      if (!layout.ok) return { ready: false, waiting: layout.error };
      const channels = channelsOf(layout, 1);
      return { ready: true, answer: channels.join(','),
        evidence: `The core's layout of view(B,T,d_h,H): head 1 holds channels ${channels.join(' and ')} (a stride of H = 4).` };
    },
    explanation: 'view(B,T,d_h,H) reads the D channels as d_h groups of H, so head h gets every H-th channel: h, h + H, … ' +
      'The shapes are the same, nothing fails, and the model still trains: the bug is silent. The transpose that follows must ' +
      'match the view, or the heads mix channels of different positions (the “Break it” step breaks that on purpose).',
    concept: 'A head is a contiguous slice of d_h = D/H channels: view(B,T,H,d_h) then transpose(1,2).',
    charts: [],
  },
  {
    id: 'worked', title: 'Worked example: T = 3, D = 4, H = 2', panel: ['worked'],
    run: 'The worked example below computes every step of the layer on your numbers; change X or the weights if you like.',
    settings: () => ({}),
    question: () => 'In the worked example, which token does the last token (token 2) attend to most in head 0?',
    prediction: () => ({ kind: 'choice', choices: [
      { value: '0', label: 'token 0' }, { value: '1', label: 'token 1' }, { value: '2', label: 'token 2, itself' },
      { value: 'equal', label: 'all three equally' },
    ] }),
    read: ({ state, core }) => {
      const r = core.workedExample({ T: 3, D: 4, H: 2, x: state.wx, wq: state.wq, wk: state.wk, wv: state.wv, wo: state.wo });
      if (!r.ok) return { ready: false, waiting: r.error };
      const row = [0, 1, 2].map((s) => r.att[(0 * 3 + 2) * 3 + s]);  // att (H,T,T): head 0, query 2
      const top = Math.max(...row);
      const answer = row.every((w) => Math.abs(w - top) < 1e-9) ? 'equal' : String(row.indexOf(top));
      return { ready: true, answer,
        evidence: `The core's attention weights of token 2 in head 0: ${row.map((w) => w.toFixed(3)).join(', ')} on tokens 0, 1, 2.` };
    },
    explanation: 'Head 0 sees only channels 0 and 1 of Q and K. Its score for a pair is the dot product of those two ' +
      'channels, divided by √d_h = √2, and the softmax of a row turns the largest score into the largest weight. The causal ' +
      'mask keeps token 2 from anything later, but it may attend to itself.',
    concept: 'Each head computes its own softmax(QKᵀ/√d_h) on its own channels.',
    charts: [],
  },
  {
    id: 'scale', title: 'Scale by √d_h, not √D', panel: ['break'],
    run: 'Press “Train” in Break it below: canonical and scale_sqrt_d train on the same seeds.',
    settings: () => ({ variants: ['scale_sqrt_d'] }),
    // the model Break it trains: the core's preset (its D and H are not the form's)
    question: ({ state, core }) => {
      const { dModel: D, nHeads: H } = core.constants().presets.break.settings;
      return `Divide the scores by ${root('D', D)} instead of ${root('d_h', D / H)} (H = ${H}). After ${state.bsteps} ` +
        'steps, how does the validation loss compare with the canonical layer\'s?';
    },
    prediction: () => SAME_LOWER_HIGHER('√D', 'canonical'),
    read: ({ finding }) => variantReading(finding('break'), 'scale_sqrt_d'),
    explanation: 'Dividing by √D instead of √d_h shrinks every score by a further √H (2 at H = 4): the softmax starts ' +
      'flatter, so each head attends more broadly and learns to focus more slowly. The model is the same size and can ' +
      'learn to undo the factor through W_Q and W_K; how much the loss lags depends on the budget (docs/experiments.md, ' +
      '"Break it").',
    concept: 'The scale keeps the scores of a d_h-dimensional dot product at unit variance: √d_h, the size of one head.',
    charts: ['b-charts'],
  },
  {
    id: 'heads', title: 'H = 1, 4, 8 on the text', panel: ['heads'],
    run: 'Press “Train” in Heads, compared below: H = 1, 4 and 8 train on the same seeds at the same budget.',
    settings: () => ({ ctask: 'char', heads: [1, 4, 8] }),
    question: ({ state }) => `Tiny character models with D = ${state.cD}, trained for ${state.steps} steps on the same text and ` +
      'seeds. Is H = 4\'s final validation loss lower than, the same as, or higher than H = 1\'s?',
    prediction: () => SAME_LOWER_HIGHER('H = 4', 'H = 1'),
    read: ({ finding }) => headsReading(finding('heads'), 'char', 4, 1, 'seeds'),
    explanation: 'At a fixed D the heads only split the same channels: parameters and FLOPs are equal. Several heads can ' +
      'attend to several places at once, but each looks through fewer channels (d_h = D/H: 16 at D = 64 and H = 4). On ' +
      'this text at this budget the difference is small next to how much seeds differ, which is why the lab pairs seeds ' +
      'and lets the core judge.',
    concept: 'Heads trade the width of each look for the number of looks, at a fixed cost.',
    charts: ['c-chart', 'c-diff'],
  },
  {
    id: 'inside', title: 'Looking inside: pruning heads', panel: ['heads', 'inside'],
    run: 'Press “Train” in Heads, compared below (H = 8 on the text: the H = 8 runs that the heads step trained at these ' +
      'settings are kept, not trained again), then “Prune the heads” in Look inside: the core switches the heads of ' +
      'every seed\'s model off one by one, least important first.',
    settings: () => ({ ctask: 'char', heads: [8], irun: 8 }),
    // the heads panel's model as set (a course link may set its layers)
    question: ({ state }) => `A model with ${state.layers} layers of 8 heads (${8 * state.layers} heads). Switching ` +
      'heads off one at a time, least important first, how many can go before the validation loss rises by 0.1 nats?',
    prediction: ({ state }) => ({ kind: 'number', min: 0, max: 8 * state.layers, tolerance: 1, unit: 'heads' }),
    read: ({ finding }) => pruningReading(finding('pruning')),
    explanation: 'Trained heads are not equally useful: a few carry most of the loss, and many can be removed at test time ' +
      'with little harm (Michel, Levy and Neubig 2019 found the same in large translation models and BERT). Which heads ' +
      'matter, and how many, differs from seed to seed.',
    concept: 'Heads specialise unevenly: importance is measured, not assumed.',
    charts: ['i-prune-chart'],
  },
  {
    id: 'offsets', title: 'The offsets task', panel: ['heads'],
    run: 'Press “Train” in Heads, compared below: H = 1 and H = 4 learn the offsets task on the same seeds.',
    settings: () => ({ ctask: 'offsets', oheads: [1, 4] }),
    question: () => 'A task whose every target is the tuple of the tokens 1, 3, 5 and 7 positions back: nothing to ' +
      'guess, only four places to read. Which model\'s validation loss reaches the task\'s threshold first?',
    prediction: () => ({ kind: 'choice', choices: [
      { value: 'H4', label: 'H = 4' }, { value: 'same', label: 'both at about the same step' }, { value: 'H1', label: 'H = 1' },
    ] }),
    read: ({ finding, core }) => offsetsReading(finding('heads'), core),
    explanation: 'One head has one softmax per position: to read four offsets at once it must mix them, and it can tell ' +
      'the tuples apart only by weighing the offsets unequally, which it learns slowly. Several heads split the offsets ' +
      'between them. The one-head model gets there too, only much later: a question about how soon, not the final loss.',
    concept: 'Several heads attend to several places at once; one head must average them.',
    charts: ['c-chart'],
  },
  {
    id: 'break', title: 'Break it: the transpose before the merge', panel: ['break'],
    run: 'Press “Train” in Break it below: canonical and the broken variants train on the same seeds.',
    settings: () => ({ variants: ['no_transpose_split', 'no_transpose_merge', 'swapped_order'] }),
    question: ({ state }) => 'Merge the heads back with y.view(B,T,D) but without the transpose(1,2) before it ' +
      `(no_transpose_merge). After ${state.bsteps} steps, how does its validation loss compare with the canonical layer's?`,
    prediction: () => SAME_LOWER_HIGHER('no_transpose_merge', 'canonical'),
    read: ({ finding }) => variantReading(finding('break'), 'no_transpose_merge'),
    explanation: 'Without the transpose, view(B,T,D) reads the (B,H,T,d_h) tensor in the wrong order: the output at ' +
      'position t is made of head outputs from other positions, later ones included. The model reads the future, so its ' +
      'validation loss falls below what a causal model can reach — the causality check beside each run flags it.',
    concept: 'A lower loss is not always better: a leak of the future looks like learning.',
    charts: ['b-charts'],
  },
  {
    id: 'induction', title: 'Induction heads', panel: ['induction'],
    run: 'Press “Train” in Induction heads below: a 2-layer attention-only model and a 1-layer control.',
    settings: () => ({}),
    question: () => 'On sequences where a random segment repeats, which model grows an induction head (a last-layer head ' +
      'whose induction score reaches the threshold) by the end of training?',
    prediction: () => ({ kind: 'choice', choices: [
      { value: 'two', label: 'only the 2-layer model' }, { value: 'one', label: 'only the 1-layer control' },
      { value: 'both', label: 'both' }, { value: 'neither', label: 'neither' },
    ] }),
    read: ({ finding }) => inductionReading(finding('induction'), finding('phase')),
    explanation: 'An induction head finds the earlier copy of the current token and attends to the token after it. That ' +
      'needs the previous token\'s identity in each position, which a layer-0 head writes there: two layers composed. One ' +
      'layer of attention cannot do both, so the control does not form one (Olsson et al. 2022). When the head forms, ' +
      'the loss on the repeated copy falls with it: the phase change, on one chart in the panel.',
    concept: 'Heads in different layers compose: a previous-token head feeds an induction head.',
    charts: ['n-loss', 'n-ind'],
  },
  {
    id: 'params', title: 'Parameters and the KV cache', panel: ['params'],
    run: 'The ledger below counts every tensor of the model; the core counts both settings for the judgement.',
    // the ledger's columns are the question's two head counts (the step before leaves H = 8 alone)
    settings: () => ({ heads: [1, 8] }),
    question: ({ state }) => `The heads comparison's model (D = ${state.cD}): does it have more, the same or fewer ` +
      'parameters at H = 8 than at H = 1?',
    prediction: () => ({ kind: 'choice', choices: [
      { value: 'more', label: 'more at H = 8' }, { value: 'same', label: 'the same' }, { value: 'fewer', label: 'fewer at H = 8' },
    ] }),
    read: ({ core, state, vocab }) => {
      // the heads panel's model as set, on the text's vocabulary: what its runs build and the ledger below counts
      // (text_model.js)
      const count = (H) => core.parameterLedger(textModel(state, vocab(), H));
      const one = count(1), eight = count(8);
      if (!one.ok) return { ready: false, waiting: one.error };
      if (!eight.ok) return { ready: false, waiting: eight.error };
      const answer = eight.total > one.total ? 'more' : eight.total < one.total ? 'fewer' : 'same';
      return { ready: true, answer, evidence: `The core's ledger: ${one.total.toLocaleString('en-US')} parameters at H = 1, ` +
        `${eight.total.toLocaleString('en-US')} at H = 8.` };
    },
    explanation: 'Q, K, V and O are each one (D, D) projection whatever H is: H only decides how the D output channels are ' +
      'cut into heads (4D² + 4D per attention layer). What H does change is the KV cache when fewer K/V heads are shared ' +
      '(GQA, MQA): the arithmetic is in the panel.',
    concept: 'Multi-head attention costs the same parameters as one head of size D.',
    charts: [],
  },
];

/** The step ids, in lesson order. */
export const STEP_IDS = Object.freeze(STEPS.map((s) => s.id));

/**
 * The steps a lesson URL asks for: lesson=1 (every step) or lesson=reshape,heads,offsets (those, in lesson order).
 * @param {string[]} wanted the URL's words
 * @returns {Step[]}
 */
export function chosenSteps(wanted) {
  if (wanted.includes('1')) return STEPS;
  return STEPS.filter((s) => wanted.includes(s.id));
}

// ---------------------------------------------------------------- readings of the panels' findings

/**
 * Break it's finding: one variant against canonical.
 * @param {any} f {variants, steps, seeds, toReference, complete, training}
 * @param {string} variant
 * @returns {Reading}
 */
export function variantReading(f, variant) {
  const g = f?.variants?.indexOf(variant) ?? -1;
  if (!f || g < 0) return { ready: false, waiting: `Train ${variant} beside canonical in Break it.` };
  if (!f.complete) return { ready: false, waiting: 'Waiting for canonical and the variant to finish the same seed.' };
  return pairedReading(f.toReference[g], f.complete, `${variant} − canonical, final validation loss`, 'bseeds');
}

/**
 * The heads panel's finding on a task: setting `heads` against `reference`.
 * @param {any} f {task, heads, complete, toReference, ...}
 * @returns {Reading}
 */
export function headsReading(f, task, heads, reference, seedsSetting) {
  const g = f?.heads?.indexOf(heads) ?? -1, r = f?.heads?.indexOf(reference) ?? -1;
  if (!f || f.task !== task || g < 0 || r !== 0) return { ready: false, waiting: `Train H = ${reference} and H = ${heads} in Heads, compared.` };
  if (!f.complete) return { ready: false, waiting: 'Waiting for every H to finish the same seed.' };
  return pairedReading(f.toReference[g], f.complete, `H = ${heads} − H = ${reference}, final validation loss`, seedsSetting);
}

/**
 * The offsets task: the step at which each seed's loss first reached the threshold, H = 4 against H = 1, paired by
 * seed and judged by the core's rule (a seed that never got there counts as the budget: it reached it no sooner).
 * @param {any} f the heads finding with reach: {task: 'offsets', heads, reach: {settings: [{first: number[]}],
 *   threshold, budget}}
 * @param {Core} core
 * @returns {Reading}
 */
export function offsetsReading(f, core) {
  const g1 = f?.heads?.indexOf(1) ?? -1, g4 = f?.heads?.indexOf(4) ?? -1;
  if (!f || f.task !== 'offsets' || g1 < 0 || g4 < 0) return { ready: false, waiting: 'Train H = 1 and H = 4 on the offsets task in Heads, compared.' };
  if (!f.complete || !f.reach) return { ready: false, waiting: 'Waiting for H = 1 and H = 4 to finish the same seed.' };
  const { budget, threshold } = f.reach;
  const all = reachSteps(f.reach);
  const steps = [all[g1], all[g4]];
  const c = core.compareOverSeeds(['H = 1', 'H = 4'], steps, 0);
  if (!c.ok) return { ready: false, waiting: c.error };
  const d = c.toReference[1];
  const n = steps[0].length;
  const answer = d.outcome === 'effect' ? (d.mean < 0 ? 'H4' : 'H1') : d.outcome === 'equivalent' ? 'same' : null;
  /** @type {Reading} */
  const reading = { ready: true, answer, evidence: `The first step at ${threshold.toFixed(3)} nats, H = 4 − H = 1: ` +
    `${signedCount(d.mean)} steps` + (n > 1 ? ` (95% t-interval ${signedCount(d.low)} to ${signedCount(d.high)}, ${n} paired seeds)` : ' (one seed)') +
    `; each seed, H = 1: ${steps[0].join(', ')}; H = 4: ${steps[1].join(', ')}` +
    (steps.flat().includes(budget) ? ` (${budget.toLocaleString('en-US')}: not reached within the budget)` : '') + '.' };
  if (answer === null) reading.more = { setting: 'oseeds', seeds: d.seedsToDecide > n ? d.seedsToDecide : Math.min(16, n * 2) };
  return reading;
}

/**
 * Look inside's pruning finding: how many heads can go before the loss rises by the threshold, over seeds.
 * @param {any} f {H, task, removable, outcome: 'removable'|'rises'|'cannot-tell', seeds, threshold, sentence}
 * @returns {Reading}
 */
export function pruningReading(f) {
  // the question is about the heads comparison's H = 8 model: a pruning of another run (an offsets model, H = 4) waits
  if (!f || f.H !== 8 || f.task !== 'char') return { ready: false, waiting: 'Train H = 8 on the text, then press “Prune the heads” in Look inside.' };
  /** @type {Reading} */
  const r = { ready: true, answer: f.outcome === 'cannot-tell' ? null : f.removable,
    evidence: f.sentence ?? `${f.removable} heads could go before the loss rose by ${f.threshold} nats (${f.seeds} seeds).` };
  if (r.answer === null) {
    // at least `removable` can go; at most the heads before the first that surely raises the loss (or all of them)
    r.range = [f.removable, f.risesAt > 0 ? f.risesAt - 1 : f.L * f.H];
    r.more = { setting: 'seeds', seeds: Math.min(16, Math.max(2, f.seeds * 2)) };
  }
  return r;
}

/**
 * The induction panel's finding once both runs have finished: which crossed the induction threshold; the phase
 * change of the 2-layer run (the core's sentence: when the score crossed, when the repeat's loss dropped) joins the
 * evidence when there is one.
 * @param {any} f {done, threshold, model: {crossed, best}, control: {crossed, best}}
 * @param {any} [phase] the phase finding {done, sentence}
 * @returns {Reading}
 */
export function inductionReading(f, phase = null) {
  if (!f) return { ready: false, waiting: 'Train both models in Induction heads.' };
  if (!f.done) return { ready: false, waiting: 'Waiting for both models to finish training.' };
  const { model: m, control: c } = f;
  const answer = m.crossed && c.crossed ? 'both' : m.crossed ? 'two' : c.crossed ? 'one' : 'neither';
  const said = (x, name) => `${name}: best last-layer induction score ${x.best.toFixed(2)}` +
    (x.crossed ? `, first at the threshold at step ${x.crossedStep}` : ', never at the threshold');
  return { ready: true, answer, evidence: `Measured by the core against the threshold ${f.threshold}: ` +
    `${said(m, 'the 2-layer model')}; ${said(c, 'the 1-layer control')}.${phase?.done && phase.sentence ? ` ${phase.sentence}` : ''}` };
}
