// Curves over seeds (web/js/curve_math.js) on their own, in node: the summary the losses chart draws, a curve read
// between its measurements, and the paired differences the differences chart draws, on curves written here by hand.
//   node --test --test-reporter=spec tests/browser/curve_math.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedDifferences, summariseCurves, valueAt } from '../../web/js/curve_math.js';
import { tickLabels } from '../../web/js/views/seed_words.js';

const curve = (step, loss) => ({ step, loss });

test('valueAt: the measurement at a step, the straight line between two, nothing outside them', () => {
  const c = curve([0, 10, 20], [4, 3, 2.5]);
  assert.equal(valueAt(c, 10), 3);
  assert.equal(valueAt(c, 15), 2.75);
  assert.equal(valueAt(c, 25), null);          // not trained that far yet
  assert.equal(valueAt(curve([5, 10], [3, 2]), 2), null);  // before its first measurement
});

test('summariseCurves: mean, lowest and highest per step over the runs that have a value there', () => {
  const s = summariseCurves([curve([0, 2], [4, 2]), curve([0, 2], [5, 3]), curve([0], [6])], 3);
  assert.deepEqual(s.mean, [5, null, 2.5]);
  assert.deepEqual(s.min, [4, null, 2]);
  assert.deepEqual(s.max, [6, null, 3]);
  assert.deepEqual(s.n, [3, 0, 2]);
  // on a grid, a run measured a step late is read off its line
  const g = summariseCurves([curve([0, 11], [4, 2.9]), curve([0, 10], [4, 3])], 12, [0, 10]);
  assert.equal(g.n[10], 2);
  assert.ok(Math.abs(g.mean[10] - (4 + (2.9 - 4) * 10 / 11 + 3) / 2) < 1e-12);
});

test('pairedDifferences: each setting minus the first on the same seed, then over the seeds; unpaired seeds left out', () => {
  const grid = [0, 10];
  const run = (seed, loss) => ({ settings: { seed }, val: curve([0, 10], loss) });
  const groups = [
    { runs: [run(1, [4, 3.0]), run(2, [4, 3.2])], grid },               // the reference, seeds 1 and 2
    { runs: [run(2, [4, 3.1]), run(1, [4, 3.05]), run(3, [4, 2])], grid },  // listed out of order; seed 3 has no pair
  ];
  const [d] = pairedDifferences(groups, 11);
  assert.equal(d.n[10], 2);
  assert.ok(Math.abs(d.mean[10] - ((3.1 - 3.2) + (3.05 - 3.0)) / 2) < 1e-12);
  assert.ok(Math.abs(d.min[10] - (3.1 - 3.2)) < 1e-12);
  assert.ok(Math.abs(d.max[10] - (3.05 - 3.0)) < 1e-12);
  assert.deepEqual([d.mean[0], d.n[0]], [0, 2]);
  // a seed that has not reached a step yet counts there only once it has
  const [late] = pairedDifferences([groups[0], { runs: [run(1, [4, 3.1]), { settings: { seed: 2 }, val: curve([0], [4]) }], grid }], 11);
  assert.equal(late.n[10], 1);
  assert.ok(Math.abs(late.mean[10] - 0.1) < 1e-12);
});

test('the differences axis: as many decimals as the ticks\' spacing needs, a real minus sign, zero as 0', () => {
  assert.deepEqual(tickLabels(null, [0.0004, 0.0002, 0, -0.0002, -0.0004]), ['0.0004', '0.0002', '0', '−0.0002', '−0.0004']);
  assert.deepEqual(tickLabels(null, [-0.02, 0, 0.02]), ['−0.02', '0', '0.02']);
  assert.deepEqual(tickLabels(null, [-0.005, 0, 0.005, 0.01]), ['−0.005', '0', '0.005', '0.010']);
  assert.deepEqual(tickLabels(null, [0, 1, 2]), ['0', '1', '2']);
});
