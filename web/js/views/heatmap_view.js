// One attention head as a labelled heatmap on a <canvas>: rows are query positions, columns are key
// positions, colour is the weight (viridis, 0 … 1), masked cells (a key after the query) are left blank.
// The canvas is keyboard operable (arrow keys move a cursor and the readout says the value), and a table of
// all values is built when its <details> is opened.
import { headColour, VIRIDIS_LUT } from '../colormap.js';
import { download, el } from './dom.js';

const SETTINGS = {
  font: '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  maxLabel: 96,      // px: longer tokens are shortened with …
  minCell: 4,        // px: below this the canvas scrolls sideways instead of shrinking (64 positions fit a phone)
  maxCell: 28,       // px
  gap: 6,            // px between labels and cells
  minFont: 10,       // px: labels never smaller (legible on a phone); thinned out instead, with the rule stated
  maxFont: 12,
  cornerTop: 32,     // px above the cells when key labels are horizontal: room for the axis names in the corner
  maskedFill: '#eef0f3',
  ink: '#1f2430',
  mutedInk: '#677085',
};

export class HeatmapView {
  /**
   * @param {HTMLElement} root an empty container; the view owns its content
   * @param {{head: number, title?: string, png?: string}} settings title defaults to 'head h'; png: offer a PNG
   *   download of the map, with this file name prefix
   */
  constructor(root, settings) {
    this.root = root;
    this.settings = { title: `head ${settings.head}`, ...settings };
    this.data = null;
    this.cursor = { t: 0, s: 0 };
    this.cursorShown = false;
    const h = settings.head;
    this.canvas = el('canvas', { role: 'img', tabindex: 0, class: 'heatmap-canvas', 'aria-label': `${this.settings.title}: nothing to show yet` });
    this.readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    this.tableBox = el('div', { class: 'table-scroll' });
    this.details = el('details', { class: 'values' }, el('summary', {}, `Values of ${this.settings.title} as a table`), this.tableBox);
    this.title = el('h3', { class: 'heatmap-title', style: `--head: ${headColour(h).fill}` }, this.settings.title);
    root.append(
      this.title,
      el('div', { class: 'canvas-scroll' }, this.canvas),
      (this.labelRule = el('p', { class: 'muted label-rule', hidden: true })),
      this.readout,
      this.details,
    );
    if (settings.png) {
      // export: this map as a PNG file
      const b = el('button', { type: 'button', class: 'link-button', 'data-control': 'export' }, 'Download PNG');
      // the visible words first in the name (WCAG 2.5.3), then which map
      b.setAttribute('aria-label', `Download PNG of ${this.settings.title}`);
      b.addEventListener('click', () => this.canvas.toBlob((blob) => blob && download(blob, `${settings.png}-${this.settings.title.replace(/[^\w]+/g, '-')}.png`)));
      this.details.before(el('p', { class: 'heatmap-tools' }, b));
    }
    this.details.addEventListener('toggle', () => this.details.open && this.buildTable());
    // a narrower or wider column (a phone turned, a window resized): the cells take the new width
    let drawnWidth = 0;
    new ResizeObserver(() => {
      if (!this.data || this.root.clientWidth === drawnWidth) return;
      drawnWidth = this.root.clientWidth;
      this.draw();
    }).observe(root);
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
    this.canvas.addEventListener('focus', () => { this.cursorShown = true; this.draw(); this.say(); });
    this.canvas.addEventListener('blur', () => { this.cursorShown = false; this.draw(); });
    this.canvas.addEventListener('mousemove', (e) => this.onPointer(e));
    this.canvas.addEventListener('mouseleave', () => { if (document.activeElement !== this.canvas) { this.cursorShown = false; this.draw(); } });
  }

  /**
   * @param {{tokens: string[], T: number, weights: Float32Array, title?: string, unit?: string,
   *          marks?: Array<[number, number]>, markLabel?: string, dividers?: number[]}} data weights (T,T)
   *   of this head, row = query t, column = key s; a view into the (H,T,T) array is fine, it is only read;
   *   title renames the map, unit names a position ('word' unless given, e.g. 'character');
   *   marks: cells [t, s] to outline (e.g. where an induction head should look), with markLabel saying what they
   *   are; dividers: positions p where a line is drawn before row p and column p (e.g. where a copy starts)
   */
  update(data) {
    this.data = data;
    const { T } = data;
    if (data.title && data.title !== this.settings.title) {
      this.settings.title = data.title;
      this.title.textContent = data.title;
      this.details.firstChild.textContent = `Values of ${data.title} as a table`;
    }
    this.cursor = { t: Math.min(this.cursor.t, T - 1), s: Math.min(this.cursor.s, T - 1) };
    this.canvas.setAttribute('aria-label',
      `Heatmap of ${this.settings.title}: attention weights of ${T} query ${data.unit ?? 'word'}s (rows) over ${T} key ${data.unit ?? 'word'}s (columns). ` +
      'Focus it and use the arrow keys to read single weights, or open the table below it.');
    this.readout.textContent = strongest(data);
    this.tableBox.replaceChildren();
    if (this.details.open) this.buildTable();
    this.draw();
  }

  // ---------------------------------------------------------------- drawing
  layout() {
    const { tokens, T } = this.data;
    const ctx = this.canvas.getContext('2d');
    ctx.font = SETTINGS.font;
    this.labels = tokens.map((w) => shorten(ctx, w, SETTINGS.maxLabel));
    const longest = Math.max(...this.labels.map((w) => ctx.measureText(w).width), ctx.measureText('query ↓').width);
    const label = Math.ceil(longest) + SETTINGS.gap;
    const width = Math.max(0, this.root.clientWidth) || 300;
    const cell = Math.max(SETTINGS.minCell, Math.min(SETTINGS.maxCell, Math.floor((width - label - 2) / T)));
    // labels: never below minFont; a label on every rowEvery-th row, every colEvery-th column, so they never touch.
    // Keys are written horizontally when they are short (characters, numbers), else rotated like the rows' spacing.
    const size = Math.max(SETTINGS.minFont, Math.min(SETTINGS.maxFont, cell - 1));
    ctx.font = `${size}px ${SETTINGS.fontFamily}`;
    const widest = Math.max(...this.labels.map((w) => ctx.measureText(w).width));
    const rowEvery = Math.max(1, Math.ceil((size + 1) / cell));
    const horizontal = widest <= 2 * size;
    const colEvery = horizontal ? Math.max(1, Math.ceil((widest + 3) / cell)) : rowEvery;
    const top = horizontal ? Math.max(SETTINGS.cornerTop, size + 2 * SETTINGS.gap) : label;
    return { label, top, cell, T, size, rowEvery, colEvery, horizontal };
  }

  draw() {
    if (!this.data) return;
    const L = (this.geom = this.layout());
    const { label, top, cell, T, size, rowEvery, colEvery, horizontal } = L;
    const { weights } = this.data;
    const cssW = label + T * cell + 1, cssH = top + T * cell + 1;
    const dpr = window.devicePixelRatio || 1;
    const c = this.canvas;
    c.width = Math.round(cssW * dpr);
    c.height = Math.round(cssH * dpr);
    c.style.width = `${cssW}px`;
    c.style.height = `${cssH}px`;
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);

    // cells: viridis for seen keys, a pale grey for masked ones
    for (let t = 0; t < T; ++t) {
      for (let s = 0; s < T; ++s) {
        if (s > t) {
          ctx.fillStyle = SETTINGS.maskedFill;
        } else {
          const v = weights[t * T + s];
          const i = 3 * Math.round(255 * Math.min(1, Math.max(0, v || 0)));
          ctx.fillStyle = `rgb(${VIRIDIS_LUT[i]},${VIRIDIS_LUT[i + 1]},${VIRIDIS_LUT[i + 2]})`;
        }
        ctx.fillRect(label + s * cell, top + t * cell, cell, cell);
      }
    }

    // labels: queries on the left, keys on top (horizontal when short, else rotated), thinned by layout()'s rule
    ctx.font = `${size}px ${SETTINGS.fontFamily}`;
    ctx.fillStyle = SETTINGS.ink;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let t = 0; t < T; t += rowEvery) ctx.fillText(this.labels[t], label - SETTINGS.gap, top + (t + 0.5) * cell);
    if (horizontal) {
      ctx.textAlign = 'center';
      ctx.textBaseline = 'bottom';
      for (let s = 0; s < T; s += colEvery) ctx.fillText(this.labels[s], label + (s + 0.5) * cell, top - SETTINGS.gap + 2);
    } else {
      ctx.save();
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'left';
      for (let s = 0; s < T; s += colEvery) ctx.fillText(this.labels[s], -(top - SETTINGS.gap), label + (s + 0.5) * cell);
      ctx.restore();
    }
    this.labelRule.hidden = rowEvery === 1 && colEvery === 1;
    const each = (k, what) => (k === 1 ? `every ${what}` : `every ${nth(k)} ${what}`);
    this.labelRule.textContent = this.labelRule.hidden ? '' : `Labels on ${each(rowEvery, 'row')} and ${each(colEvery, 'column')} ` +
      `(cells of ${cell} px); point at a cell, or focus the map and use the arrow keys, to read any.`;

    // axis names in the empty corner
    ctx.font = `11px ${SETTINGS.fontFamily}`;
    ctx.fillStyle = SETTINGS.mutedInk;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText('key →', label - SETTINGS.gap, top - SETTINGS.gap - 14);
    ctx.fillText('query ↓', label - SETTINGS.gap, top - SETTINGS.gap);

    // marked cells (dashed white over a dark edge, visible on every colour) and dividers
    for (const p of this.data.dividers ?? []) {
      ctx.strokeStyle = '#d81b60';
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(label + p * cell, top);
      ctx.lineTo(label + p * cell, top + T * cell);
      ctx.moveTo(label, top + p * cell);
      ctx.lineTo(label + T * cell, top + p * cell);
      ctx.stroke();
    }
    for (const [t, s] of this.data.marks ?? []) {
      const x = label + s * cell, y = top + t * cell;
      ctx.setLineDash([]);
      ctx.lineWidth = 1;
      ctx.strokeStyle = '#000';
      ctx.strokeRect(x + 0.5, y + 0.5, cell - 1, cell - 1);
      ctx.setLineDash([2, 2]);
      ctx.strokeStyle = '#fff';
      ctx.strokeRect(x + 1.5, y + 1.5, cell - 3, cell - 3);
      ctx.setLineDash([]);
    }

    if (this.cursorShown) {
      const x = label + this.cursor.s * cell, y = top + this.cursor.t * cell;
      ctx.lineWidth = 2;
      ctx.strokeStyle = '#000';
      ctx.strokeRect(x + 1, y + 1, cell - 2, cell - 2);
      ctx.strokeStyle = '#fff';
      ctx.lineWidth = 1;
      ctx.strokeRect(x + 2.5, y + 2.5, cell - 5, cell - 5);
    }
  }

  // ---------------------------------------------------------------- reading values
  say() {
    if (!this.data) return;
    const { tokens, T, weights } = this.data;
    const { t, s } = this.cursor;
    const q = `query “${tokens[t]}” (${t})`, k = `key “${tokens[s]}” (${s})`;
    const marked = (this.data.marks ?? []).some(([mt, ms]) => mt === t && ms === s);
    this.readout.textContent = s > t
      ? `${q} → ${k}: masked, a ${this.data.unit ?? 'word'} cannot look ahead.`
      : `${q} → ${k}: ${weights[t * T + s].toFixed(3)}${marked ? ` (${this.data.markLabel ?? 'marked'})` : ''}`;
  }

  onKey(e) {
    if (!this.data) return;
    const T = this.data.T;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    let { t, s } = this.cursor;
    if (moves[e.key]) {
      t += moves[e.key][0];
      s += moves[e.key][1];
    } else if (e.key === 'Home') s = 0;
    else if (e.key === 'End') s = t;
    else return;
    e.preventDefault();
    this.cursor = { t: clamp(t, 0, T - 1), s: clamp(s, 0, T - 1) };
    this.cursorShown = true;
    this.draw();
    this.say();
  }

  onPointer(e) {
    if (!this.data || !this.geom) return;
    const r = this.canvas.getBoundingClientRect();
    const { label, top, cell, T } = this.geom;
    const s = Math.floor((e.clientX - r.left - label) / cell), t = Math.floor((e.clientY - r.top - top) / cell);
    if (t < 0 || s < 0 || t >= T || s >= T) return;
    if (t === this.cursor.t && s === this.cursor.s && this.cursorShown) return;
    this.cursor = { t, s };
    this.cursorShown = true;
    this.draw();
    this.say();
  }

  buildTable() {
    if (!this.data || this.tableBox.firstChild) return;
    const { tokens, T, weights } = this.data;
    const head = el('tr', {}, el('th', { scope: 'col' }, 'query \\ key'));
    for (let s = 0; s < T; ++s) head.append(el('th', { scope: 'col' }, tokens[s]));
    const body = el('tbody');
    for (let t = 0; t < T; ++t) {
      const row = el('tr', {}, el('th', { scope: 'row' }, tokens[t]));
      for (let s = 0; s < T; ++s) row.append(el('td', {}, s > t ? '·' : weights[t * T + s].toFixed(2)));
      body.append(row);
    }
    this.tableBox.append(el('table', {},
      el('caption', {}, `${this.settings.title}: row = query ${this.data.unit ?? 'word'}, column = key ${this.data.unit ?? 'word'}; · = masked (future key).`),
      el('thead', {}, head), body));
  }
}

// the largest weight outside row 0 (whose only key is itself, so always 1), as a sentence
function strongest({ tokens, T, weights }) {
  if (T < 2) return 'One word: it can only attend to itself (weight 1).';
  let best = { t: 1, s: 0, v: -1 };
  for (let t = 1; t < T; ++t)
    for (let s = 0; s <= t; ++s) if (weights[t * T + s] > best.v) best = { t, s, v: weights[t * T + s] };
  return `Strongest: “${tokens[best.t]}” (${best.t}) → “${tokens[best.s]}” (${best.s}), ${best.v.toFixed(3)}`;
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

// the word, shortened with … to fit max px
// "2nd", "3rd", "4th", "11th", "21st"
function nth(k) {
  const tail = k % 100 >= 11 && k % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' })[k % 10] ?? 'th';
  return `${k}${tail}`;
}

function shorten(ctx, word, max) {
  if (ctx.measureText(word).width <= max) return word;
  let w = word;
  while (w.length > 1 && ctx.measureText(w + '…').width > max) w = w.slice(0, -1);
  return w + '…';
}
