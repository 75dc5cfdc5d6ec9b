// The final table of a comparison over paired seeds (web/js/seed_table.js) on its own, in node: which seeds count,
// the caption and the rows. The runs are plain objects with a Run's fields (runs.js); the core's comparison is
// written here by hand in the shape compareOverSeeds returns (its numbers are the core's own tests' business:
// tests/test_seed_effects.cpp). The same table drawn from real runs in Chromium: seeds.test.mjs, break_seeds.test.mjs.
//   node --test --test-reporter=spec tests/browser/seed_table.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finalColumns, finalRows, finished, noPairedSeed, pairedSeeds, reachSteps, reachVerdict, seedsCaption } from '../../web/js/seed_table.js';

const run = (status, loss, o = {}) => ({ status, stepsDone: status === 'done' ? 100 : 40, settings: { steps: 100 },
  val: { loss: loss === null ? [] : [4, loss] }, facts: { params: 1234 }, ...o });
// two head counts × three seeds (7, 8, 9), seed-major as comparison.js plans them
const plan = (runs) => runs.map((r, i) => ({ H: [1, 4][i % 2], index: Math.floor(i / 2), seed: 7 + Math.floor(i / 2), cancelled: false, run: r }));

test('a run counts when it trained to the end of its schedule and has a final loss', () => {
  assert.ok(finished(run('done', 2.1)));
  assert.ok(!finished(run('done', null)));                       // no validation loss
  assert.ok(!finished(run('done', 2.1, { stepsDone: 60 })));    // stopped early: done, but not at the end
  assert.ok(!finished(run('running', 2.1)));
  assert.ok(!finished(null));
  // a run its worker ended at its stopping loss: at its first measurement at or below it, on the grid
  const early = (o) => run('done', 0.19, { stepsDone: 60, settings: { steps: 100, evalEvery: 20, stopAtLoss: 0.2 },
    val: { step: [0, 20, 40, 60], loss: [4, 1, 0.5, 0.19] }, ...o });
  assert.ok(finished(early()));
  assert.ok(!finished(early({ val: { step: [0, 20, 40, 60], loss: [4, 1, 0.5, 0.21] } })));  // above it: stopped by hand
  assert.ok(!finished(early({ stepsDone: 50, val: { step: [0, 20, 40, 50], loss: [4, 1, 0.5, 0.19] } })));  // off the grid
  assert.ok(!finished(early({ stepsDone: 80 })));                                // its last measurement is not its end
  assert.ok(!finished(early({ settings: { steps: 100, evalEvery: 20 } })));      // no stopping loss: stopped by hand
  assert.ok(!finished(early({ diverged: { step: 59 } })));
});

test('steps to a threshold: paired by seed (a seed that never got there counts as the budget), judged in steps', () => {
  assert.deepEqual(reachSteps({ budget: 3000, settings: [{ first: [2450, -1] }, { first: [225, 250] }] }), [[2450, 3000], [225, 250]]);
  const d = { mean: -2287.5, low: -2419.2, high: -2155.8, outcome: 'effect', seedsToDecide: 0 };
  assert.equal(reachVerdict('H = 4', 'H = 1', d, 3), 'H = 4 − H = 1, the first step at the threshold: −2,288 steps ' +
    '(95% t-interval over 3 paired seeds: −2,419 to −2,156 steps): H = 4 gets there sooner, an effect.');
  assert.match(reachVerdict('H = 4', 'H = 1', { ...d, mean: 40, low: 10, high: 70 }, 3), /: H = 4 gets there later, an effect\.$/);
  assert.equal(reachVerdict('H = 8', 'H = 4', { mean: 0, low: 0, high: 0, outcome: 'equivalent', seedsToDecide: 0 }, 3),
    'H = 8 − H = 4, the first step at the threshold: +0 steps (95% t-interval over 3 paired seeds: +0 to +0 steps): ' +
    'no difference, every seed got there at the same measurement.');
  assert.equal(reachVerdict('H = 4', 'H = 1', { mean: -25, low: -200, high: 150, outcome: 'undecided', seedsToDecide: 9 }, 3),
    'H = 4 − H = 1, the first step at the threshold: −25 steps (95% t-interval over 3 paired seeds: −200 to +150 ' +
    'steps): cannot tell yet; about 9 seeds would likely decide it.');
  assert.match(reachVerdict('H = 4', 'H = 1', { ...d, outcome: 'undecided', low: -Infinity, high: Infinity }, 1),
    /\(one seed: no interval\): cannot tell yet\.$/);
});

test('the paired seeds are those every setting finished; the rest are to come or left out', () => {
  const p = plan([run('done', 2.1), run('done', 2.0), run('done', 2.2), run('running', 2.5), run('done', 2.3), run('done', 2.25)]);
  const s = pairedSeeds(p, (q) => q.H, [1, 4], 3);
  assert.deepEqual(s.complete, [0, 2]);                           // seed 8's H = 4 still trains
  assert.deepEqual(s.seedList, [7, 9]);
  assert.deepEqual(s.used.map((rs) => rs.map((r) => r.val.loss.at(-1))), [[2.1, 2.3], [2.0, 2.25]]);
  assert.ok(s.training && s.anyDone);
  assert.equal(seedsCaption(s, 3, 'every H'), 'over 2 seeds (7, 9), the same seeds for every H: mean ± half the range, ' +
    'and the lowest to the highest seed. 1 more seed to come.');
  p[3].run.status = 'failed';
  assert.match(seedsCaption(pairedSeeds(p, (q) => q.H, [1, 4], 3), 3, 'every H'), /1 more seed left out \(stopped or failed\)\.$/);
  const one = pairedSeeds(p.slice(0, 2), (q) => q.H, [1, 4], 1);
  assert.equal(seedsCaption(one, 1, 'every H'), 'over 1 seed (7), the same seed for every H: mean ± half the range, and the lowest to the highest seed.');
});

test('before a paired seed: nothing until a run is done, then when the numbers will come or why they will not', () => {
  const none = pairedSeeds(plan([run('running', 3), run('starting', null)]), (q) => q.H, [1, 4], 1);
  assert.equal(noPairedSeed(none, 'every H'), '');
  const half = pairedSeeds(plan([run('done', 2), run('running', 3)]), (q) => q.H, [1, 4], 1);
  assert.equal(noPairedSeed(half, 'every H'), 'The final numbers appear once every H has finished the same seed.');
  assert.equal(noPairedSeed(half, 'canonical and every variant'), 'The final numbers appear once canonical and every variant have finished the same seed.');
  const stopped = pairedSeeds(plan([run('done', 2), run('done', 3, { stepsDone: 50 })]), (q) => q.H, [1, 4], 1);
  assert.equal(noPairedSeed(stopped, 'every H'), 'No seed was trained to the end of the schedule for every H, so there are no final numbers to compare.');
});

test('the rows: mean ± half the range and the range over several seeds, the value alone over one; the reference first', () => {
  const used = [[run('done', 2.1), run('done', 2.3)], [run('done', 2.0, { facts: null }), run('done', 2.25)]];
  const c = { margin: 0.02,
    settings: [{ mean: 2.2, spread: 0.1, min: 2.1, max: 2.3 }, { mean: 2.125, spread: 0.125, min: 2.0, max: 2.25 }],
    toReference: [{ mean: 0, low: 0, high: 0, outcome: 'equivalent' }, { mean: -0.075, low: -0.4, high: 0.25, outcome: 'undecided' }] };
  assert.deepEqual(finalRows(['H = 1', 'H = 4'], used, c), [
    ['H = 1', '1,234', '2.200 ± 0.100', '2.100–2.300', 'reference', ''],
    ['H = 4', '–', '2.125 ± 0.125', '2.000–2.250', '−0.075 (−0.400 to +0.250)', 'cannot tell yet'],
  ]);
  const single = finalRows(['a', 'b'], used.map((rs) => rs.slice(0, 1)), { ...c, toReference: [c.toReference[0], { ...c.toReference[1], outcome: 'effect' }] });
  assert.deepEqual(single[1].slice(2), ['2.125', '–', '−0.075', 'an effect']);
  assert.equal(finalColumns('variant', 'canonical').length, finalRows(['a', 'b'], used, c)[0].length);
  assert.equal(finalColumns('variant', 'canonical')[4], 'paired difference to canonical (95% interval)');
});
