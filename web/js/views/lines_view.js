// Several measured quantities over training steps on one set of axes (uPlot): per-head scores, copy losses. Each
// series has its own x values (the steps where it was measured); series differ by colour AND dash pattern, and the
// legend names each, so nothing rests on colour alone. Optional horizontal guides (a threshold, a baseline).
import { seriesStyle } from './series_style.js';
import { threeDecimals, UPlotChart } from './uplot_chart.js';

const SIZE = { height: 220, minWidth: 260 };  // px
const GUIDE_COLOUR = '#777';

/**
 * @typedef {{label: string, step: number[], value: number[], style?: number, look?: {stroke: string, dash: number[]}}} Line
 *   style: colour/dash index; look: colour and dash given outright (more lines than the palette cycles through)
 * @typedef {{label: string, value: number}} Guide  a horizontal dashed line
 */

export class LinesView extends UPlotChart {
  /**
   * @param {HTMLElement} root an empty container (role="img"); the view owns its content
   * @param {{yLabel: string, yRange?: [number, number], describe: string}} settings describe names the chart in
   *   its text alternative ('Induction scores')
   */
  constructor(root, settings) {
    super(root, SIZE);
    this.settings = settings;
  }

  /**
   * @param {{lines: Line[], guides?: Guide[]}} data
   */
  update({ lines, guides = [] }) {
    const key = lines.map((l) => l.label).join('|') + '|' + guides.map((g) => g.label).join('|');
    const steps = [...new Set(lines.flatMap((l) => l.step))].sort((a, b) => a - b);
    const at = new Map(steps.map((s, i) => [s, i]));
    const series = [steps];
    for (const l of lines) {
      const v = new Array(steps.length).fill(null);
      l.step.forEach((s, i) => { v[at.get(s)] = Number.isFinite(l.value[i]) ? l.value[i] : null; });
      series.push(v);
    }
    for (const g of guides) series.push(steps.map(() => g.value));
    this.render(key, series, lines.length && steps.length ? () => this.options(lines, guides) : null);
    this.describe(lines, guides);
  }

  options(lines, guides) {
    const series = [{ label: 'step' }];
    lines.forEach((l, i) => {
      const { stroke, dash } = l.look ?? seriesStyle(l.style ?? i);
      series.push({ label: l.label, stroke, width: 2, dash, spanGaps: true, points: { show: false }, value: threeDecimals });
    });
    for (const g of guides) series.push({ label: g.label, stroke: GUIDE_COLOUR, width: 1.5, dash: [4, 4], points: { show: false },
      value: threeDecimals });
    const y = this.settings.yRange ? { range: this.settings.yRange } : {};
    return {
      width: this.width(), height: SIZE.height,
      scales: { x: { time: false }, y },
      axes: [{ label: 'training step' }, { label: this.settings.yLabel }],
      series,
    };
  }

  // the text alternative: the last value of every line
  describe(lines, guides) {
    const parts = lines.map((l) => (l.value.length ? `${l.label} ${l.value.at(-1).toFixed(3)} at step ${l.step.at(-1)}` : `${l.label}: not measured yet`));
    const g = guides.map((x) => `${x.label} ${x.value.toFixed(2)}`);
    this.root.setAttribute('aria-label', lines.length
      ? `${this.settings.describe}. ${parts.join('; ')}${g.length ? `. Guides: ${g.join(', ')}` : ''}.`
      : `${this.settings.describe}: no run yet.`);
  }
}
