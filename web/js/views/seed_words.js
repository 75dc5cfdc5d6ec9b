// The words of a comparison over paired seeds, as the core's rule gives them (core/lab/seed_effects.hpp): the paired
// difference with its 95% t-interval, and the outcome in a few words. Pure text, shared by the panels that compare
// settings over seeds.
import { count } from './dom.js';

/**
 * A difference as the core writes one: "+0.012", "−0.004" (a real minus sign), "0.000".
 * @param {number} v
 * @returns {string}
 */
export function signed(v) {
  const t = Math.abs(v).toFixed(3);
  return t === '0.000' ? t : `${v < 0 ? '−' : '+'}${t}`;
}

/**
 * A difference in whole numbers (steps), as the verdicts over time write one: "+2,275", "−25", "+0" (a real minus
 * sign, thousands separated).
 * @param {number} v
 * @returns {string}
 */
export const signedCount = (v) => `${v < 0 ? '−' : '+'}${count(Math.abs(v))}`;

/**
 * The table cell of a paired difference: its mean and, with two seeds or more, its 95% t-interval.
 * @param {{mean: number, low: number, high: number}} d the core's PairedDifference
 * @param {number} seeds
 * @returns {string} e.g. "+0.013 (+0.007 to +0.019)"
 */
export function pairedCell(d, seeds) {
  return seeds > 1 ? `${signed(d.mean)} (${signed(d.low)} to ${signed(d.high)})` : signed(d.mean);
}

/**
 * The outcome of a paired difference in a few words, for the table's last column.
 * @param {{outcome: string}} d the core's PairedDifference
 * @param {number} margin the practical threshold δ in nats (the comparison's margin)
 * @returns {string}
 */
export function outcomeWords(d, margin) {
  if (d.outcome === 'effect') return 'an effect';
  if (d.outcome === 'equivalent') return `no effect over ${margin.toFixed(3)}`;
  return 'cannot tell yet';
}

/**
 * The difference axis's tick labels, with as many decimals as their spacing needs: early in training the differences
 * are a ten-thousandth of a nat, and uPlot's own labels then read "0, −0, −0". A real minus sign; zero as "0".
 * @param {any} u the plot
 * @param {number[]} splits the tick values
 * @returns {string[]}
 */
export function tickLabels(u, splits) {
  const step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) : 1;
  const decimals = Math.min(8, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9)));
  return splits.map((v) => {
    const t = Math.abs(v).toFixed(decimals);
    return Number(t) === 0 ? '0' : `${v < 0 ? '−' : ''}${t}`;
  });
}
