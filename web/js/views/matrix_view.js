// A small matrix drawn with its numbers: an HTML table (readable by screen readers as it is), optionally shaded
// with viridis (attention weights, 0 … 1), optionally editable (a number input per cell).
import { inkOn, viridis } from '../colormap.js';
import { el } from './dom.js';

const SETTINGS = {
  digits: 3,          // decimals shown
  maxAbs: 1e6,        // the core refuses larger inputs; the inputs say so first
};

/**
 * A number as the page prints it: -∞ for the mask, trailing zeros kept so columns line up.
 * @param {number} v
 * @param {number} [digits]
 * @returns {string}
 */
export function fmt(v, digits = SETTINGS.digits) {
  if (v === -Infinity) return '−∞';
  if (Number.isNaN(v)) return '–';
  const s = v.toFixed(digits);
  return (s.startsWith('-') && Number(s) === 0 ? s.slice(1) : s).replace('-', '−');
}

export class MatrixView {
  /**
   * @param {HTMLElement} root an empty container; the view owns its content
   * @param {{title: string, note?: string, rows: string[], cols: string[], shade?: boolean, editable?: boolean,
   *          onEdit?: (values: number[]) => void, digits?: number}} settings
   *   rows/cols: labels; shade: viridis background for values in 0 … 1; editable: number inputs, onEdit gets the
   *   row-major values after each valid edit
   */
  constructor(root, settings) {
    this.root = root;
    this.settings = settings;
    this.values = [];
    this.table = el('table', { class: `matrix${settings.editable ? ' editable' : ''}` });
    const head = el('figcaption', { class: 'matrix-title' }, settings.title);
    if (settings.note) head.append(el('span', { class: 'muted' }, ` ${settings.note}`));
    // the cells typed in that are not used, and why: index -> sentence (an editable matrix never drops input silently)
    this.rejected = new Map();
    this.rejectedNote = el('p', { class: 'alert cell-alert', role: 'alert', hidden: true });
    root.append(el('figure', { class: 'matrix-figure' }, head, el('div', { class: 'table-scroll' }, this.table), this.rejectedNote));
  }

  /**
   * @param {ArrayLike<number>} values (rows, cols) row-major
   */
  update(values) {
    const { rows, cols, shade, editable, digits } = this.settings;
    this.values = Array.from(values);
    if (editable && this.table.rows.length === rows.length + 1) {
      // keep the inputs (and the focus); only refresh values the user is not typing in
      this.table.querySelectorAll('input').forEach((inp, i) => {
        if (document.activeElement === inp) return;
        inp.value = String(this.values[i]);
        inp.setAttribute('aria-invalid', 'false');
        this.rejected.delete(i);
      });
      this.showRejected();
      return;
    }
    this.rejected.clear();
    this.showRejected();
    const thead = el('tr', {}, el('th', { scope: 'col', class: 'corner' }, ''));
    for (const c of cols) thead.append(el('th', { scope: 'col' }, c));
    const body = el('tbody');
    rows.forEach((r, i) => {
      const tr = el('tr', {}, el('th', { scope: 'row' }, r));
      cols.forEach((c, j) => {
        const v = this.values[i * cols.length + j];
        if (editable) {
          const inp = el('input', { type: 'number', step: 'any', value: String(v), 'aria-label': `${this.settings.title} row ${r} column ${c}` });
          inp.addEventListener('input', () => this.onInput(inp, i * cols.length + j));
          tr.append(el('td', {}, inp));
          return;
        }
        const td = el('td', {}, fmt(v, digits));
        if (shade && Number.isFinite(v)) {
          const [R, G, B] = viridis(v);
          td.style.background = `rgb(${R},${G},${B})`;
          td.style.color = inkOn(R, G, B);
        }
        if (v === -Infinity) td.classList.add('masked');
        tr.append(td);
      });
      body.append(tr);
    });
    this.table.replaceChildren(el('thead', {}, thead), body);
  }

  onInput(inp, index) {
    const raw = inp.value.trim();
    const v = raw === '' ? NaN : Number(raw);
    const why = raw === '' ? 'the cell is empty'
      : !Number.isFinite(v) ? 'it is not a number'
        : Math.abs(v) > SETTINGS.maxAbs ? `it is beyond ±${SETTINGS.maxAbs.toLocaleString('en-US')}, the largest the core takes` : '';
    inp.setAttribute('aria-invalid', String(Boolean(why)));
    if (why) {
      const { rows, cols, title } = this.settings;
      const at = `${title}, row ${rows[Math.floor(index / cols.length)]}, column ${cols[index % cols.length]}`;
      this.rejected.set(index, `${at}: “${raw}” is not used because ${why}; the steps below still use ${fmt(this.values[index])}.`);
    } else {
      this.rejected.delete(index);
      this.values[index] = v;
      this.settings.onEdit?.([...this.values]);
    }
    this.showRejected();
  }

  showRejected() {
    this.rejectedNote.textContent = [...this.rejected.values()].join(' ');
    this.rejectedNote.hidden = this.rejected.size === 0;
  }
}
