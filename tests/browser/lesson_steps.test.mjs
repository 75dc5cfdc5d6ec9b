// The lesson's readings, judgements and report on their own, in node: every reading of a panel's finding against
// hand-made core results (the outcomes named in core/lab/seed_effects.hpp), the judgement of a prediction, the
// URL's choice of steps, and the report's round trip (and what a damaged or foreign file gets).
//   node --test --test-reporter=spec tests/browser/lesson_steps.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge } from '../../web/js/lesson/judge.js';
import { readLessonFile, reportHtml, FORMAT, VERSION } from '../../web/js/lesson/report.js';
import { chosenSteps, headsReading, inductionReading, offsetsReading, pruningReading, STEP_IDS, STEPS, threeWay,
  variantReading } from '../../web/js/lesson/steps.js';

// a paired difference as the core gives one
const diff = (outcome, mean, low, high, seedsToDecide = 0) => ({ outcome, mean, low, high, seedsToDecide });
const step = (id) => STEPS.find((s) => s.id === id);

test('the steps: the issue\'s order, every id unique, lesson=1 is all of them, a list picks some in lesson order', () => {
  assert.deepEqual(STEP_IDS, ['reshape', 'worked', 'scale', 'heads', 'inside', 'offsets', 'break', 'induction', 'params']);
  assert.equal(chosenSteps(['1']).length, 9);
  assert.deepEqual(chosenSteps(['offsets', 'reshape', 'heads']).map((s) => s.id), ['reshape', 'heads', 'offsets']);
  assert.deepEqual(chosenSteps([]), []);
});

test('threeWay: an effect by its sign, no difference larger than δ as the same, cannot tell as null', () => {
  assert.equal(threeWay(diff('effect', 0.05, 0.01, 0.09)), 'higher');
  assert.equal(threeWay(diff('effect', -0.05, -0.09, -0.01)), 'lower');
  assert.equal(threeWay(diff('equivalent', 0.001, -0.01, 0.012)), 'same');
  assert.equal(threeWay(diff('undecided', 0.01, -0.04, 0.06, 9)), null);
});

test('Break it: the variant\'s paired difference decides, with the seeds to decide it when it cannot', () => {
  const f = { variants: ['canonical', 'scale_sqrt_d'], complete: 3,
    toReference: [diff('equivalent', 0, 0, 0), diff('undecided', 0.01, -0.03, 0.05, 7)] };
  assert.equal(variantReading(null, 'scale_sqrt_d').ready, false);
  assert.equal(variantReading({ ...f, variants: ['canonical', 'no_wo'] }, 'scale_sqrt_d').ready, false);
  assert.equal(variantReading({ ...f, complete: 0 }, 'scale_sqrt_d').ready, false);
  const r = variantReading(f, 'scale_sqrt_d');
  assert.equal(r.ready && r.answer, null);
  assert.deepEqual(r.ready && r.more, { setting: 'bseeds', seeds: 7 });
  const j = judge(step('scale').prediction(/** @type {any} */ ({})), 'higher', r);
  assert.equal(j.mark, 'undecided');
  assert.match(j.sentence, /cannot decide it yet.*About 7 seeds would likely decide it\./);
});

test('the √D question names the model Break it trains: the core\'s preset, not a number written in', () => {
  const ask = (dModel, nHeads) => step('scale').question(/** @type {any} */ ({ state: { bsteps: 150 },
    core: { constants: () => ({ presets: { break: { settings: { dModel, nHeads } } } }) } }));
  assert.match(ask(64, 4), /^Divide the scores by √D = √64 = 8 instead of √d_h = √16 = 4 \(H = 4\)\. After 150 steps,/);
  assert.match(ask(48, 3), /^Divide the scores by √D = √48 ≈ 6\.93 instead of √d_h = √16 = 4 \(H = 3\)\./);
});

test('the heads comparison: H = 4 against H = 1 on the text only; a finding of another task or H waits', () => {
  const f = { task: 'char', heads: [1, 4, 8], complete: 12,
    toReference: [diff('equivalent', 0, 0, 0), diff('effect', 0.0125, 0.0015, 0.0235), diff('effect', 0.03, 0.01, 0.05)] };
  const r = headsReading(f, 'char', 4, 1, 'seeds');
  assert.equal(r.ready && r.answer, 'higher');
  assert.match(r.ready ? r.evidence : '', /\+0\.013 nats \(95% t-interval \+0\.002 to \+0\.024, 12 paired seeds\)/);
  assert.equal(headsReading({ ...f, task: 'offsets' }, 'char', 4, 1, 'seeds').ready, false);
  assert.equal(headsReading({ ...f, heads: [8] }, 'char', 4, 1, 'seeds').ready, false);
  assert.equal(headsReading({ ...f, heads: [4, 1] }, 'char', 4, 1, 'seeds').ready, false);  // H = 1 must be the reference
  const p = step('heads').prediction(/** @type {any} */ ({}));
  // the question names the model the panel trains: its D and budget as set (a link may set them)
  const asked = (cD, steps) => step('heads').question(/** @type {any} */ ({ state: { cD, steps } }));
  assert.match(asked(64, 300), /^Tiny character models with D = 64, trained for 300 steps /);
  assert.match(asked(32, 120), /^Tiny character models with D = 32, trained for 120 steps /);
  assert.equal(judge(p, 'higher', r).mark, 'right');
  assert.equal(judge(p, 'same', r).mark, 'wrong');
  assert.equal(judge(p, 'lower', r).mark, 'wrong');
});

test('the offsets task: the reach steps are paired by seed and judged by the core; unreached seeds count as the budget', () => {
  const f = { task: 'offsets', heads: [1, 4], complete: 3,
    reach: { threshold: 0.2, budget: 3000, settings: [{ first: [2400, -1, 2250] }, { first: [250, 300, 175] }] } };
  let seen = null;
  const core = { compareOverSeeds: (labels, values, ref) => {
    seen = { labels, values, ref };
    return { ok: true, toReference: [diff('equivalent', 0, 0, 0), diff('effect', -2308.3, -3300, -1300)] };
  } };
  const r = offsetsReading(f, /** @type {any} */ (core));
  assert.deepEqual(seen, { labels: ['H = 1', 'H = 4'], values: [[2400, 3000, 2250], [250, 300, 175]], ref: 0 });
  assert.equal(r.ready && r.answer, 'H4');
  assert.match(r.ready ? r.evidence : '', /3,000: not reached within the budget/);
  const undecided = offsetsReading(f, /** @type {any} */ ({ compareOverSeeds: () => ({ ok: true,
    toReference: [diff('equivalent', 0, 0, 0), diff('undecided', -50, -400, 300, 0)] }) }));
  assert.equal(undecided.ready && undecided.answer, null);
  assert.deepEqual(undecided.ready && undecided.more, { setting: 'oseeds', seeds: 6 });  // unknown: twice the seeds
  assert.equal(offsetsReading({ ...f, task: 'char' }, /** @type {any} */ (core)).ready, false);
});

test('pruning: the number of heads the core says can go, within one head; cannot tell is no judgement', () => {
  const p = { kind: /** @type {'number'} */ ('number'), min: 0, max: 16, tolerance: 1, unit: 'heads' };
  const f = { H: 8, task: 'char', removable: 9, outcome: 'removable', seeds: 3, threshold: 0.1, sentence: 'Nine heads can go.' };
  const r = pruningReading(f);
  assert.equal(judge(p, 9, r).mark, 'right');
  assert.match(judge(p, 10, r).sentence, /within 1 of it/);
  assert.equal(judge(p, 11, r).mark, 'wrong');
  // 13 surely go, the 14th cannot tell, the 15th surely raises the loss: the answer is 13 or 14
  const open = pruningReading({ ...f, L: 2, removable: 13, risesAt: 15, outcome: 'cannot-tell', seeds: 12 });
  assert.deepEqual(open.ready && open.range, [13, 14]);
  assert.deepEqual([12, 13, 14, 15, 16, 0].map((v) => judge(p, v, open).mark),
    ['undecided', 'right', 'right', 'undecided', 'wrong', 'wrong']);
  assert.match(judge(p, 13, open).sentence, /the core measured 13 to 14 heads so far, within 1 of all of it/);
  // one seed: nothing is known, every prediction waits for seeds
  const oneSeed = pruningReading({ ...f, L: 2, removable: 0, risesAt: -1, outcome: 'cannot-tell', seeds: 1 });
  assert.deepEqual([0, 8, 16].map((v) => judge(p, v, oneSeed).mark), ['undecided', 'undecided', 'undecided']);
  assert.equal(pruningReading(null).ready, false);
  // the pruning of another model (the offsets task's, H = 1) is not this question's answer
  assert.equal(pruningReading({ ...f, task: 'offsets' }).ready, false);
  assert.equal(pruningReading({ ...f, H: 1 }).ready, false);
  // the question and its range follow the heads panel's layers as set (a link may set them)
  const at = (layers) => /** @type {any} */ ({ state: { layers } });
  assert.match(step('inside').question(at(3)), /^A model with 3 layers of 8 heads \(24 heads\)\./);
  assert.deepEqual(step('inside').prediction(at(3)), { kind: 'number', min: 0, max: 24, tolerance: 1, unit: 'heads' });
});

test('parameters: the heads panel\'s model as set, on the text\'s vocabulary, counted by the core at H = 1 and 8', () => {
  const asked = [];
  const ctx = /** @type {any} */ ({ state: { cD: 32, layers: 3, context: 48 }, vocab: () => 62,
    core: { parameterLedger: (c) => { asked.push(c); return { ok: true, total: 1000 }; } } });
  assert.match(step('params').question(ctx), /^The heads comparison's model \(D = 32\): /);
  const r = step('params').read(ctx);
  assert.deepEqual(asked, [1, 8].map((nHeads) => ({ vocab: 62, dModel: 32, nHeads, nLayers: 3, context: 48, mlp: true })));
  assert.deepEqual(r, { ready: true, answer: 'same', evidence: 'The core\'s ledger: 1,000 parameters at H = 1, 1,000 at H = 8.' });
});

test('induction: which model crossed the threshold, once both have finished', () => {
  const m = (crossed, best) => ({ crossed, crossedStep: crossed ? 2250 : -1, best });
  assert.equal(inductionReading({ done: false, threshold: 0.3, model: m(true, 0.6), control: m(false, 0.1) }).ready, false);
  const answers = [[true, false, 'two'], [false, true, 'one'], [true, true, 'both'], [false, false, 'neither']]
    .map(([a, b]) => { const r = inductionReading({ done: true, threshold: 0.3, model: m(a, 0.6), control: m(b, 0.1) }); return r.ready && r.answer; });
  assert.deepEqual(answers, ['two', 'one', 'both', 'neither']);
  const withPhase = inductionReading({ done: true, threshold: 0.4, model: m(true, 0.6), control: m(false, 0.1) },
    { done: true, sentence: 'The loss dropped 50 steps after the score crossed.' });
  assert.match(withPhase.ready ? withPhase.evidence : '', /never at the threshold\. The loss dropped 50 steps after/);
});

test('a judgement needs a reading: waiting says what to run', () => {
  const p = step('params').prediction(/** @type {any} */ ({}));
  const j = judge(p, 'same', { ready: false, waiting: 'Train both models in Induction heads.' });
  assert.deepEqual([j.mark, j.sentence], ['waiting', 'Train both models in Induction heads.']);
});

// ---------------------------------------------------------------- the report
const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const record = () => ({ format: FORMAT, version: VERSION, savedAt: '2026-11-27T02:00:00.000Z', page: 'http://127.0.0.1:8000/',
  steps: [{ id: 'heads', title: 'H = 1, 4, 8 on the text', question: 'Is H = 4 lower?', predicted: 'H = 4 <b>lower</b>', earlier: '“the same” (not this time)',
    mark: 'wrong', sentence: 'You predicted “x”; the core measured “y”.', evidence: 'H = 4 − H = 1: +0.013 nats',
    explanation: 'Why </script><script>alert(1)</script>', concept: 'Heads trade width for number.',
    charts: [{ id: 'c-chart', png: PNG }], settings: 'H = 1, 4, 8, 300 steps' }] });

test('the report: a standalone page with no script to run, everything escaped, and its record read back as it was', () => {
  const html = reportHtml(record());
  assert.doesNotMatch(html, /<script>/);            // only the JSON data block, which no browser runs
  assert.equal(html.match(/<script/g).length, 1);
  assert.match(html, /H = 4 &lt;b&gt;lower&lt;\/b&gt;/);
  assert.match(html, /<img src="data:image\/png;base64,iVBORw0KGgo="/);
  const back = readLessonFile(html, html.length);
  assert.equal(back.ok, true);
  assert.deepEqual(back.ok && back.record, record());
  const json = JSON.stringify(record());
  assert.deepEqual(readLessonFile(json, json.length).ok, true);
});

test('the report: empty, foreign, damaged, other-version and unsafe files get a sentence', () => {
  const bad = (text) => { const r = readLessonFile(text, text.length); return r.ok === false ? r.error : ""; };
  assert.match(bad(''), /empty/);
  assert.match(bad('<html><body>hello</body></html>'), /holds no lesson record/);
  assert.match(bad('{"format": '), /damaged/);
  assert.match(bad(JSON.stringify({ ...record(), format: 'other' })), /not a lesson saved by this lab/);
  assert.match(bad(JSON.stringify({ ...record(), version: 99 })), /another version of the lab \(format 99\)/);
  const unsafe = record();
  unsafe.steps[0].charts[0].png = 'javascript:alert(1)';
  assert.match(bad(JSON.stringify(unsafe)), /not a PNG image/);
  const missing = /** @type {any} */ (record());
  delete missing.steps[0].evidence;
  assert.match(bad(JSON.stringify(missing)), /lacks its evidence/);
  const r = readLessonFile('x', 21 * 1024 * 1024);
  assert.match(r.ok === false ? r.error : '', /at most 20 MB/);
});
