// The charts' series styles: one palette in which series differ by colour AND dash pattern (Okabe & Ito's colours,
// and Tol's wine for an eighth), pure so that node tests read it without a browser.

const PALETTE = Object.freeze({
  colours: ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#882255'],
  dashes: [[], [10, 5], [3, 4], [14, 4, 3, 4], [6, 3], [2, 2], [12, 3]],
});

/**
 * Colour and dash of series k (they cycle together).
 * @param {number} k
 * @returns {{stroke: string, dash: number[]}}
 */
export function seriesStyle(k) {
  return { stroke: PALETTE.colours[k % PALETTE.colours.length], dash: PALETTE.dashes[k % PALETTE.dashes.length] };
}

/**
 * Colour and dash of head h of layer l in a model of H heads per layer: the colour names the head, the dash the
 * layer, so heads 0..7 of a layer all differ in colour and the same head of two layers differs in dash. Past 8 heads
 * a layer takes one more dash per round of colours: every (layer, head) looks different while L · ⌈H / 8⌉ ≤ 7
 * (7 layers of 8 heads, 3 layers of 16).
 * @param {number} l
 * @param {number} h
 * @param {number} H
 * @returns {{stroke: string, dash: number[]}}
 */
export function headSeriesStyle(l, h, H) {
  const n = PALETTE.colours.length;
  const rounds = Math.ceil(H / n);
  return { stroke: PALETTE.colours[h % n], dash: PALETTE.dashes[(l * rounds + Math.floor(h / n)) % PALETTE.dashes.length] };
}
