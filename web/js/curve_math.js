// Curves summarised over seeds, as the heads panel's charts draw them (SeedCurvesView, PairedDifferenceView): mean,
// lowest and highest value per step, a curve read at any step, and the paired differences of settings trained with
// the same seeds. No DOM.

/**
 * @typedef {{mean: Array<number|null>, min: Array<number|null>, max: Array<number|null>, n: number[]}} Summary
 *   (X) each, X the steps 0..last: over the runs that have a value at that step (null where none has; n: how many)
 */

/**
 * Mean, lowest and highest value at each step over the runs. Without a grid, over the runs that have a point at
 * that step; with one, at the grid's steps, over the runs whose curve spans the step, each read off its curve (the
 * straight line between its two measurements around the step, as the chart draws it). A worker measures when its
 * chunk of steps has crossed an evaluation step, so runs trained side by side may measure a few steps apart.
 * @param {Array<{step: number[], loss: number[]}>} curves each in step order
 * @param {number} X the number of steps shown (0..X-1)
 * @param {number[]} [grid] steps to read the curves at
 * @returns {Summary}
 */
export function summariseCurves(curves, X, grid) {
  const sum = new Array(X).fill(0), n = new Array(X).fill(0);
  const min = new Array(X).fill(null), max = new Array(X).fill(null);
  const add = (s, v) => {
    if (s >= X || !Number.isFinite(v)) return;
    sum[s] += v;
    n[s] += 1;
    min[s] = min[s] === null ? v : Math.min(min[s], v);
    max[s] = max[s] === null ? v : Math.max(max[s], v);
  };
  for (const c of curves) {
    if (!grid) {
      c.step.forEach((s, i) => add(s, c.loss[i]));
      continue;
    }
    for (const s of grid) {
      const v = valueAt(c, s);
      if (v !== null) add(s, v);
    }
  }
  return { mean: sum.map((v, s) => (n[s] ? v / n[s] : null)), min, max, n };
}

/**
 * A curve's value at a step, read off it as the chart draws it: its measurement there, or the straight line between
 * its two measurements around the step; null before its first measurement or once past its last.
 * @param {{step: number[], loss: number[]}} c in step order
 * @param {number} s
 * @returns {number|null}
 */
export function valueAt(c, s) {
  const j = c.step.findIndex((t) => t >= s);  // the first measurement at or after s
  if (j < 0) return null;                      // the run has not got there yet
  if (c.step[j] === s) return c.loss[j];
  if (j === 0) return null;
  const [s0, s1, v0, v1] = [c.step[j - 1], c.step[j], c.loss[j - 1], c.loss[j]];
  return v0 + ((v1 - v0) * (s - s0)) / (s1 - s0);
}

/**
 * The paired differences of each setting to the first one, step by step: for every seed both have trained, the
 * setting's curve minus the first setting's curve on the same seed (each read at the grid's steps, as valueAt does),
 * summarised over the seeds. What a comparison over paired seeds judges at its last step.
 * @param {Array<{runs: Array<{settings?: {seed: number}, val: {step: number[], loss: number[]}}>, grid?: number[]}>} groups
 *   the first is the reference; a run's seed pairs it (its position in the list where it has none); each with its
 *   grid (the schedule's evaluation steps), which pairs the runs' curves step by step
 * @param {number} X the number of steps shown (0..X-1)
 * @returns {Summary[]} one per group after the first
 */
export function pairedDifferences(groups, X) {
  const [reference, ...others] = groups;
  const seedOf = (r, i) => r.settings?.seed ?? i;
  const bySeed = new Map(reference.runs.map((r, i) => [seedOf(r, i), r]));
  return others.map((g) => {
    const curves = [];
    g.runs.forEach((r, i) => {
      const ref = bySeed.get(seedOf(r, i));
      if (!ref) return;
      const step = [], loss = [];
      for (const s of g.grid) {
        const a = valueAt(r.val, s), b = valueAt(ref.val, s);
        if (a !== null && b !== null) {
          step.push(s);
          loss.push(a - b);
        }
      }
      curves.push({ step, loss });
    });
    return summariseCurves(curves, X);
  });
}
