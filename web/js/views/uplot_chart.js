// What the uPlot charts (LinesView, SeedCurvesView) share: the palette (series_style.js), one value format, a width that
// follows the container, and a plot that is built anew only when its series change (otherwise it just takes the new
// data).
import uPlot from '../../vendor/uPlot.esm.js';

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
    // uPlot's type for it is a tuple (the x values, then any number of series); the callers build it as lists
    const aligned = /** @type {uPlot.AlignedData} */ (data);
    if (key !== this.key || !this.plot) {
      this.plot?.destroy();
      this.plot = options ? new uPlot(options(), aligned, this.root) : null;
      this.key = this.plot ? key : '';
    } else {
      this.plot.setData(aligned);
    }
  }
}
