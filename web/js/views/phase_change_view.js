// The induction phase change of one run on one chart (uPlot, two scales): the loss on the repeated copy (left axis,
// nats) and the best last-layer induction score (right axis, 0 to 1) over training steps, the threshold and the
// drop's mark (a quarter of the first copy's loss) as dashed lines, and the crossing and the drop as vertical lines. Below it the core's sentence, and every plotted value as a
// table (the chart's text alternative). The view draws what it is given: the steps come from the core
// (core/lab/phase_change.hpp through engine.js phaseChange).
import { seriesStyle } from './series_style.js';
import { threeDecimals, UPlotChart } from './uplot_chart.js';
import { count, el, table } from './dom.js';

const SIZE = { height: 240, minWidth: 260 };  // px
const COLOURS = { loss: seriesStyle(1), score: seriesStyle(0), guide: '#777', cross: '#0072B2', drop: '#D55E00' };
const MARK_DASH = { cross: [6, 4], drop: [2, 3] };

/**
 * @typedef {{step: number[], score: number[], lossFirst: number[], lossRepeat: number[]}} Series
 *   the 2-layer model's measurements (n each)
 * @typedef {{crossStep: number, dropStep: number, threshold: number, dropFraction: number, sentence: string}} Marks
 *   the core's phase change (−1: never); the drop's mark is dropFraction × the first copy's loss
 */

export class PhaseChangeView extends UPlotChart {
  /**
   * @param {HTMLElement} root an empty container; the view owns its content (the chart, the sentence, the table)
   */
  constructor(root) {
    const chart = el('div', { class: 'chart', role: 'img', 'aria-label': 'The phase change: no run yet.' });
    super(chart, SIZE);
    this.sentence = el('p', { class: 'phase-sentence', 'aria-live': 'polite' });
    this.values = el('div', { class: 'table-scroll' });
    const details = el('details', { class: 'phase-values' }, el('summary', {}, 'The values as a table'), this.values);
    root.replaceChildren(chart, this.sentence, details);
    /** @type {Marks | null} read by the draw hook, so new marks need no new plot */
    this.marks = null;
  }

  /**
   * @param {{series: Series, marks: Marks | null, error?: string}} data marks null: nothing measured yet or the
   *   core refused the series (error says why)
   */
  update({ series, marks, error = '' }) {
    this.marks = marks;
    const n = series.step.length;
    const threshold = marks?.threshold ?? null;
    const mark = series.lossFirst.map((v) => (marks ? marks.dropFraction * v : null));
    const data = [series.step, series.lossRepeat, series.score, series.step.map(() => threshold), mark];
    this.render('phase', data, n ? () => this.options() : null);
    this.plot?.redraw(false, false);  // the marks may have moved with the same data
    this.sentence.textContent = error || (marks ? marks.sentence : '');
    this.describe(series, marks);
    this.values.replaceChildren(n ? table(
      'Every measurement of the 2-layer model: the best layer-1 induction score and the losses on both copies (nats).',
      ['step', 'induction score', 'loss on the repeat', 'loss on the first copy'],
      series.step.map((s, i) => [count(s), series.score[i].toFixed(3), series.lossRepeat[i].toFixed(3), series.lossFirst[i].toFixed(3)]),
      { class: 'scores-table phase-table', label: 'The phase change, values', stack: true }) : '');
  }

  options() {
    const line = (label, scale, { stroke, dash }) => ({ label, scale, stroke, dash, width: 2, spanGaps: true, points: { show: false }, value: threeDecimals });
    return {
      width: this.width(), height: SIZE.height,
      scales: { x: { time: false }, loss: { range: (u, lo, hi) => [0, Math.max(hi ?? 1, 0.5) * 1.05] }, score: { range: [0, 1] } },
      axes: [
        { label: 'training step' },
        { scale: 'loss', label: 'loss on the repeat (nats)' },
        { scale: 'score', label: 'induction score', side: 1, grid: { show: false } },
      ],
      series: [
        { label: 'step' },
        line('loss on the repeat', 'loss', COLOURS.loss),
        line('best induction score', 'score', COLOURS.score),
        { label: 'threshold', scale: 'score', stroke: COLOURS.guide, width: 1.5, dash: [4, 4], points: { show: false }, value: threeDecimals },
        { label: 'a quarter of the first copy', scale: 'loss', stroke: COLOURS.loss.stroke, width: 1, dash: [1, 3], points: { show: false }, value: threeDecimals },
      ],
      hooks: { draw: [(u) => this.drawMarks(u)] },
    };
  }

  // the crossing and the drop: vertical lines across the plot, each labelled at its top
  drawMarks(u) {
    const m = this.marks;
    if (!m) return;
    const { ctx } = u;
    const { left, top, width, height } = u.bbox;
    /** @type {Array<[string, number, string]>} kind, step, label */
    const all = [['cross', m.crossStep, 'score crossed'], ['drop', m.dropStep, 'loss dropped']];
    const marks = all.filter(([, s]) => s >= 0);
    ctx.save();
    ctx.font = `${Math.round(11 * devicePixelRatio)}px sans-serif`;
    ctx.lineWidth = 1.5 * devicePixelRatio;
    marks.forEach(([kind, step, label], i) => {
      const x = Math.round(u.valToPos(step, 'x', true));
      if (x < left || x > left + width) return;
      ctx.strokeStyle = ctx.fillStyle = COLOURS[kind];
      ctx.setLineDash(MARK_DASH[kind].map((d) => d * devicePixelRatio));
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      // labels on alternate rows, on the side with room, so that two marks at nearby steps stay readable
      const text = `${label} (${count(step)})`;
      const w = ctx.measureText(text).width;
      const gap = 6 * devicePixelRatio;
      const tx = x + gap + w > left + width ? x - gap - w : x + gap;
      ctx.fillText(text, tx, top + (12 + i * 14) * devicePixelRatio);
    });
    ctx.restore();
  }

  // the chart's label: where both curves start and end, and the marks
  describe(series, marks) {
    const n = series.step.length;
    if (!n) {
      this.root.setAttribute('aria-label', 'The phase change: no run yet.');
      return;
    }
    const at = (i) => `step ${count(series.step[i])}: score ${series.score[i].toFixed(2)}, loss on the repeat ${series.lossRepeat[i].toFixed(2)} nats`;
    this.root.setAttribute('aria-label', `The phase change of the 2-layer model, ${n} measurements; ${at(0)}; ${at(n - 1)}.` +
      (marks ? ` ${marks.sentence}` : ''));
  }
}
