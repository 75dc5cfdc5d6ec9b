// The heads panel's second chart: each setting minus the first one, seed by seed (uPlot). Per setting after the first,
// the mean over the seeds of its validation loss minus the first setting's on the same seed, as a thick line with
// points, and a band from the lowest to the highest seed's difference; the first setting is the zero line. The
// differences are a hundredth of the losses, so on the losses' own axes (SeedCurvesView) the curves lie on top of
// each other; here they are the whole chart. The same colours and dashes as the losses chart (series_style.js).
import { pairedDifferences } from '../curve_math.js';
import { tickLabels } from './seed_words.js';
import { seriesStyle } from './series_style.js';
import { ALPHA, AUX, nearestPoint, SIZE } from './seed_curves_view.js';
import { UPlotChart } from './uplot_chart.js';

// "+0.012", "−0.004", "+0.000": a difference always with its sign (a real minus), as the chart's axis reads around
// its zero line (seed_words.js signed, for tables, writes an exact 0.000 without one)
const signed = (v) => `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(3)}`;

export class PairedDifferenceView extends UPlotChart {
  /** @param {HTMLElement} root an empty container (role="img"); the view owns its content */
  constructor(root) {
    super(root, SIZE);
  }

  /**
   * @param {{groups: Array<{label: string, seeds: number, runs: object[], grid?: number[]}>, unit?: string}} data the
   *   losses chart's groups: those with a grid (a planned comparison), the first the reference; unit as there
   * @returns {boolean} whether there is anything to compare (two settings or more)
   */
  update({ groups, unit = 'character' }) {
    const planned = groups.filter((g) => g.grid);
    const runs = planned.flatMap((g) => g.runs);
    if (planned.length < 2) {
      this.render('', [[]], null);
      this.root.setAttribute('aria-label', 'Differences to the first setting: none to show.');
      return false;
    }
    const last = Math.max(1, ...runs.map((r) => r.val.step.at(-1) ?? 0));
    const X = last + 1;
    const x = Array.from({ length: X }, (_, i) => i);
    const diffs = pairedDifferences(planned, X);
    const series = [x, x.map(() => 0)];
    for (const d of diffs) series.push(d.mean, d.max, d.min);
    const key = planned.map((g) => `${g.label}×${g.seeds}`).join('|') + `|${unit}`;
    this.render(key, series, () => this.options(planned, unit));
    this.describe(planned, diffs);
    return true;
  }

  options(groups, unit) {
    const reference = groups[0].label;
    /** @type {object[]} uPlot's series options */
    const series = [{ label: 'step' }, { label: `${reference} (the reference)`, stroke: seriesStyle(0).stroke, width: 1.5,
      dash: [4, 4], points: { show: false }, value: (u, v) => (v == null ? '–' : '0') }];
    const bands = [];
    groups.slice(1).forEach((g, k) => {
      const { stroke, dash } = seriesStyle(k + 1);
      const at = series.length;
      series.push({ label: `${g.label} − ${reference}${g.seeds > 1 ? `, mean of ${g.seeds} seeds` : ''}`, stroke, width: 2.5,
        dash, spanGaps: true, points: { show: true, size: 6, fill: stroke },
        value: (u, v, si, idx) => (v == null ? '–' : g.seeds > 1 && idx != null
          ? `${signed(v)} (${signed(u.data[at + 2][idx])} to ${signed(u.data[at + 1][idx])})` : signed(v)) });
      for (const edge of ['highest', 'lowest']) {
        series.push({ label: `${g.label} ${edge} seed`, class: AUX, stroke: `${stroke}${ALPHA.edge}`, width: 1,
          spanGaps: true, points: { show: false } });
      }
      bands.push({ series: [at + 1, at + 2], fill: `${stroke}${ALPHA.band}` });
    });
    return {
      width: this.width(), height: this.size.height,
      scales: { x: { time: false } },
      axes: [{ label: 'training step' }, { label: `minus ${reference} (nats per ${unit})`, size: 60, values: tickLabels }],
      series,
      bands,
      cursor: { drag: { x: true, y: false }, dataIdx: nearestPoint },
    };
  }

  // the text alternative: each setting's difference at its last step measured on every paired seed
  describe(groups, diffs) {
    const reference = groups[0].label;
    const parts = diffs.map((d, k) => {
      const label = `${groups[k + 1].label} − ${reference}`;
      const s = d.n.findLastIndex((n) => n > 0);
      if (s < 0) return `${label}: no paired seed measured yet`;
      return d.n[s] > 1 ? `${label}: ${signed(d.mean[s])} on average over ${d.n[s]} seeds (${signed(d.min[s])} to ${signed(d.max[s])}) at step ${s}`
        : `${label}: ${signed(d.mean[s])} at step ${s}`;
    });
    this.root.setAttribute('aria-label', `Differences in validation loss to ${reference}, seed by seed. ${parts.join('; ')}.`);
  }
}
