// Loss curves of settings trained over several seeds (the heads panel), on one set of axes (uPlot): per setting, the
// mean validation loss over its seeds as a thick line with points, a band from the lowest to the highest seed, and
// the mean training loss of each step's batch as a thin line; a dashed unigram baseline. Settings differ by colour
// AND dash pattern. The legend names one entry per setting (its value: the mean and the seeds' range at the cursor)
// and the baseline; the band edges and training lines stay out of it (the caption explains them).
import { summariseCurves } from '../curve_math.js';
import { el } from './dom.js';
import { seriesStyle } from './series_style.js';
import { threeDecimals, UPlotChart } from './uplot_chart.js';

export const SIZE = { height: 300, minWidth: 280 };  // px
export const AUX = 'aux-series';  // class of the series the legend leaves out (style.css)
export const ALPHA = { band: '2e', edge: '66', train: '88' };  // hex alpha appended to a setting's colour

/**
 * @typedef {{train: {step: number[], loss: number[]}, val: {step: number[], loss: number[]}}} Curve  one run
 * @typedef {{label: string, seeds: number, runs: Curve[], grid?: number[]}} Group  one setting: its planned seeds,
 *   the runs so far, and the steps its validation curves are read at (the schedule's evaluation steps; without it,
 *   the steps each run measured at)
 */

// uPlot cursor.dataIdx: the index of series si's value nearest to index i (i itself when it has one)
export function nearestPoint(u, si, i) {
  const d = u.data[si];
  if (d[i] != null) return i;
  for (let k = 1; k < d.length; ++k) {
    if (i - k >= 0 && d[i - k] != null) return i - k;
    if (i + k < d.length && d[i + k] != null) return i + k;
  }
  return i;
}

export class SeedCurvesView extends UPlotChart {
  /**
   * @param {HTMLElement} root an empty container (role="img"); the view owns its content
   * @param {{valuesRoot: HTMLElement, height?: number}} settings where the text alternative (a table of validation
   *   losses) goes; the chart's height in px (default SIZE.height; smaller for small multiples)
   */
  constructor(root, settings) {
    const size = { ...SIZE, height: settings.height ?? SIZE.height };
    super(root, size);
    this.valuesRoot = settings.valuesRoot;
  }

  /**
   * @param {{groups: Group[], baseline: number|null, baselineLabel?: string, unit?: string}} data baselineLabel: what
   *   the baseline is ('unigram baseline' by default; the offsets task's is a uniform guess); unit: what the loss is
   *   counted per ('character' by default; the offsets task predicts a token per position)
   */
  update({ groups, baseline, baselineLabel = 'unigram baseline', unit = 'character' }) {
    this.unit = unit;
    const key = groups.map((g) => `${g.label}×${g.seeds}`).join('|') + (baseline ? `|${baselineLabel}` : '') + `|${unit}`;
    const runs = groups.flatMap((g) => g.runs);
    const last = Math.max(1, ...runs.map((r) => Math.max(r.train.step.at(-1) ?? 0, r.val.step.at(-1) ?? 0)));
    const X = last + 1;
    const x = Array.from({ length: X }, (_, i) => i);
    const series = [x];
    const val = groups.map((g) => summariseCurves(g.runs.map((r) => r.val), X, g.grid));
    groups.forEach((g, i) => {
      const train = summariseCurves(g.runs.map((r) => r.train), X);
      series.push(val[i].mean, val[i].max, val[i].min, train.mean);
    });
    if (baseline) series.push(x.map(() => baseline));
    this.render(key, series, groups.length ? () => this.options(groups, baseline ? baselineLabel : null) : null);
    this.describe(groups, val);
  }

  // per group four series: mean validation (in the legend), highest and lowest seed (the band's edges), mean training
  options(groups, baselineLabel) {
    const series = [{ label: 'step' }];
    const bands = [];
    groups.forEach((g, i) => {
      const { stroke, dash } = seriesStyle(i);
      const at = series.length;  // index of this group's mean validation series
      const several = g.seeds > 1;
      series.push({ label: several ? `${g.label}, mean of ${g.seeds} seeds` : `${g.label} validation`, stroke, width: 2.5,
        dash, spanGaps: true, points: { show: true, size: 6, fill: stroke },
        value: (u, v, si, idx) => (v == null || !several || idx == null ? threeDecimals(u, v)
          : `${v.toFixed(3)} (${u.data[at + 2][idx].toFixed(3)}–${u.data[at + 1][idx].toFixed(3)})`) });
      for (const edge of ['highest', 'lowest']) {
        series.push({ label: `${g.label} ${edge} seed`, class: AUX, stroke: `${stroke}${ALPHA.edge}`, width: 1,
          spanGaps: true, points: { show: false }, value: threeDecimals });
      }
      series.push({ label: `${g.label} training`, class: AUX, stroke: `${stroke}${ALPHA.train}`, width: 1, dash,
        spanGaps: true, points: { show: false }, value: threeDecimals });
      bands.push({ series: [at + 1, at + 2], fill: `${stroke}${ALPHA.band}` });
    });
    if (baselineLabel) series.push({ label: baselineLabel, stroke: '#777', width: 1.5, dash: [4, 4], points: { show: false },
      value: threeDecimals });
    return {
      width: this.width(), height: this.size.height,
      scales: { x: { time: false } },
      axes: [{ label: 'training step' }, { label: `loss (nats per ${this.unit})` }],
      series,
      bands,
      // drag across to zoom in on the tail; double-click zooms out. The legend shows each series at its measurement
      // nearest to the cursor (validation is measured every few steps only)
      cursor: { drag: { x: true, y: false }, dataIdx: nearestPoint },
    };
  }

  // the text alternative: the chart's label, and a table of the validation losses (mean and range over the seeds)
  describe(groups, val) {
    const at = (v) => (v === null ? '' : v.toFixed(3));
    const cell = (summary, s) => (summary.n[s] > 1 ? `${at(summary.mean[s])} (${at(summary.min[s])}–${at(summary.max[s])})`
      : at(summary.mean[s]));
    const parts = groups.map((g, i) => {
      const s = val[i].n.findLastIndex((k) => k > 0);
      if (s < 0) return `${g.label}: not measured yet`;
      const n = val[i].n[s];
      return n > 1
        ? `${g.label}: mean validation loss ${at(val[i].mean[s])} over ${n} seeds (${at(val[i].min[s])} to ${at(val[i].max[s])}) at step ${s}`
        : `${g.label}: validation loss ${at(val[i].mean[s])} at step ${s}`;
    });
    this.root.setAttribute('aria-label', groups.length ? `Loss curves. ${parts.join('; ')}.` : 'Loss curves: no run yet.');
    const steps = val[0].n.map((_, s) => s).filter((s) => val.some((v) => v.n[s] > 0));
    const head = el('tr', {}, el('th', { scope: 'col' }, 'step'), ...groups.map((g) => el('th', { scope: 'col' }, g.label)));
    const body = el('tbody');
    for (const s of steps) {
      body.append(el('tr', {}, el('th', { scope: 'row' }, String(s)), ...val.map((v) => el('td', {}, cell(v, s)))));
    }
    this.valuesRoot.replaceChildren(el('table', {},
      el('caption', {}, `Validation loss (nats per ${this.unit}) by step: the mean over the seeds, their range in brackets ` +
        '(a seed measured a few steps off is read off its curve)'),
      el('thead', {}, head), body));
  }
}
