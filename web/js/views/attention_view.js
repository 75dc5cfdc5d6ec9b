// Attention panel: a colour legend and one HeatmapView per head, in a grid that redraws on resize.
import { viridisGradient } from '../colormap.js';
import { el } from './dom.js';
import { HeatmapView } from './heatmap_view.js';

const SETTINGS = {
  minColumn: 220,    // px: narrowest heatmap column of the grid
  perToken: 6,       // px per token a column asks for, so long sentences get wider (and fewer) columns
  labelRoom: 60,     // px for the query labels
  gap: 20,           // px between columns (matches the CSS column gap)
};

export class AttentionView {
  /**
   * @param {HTMLElement} root an empty container for the heatmaps; the view owns its content
   * @param {{legendRoot: HTMLElement}} settings an empty container for the colour legend
   */
  constructor(root, settings) {
    this.root = root;
    this.data = null;
    /** @type {HeatmapView[]} */
    this.maps = [];
    this.legend = attentionLegend();
    this.grid = el('div', { class: 'heatmap-grid' });
    this.empty = el('p', { class: 'placeholder', hidden: true });
    settings.legendRoot.append(this.legend);
    root.append(this.grid, this.empty);
    let pending = 0;
    this.width = 0;
    new ResizeObserver(() => {
      if (this.grid.clientWidth === this.width) return;
      this.width = this.grid.clientWidth;
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => {
        this.arrange();
        this.maps.forEach((m) => m.draw());
      });
    }).observe(this.grid);
  }

  /**
   * @param {{tokens: string[], T: number, nHeads: number, att: Float32Array} | null} data
   *   att (H,T,T) from engine.attentionDemo (ok); null removes the heatmaps
   * @param {string} [emptyText] what to say instead of the heatmaps when data is null
   */
  update(data, emptyText = '') {
    this.data = data;
    this.empty.hidden = !!data || !emptyText;
    this.empty.textContent = emptyText;
    this.legend.hidden = !data;
    if (!data) {
      this.maps = [];
      this.grid.replaceChildren();
      return;
    }
    const { tokens, T, nHeads: H, att } = data;
    if (this.maps.length !== H) {
      this.maps = [];
      this.grid.replaceChildren();
      for (let h = 0; h < H; ++h) {
        const fig = el('figure', { class: 'heatmap', 'data-head': h });
        this.grid.append(fig);
        this.maps.push(new HeatmapView(fig, { head: h, png: 'attention-random' }));
      }
    }
    this.arrange();
    this.maps.forEach((m, h) => m.update({ tokens, T, weights: att.subarray(h * T * T, (h + 1) * T * T) }));
  }

  // as many columns as fit, then balanced: 4 heads in 3 possible columns become 2 × 2, not 3 + 1
  arrange() {
    if (!this.data) return;
    const { T, nHeads: H } = this.data;
    const minColumn = Math.max(SETTINGS.minColumn, SETTINGS.labelRoom + T * SETTINGS.perToken);
    const fit = Math.max(1, Math.floor((this.grid.clientWidth + SETTINGS.gap) / (minColumn + SETTINGS.gap)));
    const rows = Math.ceil(H / fit);
    const columns = Math.ceil(H / rows);
    this.grid.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
  }
}

// viridis bar from 0 to 1, plus a swatch for masked cells (also used by the Look inside panel)
export function attentionLegend() {
  const ticks = el('div', { class: 'legend-ticks', 'aria-hidden': 'true' });
  for (const v of ['0', '0.25', '0.5', '0.75', '1']) ticks.append(el('span', {}, v));
  return el('div', { class: 'legend', role: 'group', 'aria-label': 'colour legend' },
    el('div', { class: 'legend-scale' },
      el('span', { class: 'legend-name' }, 'attention weight'),
      el('div', { class: 'legend-bar', style: `background: linear-gradient(to right, ${viridisGradient()})`,
        role: 'img', 'aria-label': 'colour scale from dark purple (0) through teal (0.5) to yellow (1)' }),
      ticks),
    el('p', { class: 'legend-note' },
      el('span', { class: 'swatch masked', 'aria-hidden': 'true' }), 'grey: masked (a later key)', el('br'),
      'each row sums to 1'));
}
