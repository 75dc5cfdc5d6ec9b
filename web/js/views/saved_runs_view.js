// One line under a training panel's status: how many runs this browser keeps and their size, the cap and what goes
// first, and "Forget saved runs"; or, where the browser keeps nothing (run_store.js), why, in one sentence.
import { CAP_BYTES } from '../run_store.js';
import { el } from './dom.js';

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/**
 * What a run card says of a run taken back after a reload, "restored (trained 23 Nov, 15:40)", or '' for a run of
 * this page.
 * @param {{restoredAt: number, trainedAt: number}} run
 */
export function restoredMark(run) {
  if (!run.restoredAt) return '';
  const when = new Date(run.trainedAt).toLocaleString('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  return `restored (trained ${when})`;
}

export class SavedRunsView {
  /**
   * @param {HTMLElement} after the element the line goes after (the panel's status line)
   * @param {{onForget: () => Promise<void>}} settings onForget empties the store
   */
  constructor(after, { onForget }) {
    this.text = el('span', {});
    this.forget = el('button', { type: 'button', class: 'link-button', 'data-action': 'forget-runs' }, 'Forget saved runs');
    this.root = el('p', { class: 'saved-runs muted', 'data-saved-runs': '' }, this.text, ' ', this.forget);
    this.forgotten = false;
    this.forget.addEventListener('click', async () => {
      this.forget.disabled = true;
      this.forgotten = true;
      await onForget();
    });
    after.after(this.root);
  }

  /**
   * @param {{ok: boolean, reason: string, runs: number, bytes: number, elsewhere?: number}} s the store now
   *   (elsewhere: runs of another open tab of this page, which this tab does not show)
   */
  update({ ok, reason, runs, bytes, elsewhere = 0 }) {
    const cap = `at most ${mb(CAP_BYTES)} MB; over it, older runs' scrubbing snapshots go first, then the oldest finished runs`;
    this.root.dataset.savedRuns = ok ? String(runs) : 'off';
    this.forget.hidden = !ok || runs === 0;
    this.forget.disabled = false;
    if (!ok) {
      this.text.textContent = `Runs will not be kept after you leave this page: ${reason}.`;
    } else if (runs > 0) {
      const n = (k) => `${k} run${k === 1 ? '' : 's'}`;
      // a second tab: the runs are another open tab's, and come back there (here at a reload once it is closed)
      const whose = elsewhere === 0 ? 'they come back after a reload.'
        : `${elsewhere === runs ? (runs === 1 ? 'it belongs' : 'they belong') : `${elsewhere} of them belong`} to another ` +
          'open tab of this page and come back there after a reload, or here after a reload once that tab is closed.';
      this.text.textContent = `${n(runs)} kept in this browser, ${mb(bytes)} MB (${cap}); ${whose}`;
    } else {
      this.text.textContent = this.forgotten
        ? 'Saved runs forgotten: nothing comes back after a reload (the runs on this page stay until you leave it).'
        : `Finished runs and the latest snapshot of training ones are kept in this browser (${cap}) and come back after a reload.`;
    }
  }
}
