// The worked example's steps, each a MatrixView: per head the weight slices, Q, K, V, raw scores, scaled, masked,
// softmax and the head's output; then the concat, W_O and the layer's output.
import { el } from './dom.js';
import { MatrixView } from './matrix_view.js';

const letters = (n, prefix) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

export class WorkedView {
  /**
   * @param {HTMLElement} root an empty container; the view owns its content
   */
  constructor(root) {
    this.root = root;
    this.shape = '';
  }

  /**
   * @param {object} ex the result of engine.workedExample (ok): T, D, H, hs and the (row-major) arrays
   */
  update(ex) {
    const { T, D, H, hs } = ex;
    const shape = `${T},${D},${H}`;
    if (shape !== this.shape) this.build(T, D, H, hs);
    this.shape = shape;
    const per = (a, h, n) => a.subarray(h * n, (h + 1) * n);
    for (let h = 0; h < H; ++h) {
      const v = this.views.heads[h];
      v.wq.update(per(ex.wqH, h, D * hs));
      v.wk.update(per(ex.wkH, h, D * hs));
      v.wv.update(per(ex.wvH, h, D * hs));
      v.q.update(per(ex.q, h, T * hs));
      v.k.update(per(ex.k, h, T * hs));
      v.v.update(per(ex.v, h, T * hs));
      v.scores.update(per(ex.scores, h, T * T));
      v.scaled.update(per(ex.scaled, h, T * T));
      v.masked.update(per(ex.masked, h, T * T));
      v.att.update(per(ex.att, h, T * T));
      v.out.update(per(ex.heads, h, T * hs));
    }
    this.views.concat.update(ex.concat);
    this.views.wo.update(ex.wo);
    this.views.out.update(ex.out);
  }

  build(T, D, H, hs) {
    const pos = letters(T, 't'), ch = letters(D, 'c'), lane = letters(hs, 'j');
    const box = (cls) => el('div', { class: cls });
    const mv = (parent, title, rows, cols, extra = {}) => {
      const b = box('step-matrix');
      parent.append(b);
      return new MatrixView(b, { title, rows, cols, ...extra });
    };
    this.root.replaceChildren();
    this.views = { heads: [] };
    for (let h = 0; h < H; ++h) {
      const n = h;  // from 0, as every panel counts heads (the lesson's note above says how it counts)
      const sec = el('section', { class: 'head-steps', 'aria-label': `head ${n}` },
        el('h3', {}, `Head ${n} `, el('span', { class: 'muted' }, `channels ${h * hs}…${h * hs + hs - 1}, d_h = ${hs}`)));
      const row1 = box('step-row'), row2 = box('step-row'), row3 = box('step-row');
      sec.append(el('p', { class: 'step-label' }, '① the head’s slices of the weights (columns of W)'), row1,
        el('p', { class: 'step-label' }, '② Q = X W_Q, K = X W_K, V = X W_V'), row2,
        el('p', { class: 'step-label' }, `③ scores Q Kᵀ, scaled by 1/√${hs}, masked, softmax per row; ④ the head's output A V`), row3);
      this.root.append(sec);
      this.views.heads.push({
        wq: mv(row1, `W_Q${sup(n)}`, ch, lane), wk: mv(row1, `W_K${sup(n)}`, ch, lane), wv: mv(row1, `W_V${sup(n)}`, ch, lane),
        q: mv(row2, `Q${sup(n)}`, pos, lane), k: mv(row2, `K${sup(n)}`, pos, lane), v: mv(row2, `V${sup(n)}`, pos, lane),
        scores: mv(row3, `Q${sup(n)}K${sup(n)}ᵀ`, pos, pos, { note: 'raw' }),
        scaled: mv(row3, `÷ √${hs}`, pos, pos),
        masked: mv(row3, '+ mask', pos, pos, { note: '−∞ above the diagonal' }),
        att: mv(row3, `A${sup(n)} = softmax`, pos, pos, { shade: true, note: 'rows sum to 1' }),
        out: mv(row3, `head${sup(n)} = A${sup(n)}V${sup(n)}`, pos, lane),
      });
    }
    const last = box('step-row');
    this.root.append(el('section', { class: 'head-steps', 'aria-label': 'concat and output' },
      el('h3', {}, 'Concat, then W_O'),
      el('p', { class: 'step-label' }, '⑤ the heads side by side (the transpose back and view), then the output projection'), last));
    this.views.concat = mv(last, `concat(head${sup(0)} … head${sup(H - 1)})`, pos, ch);
    this.views.wo = mv(last, 'W_O', ch, ch);
    this.views.out = mv(last, 'output = concat · W_O', pos, ch);
  }
}

// superscript digits for head numbers
function sup(n) {
  return String(n).replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[d]);
}
