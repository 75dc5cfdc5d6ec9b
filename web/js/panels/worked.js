// The worked panel, "Worked example": the editable inputs (X and the four weights), and every step from the core.
import { workedExample } from '../engine.js';
import { MatrixView } from '../views/matrix_view.js';
import { WorkedView } from '../views/worked_view.js';
import { el } from '../views/dom.js';

const $ = (id) => document.getElementById(id);
const NAMES = { wq: 'W_Q', wk: 'W_K', wv: 'W_V', wo: 'W_O' };

/**
 * @param {import('../main.js').App} app shared page state: { state, save(), defaults, readable(msg) }
 */
export function setupWorked(app) {
  const T = 3, D = 4, H = 2;
  const pos = ['t0', 't1', 't2'], ch = ['c0', 'c1', 'c2', 'c3'];
  const steps = new WorkedView($('w-steps'));
  const error = $('w-error');
  const inputs = {};
  const edit = (key) => (values) => {
    app.state[key] = values;
    app.save();
    compute();
  };
  inputs.wx = new MatrixView($('w-x'), { title: 'X, the input', note: `(T = ${T} positions × D = ${D} channels; edit any number)`,
    rows: pos, cols: ch, editable: true, onEdit: edit('wx') });
  const weights = $('w-weights');
  for (const key of ['wq', 'wk', 'wv', 'wo']) {
    const box = el('div', { class: 'step-matrix' });
    weights.append(box);
    inputs[key] = new MatrixView(box, { title: NAMES[key], note: '(in, out): Q = X W_Q', rows: ch, cols: ch, editable: true, onEdit: edit(key) });
  }

  function compute() {
    const s = app.state;
    const r = workedExample({ T, D, H, x: s.wx, wq: s.wq, wk: s.wk, wv: s.wv, wo: s.wo });
    error.textContent = r.ok === false ? app.readable(r.error) : '';  // (=== false: main.js render)
    error.hidden = r.ok;
    if (r.ok) steps.update(r);
  }

  function show() {
    for (const key of ['wx', 'wq', 'wk', 'wv', 'wo']) inputs[key].update(app.state[key]);
    compute();
  }

  $('w-reset').addEventListener('click', () => {
    for (const key of ['wx', 'wq', 'wk', 'wv', 'wo']) app.state[key] = [...app.defaults[key]];
    app.save();
    for (const key of ['wx', 'wq', 'wk', 'wv', 'wo']) inputs[key].table.replaceChildren();
    show();
  });
  return { show };
}
