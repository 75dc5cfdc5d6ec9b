// A helper: a second worker lent to a training run while a core would otherwise stand idle (a comparison's last
// runs, the induction model beside its shorter control: comparison.js lends them). It sets up a Run of the same
// settings, then takes the second half of each of the run's steps, and the later validation batches of each of its
// measurements, through shared memory (half_link.js); the run's worker sums the halves and adds the batches' losses.
// A run trains to the same bits with a helper or without (core: Trainer::step, Run::evaluate), so a helper changes
// how long a run takes, never what it computes. Only where workers can share memory (canShare: a cross-origin-isolated
// page); elsewhere runs train alone, as before. No DOM in this file.
import { halfViews, newHalfLink, quitLink } from './half_link.js';
import { checkMessage, FROM_WORKER, toWorker, TO_WORKER } from './protocol.js';

const SETTINGS = {
  reportMs: 2000,  // an ended helper's worker has this long to say what it spent before it is ended anyway
};

export class Helper {
  /**
   * @param {{settings: object, text: string, checkpoint: Uint8Array, facts: {batch: number, context: number,
   *          params: number}, worker: Worker, onLinked: (link: {shared: SharedArrayBuffer, tokens: number,
   *          params: number}) => void}} o
   *   settings, text: the run's; checkpoint: its latest weights (the model's config comes from them, as the run's
   *   does); facts: the run's; worker: a new worker (runs.js spawnWorker); onLinked: the helper is set up and
   *   waits for halves: the run's worker is to be given the link (TO_WORKER.assist)
   */
  constructor({ settings, text, checkpoint, facts, worker, onLinked }) {
    this.worker = worker;
    this.ended = false;
    /** when it was made, set up (and so started) and ended, performance.now() ms (scripts/bench_page.mjs) */
    this.timeline = { createdAt: performance.now(), readyAt: 0, startedAt: 0, doneAt: 0 };
    /** its worker's milliseconds by part once it reported (costs.js: boot, module, init, train: the halves,
     *  evaluate: the validation batches), else null */
    this.spent = null;
    const tokens = facts.batch * facts.context, params = facts.params;
    const link = { shared: newHalfLink(tokens, params), tokens, params };
    this.views = halfViews(link.shared, tokens, params);
    worker.onerror = (e) => {
      e.preventDefault();
      this.end();
    };
    worker.onmessage = (e) => {
      const msg = e.data;
      if (checkMessage(FROM_WORKER, msg)) return;
      if (msg.type === FROM_WORKER.reply) {
        if (!msg.ok || this.ended) return this.end();
        this.timeline.readyAt = this.timeline.startedAt = performance.now();
        toWorker(worker, TO_WORKER.serve, link);
        onLinked(link);
      } else if (msg.type === FROM_WORKER.served) {
        this.spent = { ...msg.spent, boot: msg.bootMs };
        worker.terminate();
      } else if (msg.type === FROM_WORKER.failed) {
        this.end();
      }
    };
    toWorker(worker, TO_WORKER.init, { id: 1, settings, text, checkpoint, known: true });
  }

  /** The helper leaves (the run stopped training): the run's worker takes its halves itself from its next step. */
  end() {
    if (this.ended) return;
    this.ended = true;
    this.timeline.doneAt = performance.now();
    quitLink(this.views);
    setTimeout(() => this.worker.terminate(), SETTINGS.reportMs);
  }
}
