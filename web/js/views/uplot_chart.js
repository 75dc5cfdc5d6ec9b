// What the uPlot charts (CurvesView, LinesView) share: one palette in which series differ by colour AND dash
// pattern (Okabe & Ito colours), one value format, a width that follows the container, and a plot that is built
// anew only when its series change (otherwise it just takes the new data).
import uPlot from '../../vendor/uPlot.esm.js';

const PALETTE = {
  colours: ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'],
  dashes: [[], [10, 5], [3, 4], [14, 4, 3, 4], [6, 3], [2, 2], [12, 3]],
};

/** colour and dash of series k (they cycle together) */
export function seriesStyle(k) {
  return { stroke: PALETTE.colours[k % PALETTE.colours.length], dash: PALETTE.dashes[k % PALETTE.dashes.length] };
}

/**
 * colour and dash of series k when there may be more series than colours: the colour cycles first, the dash changes
 * with each round, so 49 series look different from one another
 */
export function distinctSeriesStyle(k) {
  const n = PALETTE.colours.length;
  return { stroke: PALETTE.colours[k % n], dash: PALETTE.dashes[Math.floor(k / n) % PALETTE.dashes.length] };
}

/** uPlot's legend value: three decimals, '–' where a series has no point */
export const threeDecimals = (u, v) => (v == null ? '–' : v.toFixed(3));

export class UPlotChart {
  /**
   * @param {HTMLElement} root an empty container (role="img"); the chart owns its content
   * @param {{height: number, minWidth: number}} size px
   */
  constructor(root, size) {
    this.root = root;
    this.size = size;
    this.plot = null;
    this.key = '';
    new ResizeObserver(() => {
      if (this.plot) this.plot.setSize({ width: this.width(), height: size.height });
    }).observe(root);
  }

  width() {
    return Math.max(this.size.minWidth, this.root.clientWidth || this.size.minWidth);
  }

  /**
   * @param {string} key names the series: a new key builds a new plot
   * @param {Array<Array<number|null>>} data uPlot's data, the x values first
   * @param {(() => object) | null} options uPlot options for a new plot, or null for no plot (nothing to draw)
   */
  render(key, data, options) {
    if (key !== this.key || !this.plot) {
      this.plot?.destroy();
      this.plot = options ? new uPlot(options(), data, this.root) : null;
      this.key = this.plot ? key : '';
    } else {
      this.plot.setData(data);
    }
  }
}
