// Layers × heads grid of small attention heatmaps. Each map is a T×T canvas drawn pixel by pixel (ImageData, one
// putImageData per head) and scaled up by CSS without smoothing, so a refresh of 16 maps costs well under a
// millisecond. Every map is a button: Enter or a click chooses it for the large view. Labels are text, never colour.
import { VIRIDIS_LUT } from '../colormap.js';
import { el } from './dom.js';

const SETTINGS = {
  masked: [238, 240, 243],   // the pale grey of masked (future) cells, as in the large heatmap
  minColumn: 84,             // px: narrowest map
};

export class HeadGridView {
  /**
   * @param {HTMLElement} root an empty container; the view owns its content
   * @param {{onSelect: (layer: number, head: number) => void}} settings
   */
  constructor(root, settings) {
    this.root = root;
    this.settings = settings;
    this.shape = '';
    this.cells = [];
    this.selected = { layer: 0, head: 0 };
  }

  /**
   * @param {{L: number, H: number, T: number, att: Float32Array, labels: string[], ablated: Set<string>,
   *          tied: boolean}} data att (L,H,T,T); labels (L*H) automatic labels; ablated holds 'l,h' keys
   */
  update(data) {
    const { L, H, T, att, labels, ablated } = data;
    const shape = `${L},${H}`;
    if (shape !== this.shape) this.build(L, H);
    this.shape = shape;
    if (this.selected.layer >= L || this.selected.head >= H) this.selected = { layer: 0, head: 0 };
    const TT = T * T;
    for (let l = 0; l < L; ++l)
      for (let h = 0; h < H; ++h) {
        const cell = this.cells[l * H + h];
        const off = ablated.has(`${l},${h}`);
        drawMap(cell.canvas, att.subarray((l * H + h) * TT, (l * H + h + 1) * TT), T);
        cell.label.textContent = off ? 'switched off' : labels[l * H + h];
        cell.button.classList.toggle('off', off);
        cell.button.setAttribute('aria-label', `Layer ${l}, head ${h}: ${off ? 'switched off, ' : ''}${labels[l * H + h]}${data.tied ? ' (heads tied)' : ''}. Show it large.`);
        cell.button.setAttribute('aria-pressed', String(l === this.selected.layer && h === this.selected.head));
      }
  }

  build(L, H) {
    this.cells = [];
    const grid = el('div', { class: 'head-grid-inner', role: 'group', 'aria-label': `${L} layers × ${H} heads` });
    grid.style.gridTemplateColumns = `max-content repeat(${H}, minmax(44px, ${Math.round(SETTINGS.minColumn * 1.6)}px))`;
    grid.append(el('span', { class: 'corner' }, ''));
    for (let h = 0; h < H; ++h) grid.append(el('span', { class: 'col-head' }, `head ${h}`));
    for (let l = 0; l < L; ++l) {
      grid.append(el('span', { class: 'row-head' }, `layer ${l}`));
      for (let h = 0; h < H; ++h) {
        const canvas = el('canvas', { class: 'thumb', 'aria-hidden': 'true' });
        const label = el('span', { class: 'thumb-label' });
        const button = el('button', { type: 'button', class: 'thumb-button', 'data-layer': l, 'data-head': h }, canvas, label);
        button.addEventListener('click', () => {
          this.selected = { layer: l, head: h };
          this.cells.forEach((c, i) => c.button.setAttribute('aria-pressed', String(i === l * H + h)));
          this.settings.onSelect(l, h);
        });
        grid.append(button);
        this.cells.push({ canvas, label, button });
      }
    }
    this.root.replaceChildren(grid);
  }
}

// att (T,T) -> a T×T canvas: viridis for seen keys, grey for masked ones
function drawMap(canvas, att, T) {
  if (canvas.width !== T) canvas.width = canvas.height = T;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(T, T);
  const d = img.data;
  for (let t = 0; t < T; ++t)
    for (let s = 0; s < T; ++s) {
      const p = 4 * (t * T + s);
      if (s > t) {
        [d[p], d[p + 1], d[p + 2]] = SETTINGS.masked;
      } else {
        const i = 3 * Math.round(255 * Math.min(1, Math.max(0, att[t * T + s] || 0)));
        d[p] = VIRIDIS_LUT[i];
        d[p + 1] = VIRIDIS_LUT[i + 1];
        d[p + 2] = VIRIDIS_LUT[i + 2];
      }
      d[p + 3] = 255;
    }
  ctx.putImageData(img, 0, 0);
}
