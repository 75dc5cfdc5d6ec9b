// Loss curves of several runs on one set of axes (uPlot, vendored from the npm lock file): validation loss as
// thick lines with points, training loss of each step's batch as thin lines, a dashed unigram baseline. Runs
// differ by colour AND dash pattern, and the legend names every series, so nothing rests on colour alone.
import { el } from './dom.js';
import { seriesStyle } from './series_style.js';
import { threeDecimals, UPlotChart } from './uplot_chart.js';

const SIZE = { height: 300, minWidth: 280 };  // px

/**
 * @typedef {{label: string, train: {step: number[], loss: number[]}, val: {step: number[], loss: number[]}}} Curve
 */

export class CurvesView extends UPlotChart {
  /**
   * @param {HTMLElement} root an empty container (role="img"); the view owns its content
   * @param {{valuesRoot: HTMLElement}} settings where the text alternative (a table of validation losses) goes
   */
  constructor(root, settings) {
    super(root, SIZE);
    this.valuesRoot = settings.valuesRoot;
  }

  /**
   * @param {{runs: Curve[], baseline: number|null}} data
   */
  update({ runs, baseline }) {
    const key = runs.map((r) => r.label).join('|') + (baseline ? '|b' : '');
    const last = Math.max(1, ...runs.map((r) => Math.max(r.train.step.at(-1) ?? 0, r.val.step.at(-1) ?? 0)));
    const x = Array.from({ length: last + 1 }, (_, i) => i);
    const series = [x];
    for (const r of runs) {
      const val = new Array(x.length).fill(null), train = new Array(x.length).fill(null);
      r.val.step.forEach((s, i) => { val[s] = r.val.loss[i]; });
      r.train.step.forEach((s, i) => { train[s] = Number.isFinite(r.train.loss[i]) ? r.train.loss[i] : null; });
      series.push(val, train);
    }
    if (baseline) series.push(x.map(() => baseline));
    this.render(key, series, runs.length ? () => this.options(runs, !!baseline) : null);
    this.describe(runs);
  }

  options(runs, withBaseline) {
    const series = [{ label: 'step' }];
    runs.forEach((r, i) => {
      const { stroke, dash } = seriesStyle(i);
      series.push({ label: `${r.label} validation`, stroke, width: 2.5, dash, spanGaps: true,
        points: { show: true, size: 6, fill: stroke }, value: threeDecimals });
      series.push({ label: `${r.label} training`, stroke: `${stroke}88`, width: 1, dash, spanGaps: true,
        points: { show: false }, value: threeDecimals });
    });
    if (withBaseline) series.push({ label: 'unigram baseline', stroke: '#777', width: 1.5, dash: [4, 4], points: { show: false },
      value: threeDecimals });
    return {
      width: this.width(), height: SIZE.height,
      scales: { x: { time: false } },
      axes: [{ label: 'training step' }, { label: 'loss (nats per character)' }],
      series,
      cursor: { drag: { x: true, y: false } },  // drag across to zoom in on the tail; double-click zooms out
    };
  }

  // the text alternative: the chart's label, and a table of the validation losses
  describe(runs) {
    const parts = runs.map((r) => {
      const n = r.val.loss.length;
      return n ? `${r.label}: validation loss ${r.val.loss[n - 1].toFixed(3)} at step ${r.val.step[n - 1]}` : `${r.label}: not measured yet`;
    });
    this.root.setAttribute('aria-label', runs.length ? `Loss curves. ${parts.join('; ')}.` : 'Loss curves: no run yet.');
    const steps = [...new Set(runs.flatMap((r) => r.val.step))].sort((a, b) => a - b);
    const head = el('tr', {}, el('th', { scope: 'col' }, 'step'), ...runs.map((r) => el('th', { scope: 'col' }, r.label)));
    const body = el('tbody');
    for (const s of steps) {
      body.append(el('tr', {}, el('th', { scope: 'row' }, String(s)), ...runs.map((r) => {
        const i = r.val.step.indexOf(s);
        return el('td', {}, i >= 0 ? r.val.loss[i].toFixed(3) : '');
      })));
    }
    this.valuesRoot.replaceChildren(el('table', {}, el('caption', {}, 'Validation loss (nats per character) by step'),
      el('thead', {}, head), body));
  }
}
