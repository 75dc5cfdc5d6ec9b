// Where the heads of each head count look at the end of training, side by side: per H, the attention-by-offset
// profile of every head of one seed's run (its last trace), all on one scale within an H. The same loss can hide
// different mechanisms: on the offsets task with two offsets one head splits itself between them while four heads
// divide the labour. A view only: the profiles are the core's (Run::trace), carried by the runs.
import { el } from './dom.js';
import { OffsetProfilesView } from './offset_profiles_view.js';

export class ProfilesByCountView {
  /** @param {HTMLElement} root an empty container; the view owns its content */
  constructor(root) {
    this.root = root;
    this.views = new Map();  // label -> {box, view, shown: step shown or -1}
  }

  /**
   * @param {Array<{label: string, run: {traces: Array<{step: number, trace: object}>}|null}>} groups one per head
   *   count, in order: its label ('H = 4, seed 1') and the run whose last trace is shown (null: nothing yet)
   */
  update(groups) {
    const boxes = [];
    for (const { label, run } of groups) {
      const last = run?.traces?.at(-1);
      if (!last) continue;
      let v = this.views.get(label);
      if (!v) {
        const chart = el('div', {});
        const box = el('div', { class: 'profiles-by-count' }, el('h4', {}, label), chart);
        v = { box, view: new OffsetProfilesView(chart), shown: -1, trace: null };
        this.views.set(label, v);
      }
      if (v.trace !== last.trace) {
        const t = last.trace;
        v.view.update({ L: t.L, H: t.H, K: t.K, profile: t.profile, step: last.step });
        v.trace = t;
      }
      boxes.push(v.box);
    }
    for (const label of [...this.views.keys()]) if (!groups.some((g) => g.label === label)) this.views.delete(label);
    this.root.hidden = boxes.length === 0;
    const list = this.root.lastElementChild;
    if (boxes.length !== list.children.length || boxes.some((b, i) => list.children[i] !== b)) list.replaceChildren(...boxes);
  }
}
