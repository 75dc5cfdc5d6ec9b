// Head pruning, drawn: the validation loss against the heads remaining (one line per seed, their mean, the threshold
// line), the core's verdict in a sentence, and every value as text: the curve table (loss per seed, mean, rise with
// its interval, per number of heads off) and the importance table (each head's importance and rank, per seed).
import { el, table } from './dom.js';
import { seriesStyle } from './series_style.js';
import { threeDecimals, UPlotChart } from './uplot_chart.js';

const SIZE = { height: 260, minWidth: 260 };  // px
const MEAN = { stroke: '#000000', width: 3 };
const GUIDE_COLOUR = '#777';

// "+0.123", "−0.004", "0.000" (no sign on what rounds to zero); an infinite end (one seed) as "−∞" or "+∞"
function signed(v) {
  if (!Number.isFinite(v)) return v < 0 ? '−∞' : '+∞';
  const three = Math.abs(v).toFixed(3);
  return three === '0.000' ? three : `${v < 0 ? '−' : '+'}${three}`;
}

class PruningChart extends UPlotChart {
  /** @param {HTMLElement} root */
  constructor(root) {
    super(root, SIZE);
  }

  /**
   * @param {import('../pruning.js').PruningCurve[]} curves (S)
   * @param {import('../engine.js').PruningVerdict} verdict
   */
  update(curves, verdict) {
    const n = verdict.L * verdict.H;
    const remaining = Array.from({ length: n + 1 }, (_, x) => x);  // x = heads remaining, ascending: k = n − x
    const at = (loss) => remaining.map((x) => loss[n - x]);
    const guide = verdict.meanLoss[0] + verdict.threshold;
    const key = curves.map((c) => c.label).join('|') + `|${n}`;
    const data = [remaining, ...curves.map((c) => at(c.loss)), at(verdict.meanLoss), remaining.map(() => guide)];
    this.render(key, data, () => ({
      width: this.width(), height: SIZE.height,
      scales: { x: { time: false } },
      axes: [{ label: 'heads remaining' }, { label: 'validation loss (nats)' }],
      series: [
        { label: 'heads remaining' },
        ...curves.map((c, i) => ({ label: c.label, ...seriesStyle(i + 1), width: 1.5, points: { show: false }, value: threeDecimals })),
        { label: 'mean', ...MEAN, points: { show: true }, value: threeDecimals },
        { label: `threshold: mean as trained + ${verdict.threshold}`, stroke: GUIDE_COLOUR, width: 1.5, dash: [4, 4],
          points: { show: false }, value: threeDecimals },
      ],
    }));
    this.root.setAttribute('aria-label', `Validation loss against heads remaining, ${curves.length} seed` +
      `${curves.length === 1 ? '' : 's'}: the mean is ${verdict.meanLoss[0].toFixed(3)} with all ${n} heads, ` +
      `${verdict.meanLoss[n].toFixed(3)} with none; threshold ${guide.toFixed(3)}. The table below lists every value.`);
  }
}

export class PruningView {
  /**
   * @param {{chart: HTMLElement, verdict: HTMLElement, curveTable: HTMLElement, importanceTable: HTMLElement}} roots
   *   chart: an empty container (role="img"); the others empty blocks; the view owns their content
   */
  constructor(roots) {
    this.roots = roots;
    this.chart = new PruningChart(roots.chart);
  }

  /** nothing measured (yet): empty chart and tables */
  clear() {
    this.roots.verdict.textContent = '';
    this.roots.curveTable.replaceChildren();
    this.roots.importanceTable.replaceChildren();
    this.chart.render('', [[]], null);
    this.roots.chart.setAttribute('aria-label', 'Validation loss against heads remaining: not measured yet.');
  }

  /**
   * @param {{curves: import('../pruning.js').PruningCurve[], verdict: import('../engine.js').PruningVerdict}} data
   *   curves (S) in the verdict's order
   */
  update({ curves, verdict }) {
    const n = verdict.L * verdict.H;
    this.roots.verdict.textContent = verdict.sentence;
    this.roots.verdict.dataset.outcome = verdict.outcome;
    this.chart.update(curves, verdict);

    const tau = verdict.threshold;
    const rows = [];
    for (let k = 0; k <= n; ++k) {
      const r = verdict.rise[k];
      const sure = k === 0 || r.high < tau ? 'below' : r.low > tau ? 'above' : 'cannot tell';
      rows.push([String(k), String(n - k), ...curves.map((c) => c.loss[k].toFixed(3)), verdict.meanLoss[k].toFixed(3),
        k === 0 ? '0' : `${signed(r.mean)} (${signed(r.low)} to ${signed(r.high)})`, sure]);
    }
    this.roots.curveTable.replaceChildren(table(
      `Validation loss with k heads switched off, least important first (each seed in its own order), per seed and ` +
      `their mean; the rise over the loss as trained, its mean and 95% t-interval over the seeds, and whether it is ` +
      `surely below ${tau} nats.`,
      ['heads off', 'heads remaining', ...curves.map((c) => c.label), 'mean', 'rise (95% t-interval)', `rise < ${tau}?`],
      rows, { label: 'Validation loss by heads switched off', stack: true }));

    // importance per head (layer-major) and seed, with its rank (1: switched off first)
    const ranks = curves.map((c) => {
      const rank = new Array(n);
      c.order.forEach((i, j) => { rank[i] = j + 1; });
      return rank;
    });
    const heads = [];
    for (let i = 0; i < n; ++i) {
      heads.push([`layer ${Math.floor(i / verdict.H)}, head ${i % verdict.H}`,
        ...curves.map((c, s) => `${signed(c.importance[i])} (#${ranks[s][i]})`)]);
    }
    this.roots.importanceTable.replaceChildren(table(
      'Importance of each head: the rise of the validation loss (nats) when that head alone is switched off, on the ' +
      'model as trained; in brackets the order in which pruning switches it off (#1 first: the least important).',
      ['head', ...curves.map((c) => c.label)], heads, { label: 'Importance of each head', stack: true }),
    el('p', { class: 'muted' }, `${n} heads: ${verdict.L} layer${verdict.L === 1 ? '' : 's'} of ${verdict.H}.`));
  }
}
