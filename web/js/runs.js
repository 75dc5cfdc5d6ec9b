// The player: one Run per training run, each driving its own Web Worker (worker.js). A Run keeps everything the
// page draws — curves, snapshots, status, the sample — so that a worker that dies is replaced by a new one that
// continues from the last full snapshot, and the curves are kept. It speaks to its worker in the messages of
// protocol.js, and tells its panel what happened in the events of RUN_EVENT. No DOM in this file.
import { pageCosts } from './costs.js';
import { opaqueOrigin } from './data.js';
import { canShare } from './half_link.js';
import { Helper } from './helper.js';
import { compiledCore, hasRelaxedSimd, kernelsFor } from './kernels_module.js';
import { checkMessage, FROM_WORKER, RUN_EVENT, toWorker, TO_WORKER } from './protocol.js';

const SETTINGS = {
  // a new worker that has not begun its run's set-up by then (its script, the module: FROM_WORKER.settingUp) has not
  // started, and the run fails saying so. The set-up itself is not timed: at the largest models the page accepts it
  // measures the weights for seconds, and a crash in it is an error event
  readyTimeoutMs: 30_000,
  // a finished run's worker given to another run (Run.#reclaim) has its module and begins at once; one that has not
  // by then is taken for dead (it stopped unseen), and a worker of the run's own starts instead
  givenReadyTimeoutMs: 10_000,
  // a training worker that says nothing for this long has stopped (terminated from outside, killed by the browser):
  // it is restarted from its snapshot as a crashed one is. A chunk of steps is sized to take well under a second,
  // and the largest run the core accepts takes a few seconds a step
  silentMs: 20_000,
  watchEveryMs: 2_000,
  maxRestarts: 3,           // a run whose worker keeps dying stops trying after this many restarts
  // a finished run's worker holds its model for looking inside: about 50 MB of wasm memory at the default model, so
  // the 36 runs of the default heads comparison held 2 GB in the page's process (and its renderer grew 181 -> 805 MB
  // over a 12-run comparison). It goes after this long without a request; the next request starts a worker again
  // from the run's final weights (Run.sleep, #wake)
  idleMs: 15_000,
  maxSnapshots: 24,         // weights-only snapshots kept per run for scrubbing; beyond, every other is dropped
  maxTraces: 200,           // head traces kept per run (a few kB each), thinned like the snapshots beyond that
  // the panels' live charts and progress redraw at most this often while runs train (drawScheduler): each redraw
  // (scripts, layout, paint, raster) is taken from the workers on a 2-core machine. At 250 ms uPlot alone took 5% of
  // a core (a DevTools profile). The heads comparison at 4 seeds, interleaved on a 2-core Xeon: 64.0 and 67.6 s with
  // the charts paused against 66.6 and 73.4 s at 500 ms; at 1000 ms 76.7 / 78.6 / 80.7 s against 80.1 / 83.2 /
  // 83.7 s at 500 ms (two of three pairs faster), the main thread busy 8.5-9.2 s against 11.7-12.8 s
  // (docs/experiments.md, "Speed of the page")
  liveDrawMs: 1000,
  reducedMotionMs: 2000,    // the panels' live charts redraw at most this often under prefers-reduced-motion
};

// how long a finished run keeps its worker without a request (Run.sleep): what the sleep test and the bench wait out
export const IDLE_MS = SETTINGS.idleMs;

// the answer to a request its worker will not give: the run ended for good, or its worker went meanwhile (a new
// object each time: its asker owns it)
const stopped = () => ({ ok: false, error: 'The worker stopped.' });

/**
 * Thins a run's scrubbing snapshots to at most max: the first and the last stay, and while there are too many, the
 * snapshot in between whose neighbours are closest goes (the one the slider misses least). However long a run
 * trains, its snapshots stay spread over the whole run and their memory bounded (max × the weights' size: 24 ×
 * 0.44 MB for tiny-char).
 * @template {{step: number}} S a snapshot, a head trace: anything with its step
 * @param {S[]} snapshots in step order
 * @param {number} max at least 2
 * @returns {S[]}
 */
export function thinSnapshots(snapshots, max = SETTINGS.maxSnapshots) {
  const kept = [...snapshots];
  while (kept.length > max) {
    let drop = 1;
    for (let i = 2; i < kept.length - 1; ++i)
      if (kept[i + 1].step - kept[i - 1].step < kept[drop + 1].step - kept[drop - 1].step) drop = i;
    kept.splice(drop, 1);
  }
  return kept;
}

/**
 * @typedef {import('./run_settings_type.js').RunSettings & {evalEvery?: number, snapshotEvery?: number,
 *            stopAtLoss?: number, causality?: boolean, swapCheck?: boolean, sample?: boolean}} RunSettings  the core's run
 *   settings (generated from its settings table) and the worker's own: steps between measurements and snapshots, the
 *   loss at whose first measurement it ends (0 or none: at the schedule's end), the checks it makes, whether it ends
 *   with a text sample (protocol.js)
 * @typedef {'starting'|'ready'|'running'|'paused'|'diverged'|'done'|'failed'|'restarting'} RunStatus
 * @typedef {{type: string, run: Run, [key: string]: any}} RunEvent  what onEvent receives: type one of RUN_EVENT
 */

/** 'simd128' when the page asked that later workers load mha.wasm (kernels_module.js); null: the best they can */
let workerKernels = /** @type {import('./kernels_module.js').Kernels | null} */ (null);

/**
 * From now on, workers load mha.wasm ('simd128') or choose as usual (anything else): to compare the two builds.
 * @param {string | null} kernels
 */
export function setWorkerKernels(kernels) {
  workerKernels = kernels === 'simd128' ? kernels : null;
  unaskedDone.clear();  // the workers of runs finished before loaded the build chosen before: none is given over
}

/** runs may be lent helpers (lendHelper): true unless the page was told otherwise, to compare */
let helpersAllowed = true;

/**
 * From now on, runs are lent helpers on idle cores (true, the default) or train alone (false): to compare the two.
 * @param {boolean} allowed
 */
export function setHelpers(allowed) {
  helpersAllowed = allowed !== false;
}

// a run that needs a worker takes the worker of a finished run nobody has asked anything since (Run.#reclaim), as
// the next runs of a comparison do, unless the page was told otherwise, to compare. A new worker costs its start
// (its scripts fetched and evaluated, the module instantiated: 52-61 ms a run) and its run's set-up on a fresh heap
// (48-54 ms against 17-26 given over), on the cores the other runs train on. On a 2-core AMD EPYC, interleaved
// with mhaDebug.reuseWorkers(false) over four rounds: Break it 0.30-0.61 s faster in every pair (of about 22 s), the
// heads comparison 0.8 s faster on average, within its spread
// (docs/experiments.md, "2026-11-29 evening on the AMD EPYC (Zen 5)")
let workersReused = true;

/**
 * From now on, a run that needs a worker takes a finished run's (true, the default) or starts one (false): to compare.
 * @param {boolean} allowed
 */
export function setWorkerReuse(allowed) {
  workersReused = allowed !== false;
  if (!workersReused) unaskedDone.clear();  // from now on: no worker of a run finished before is given over either
}

// test hooks (mhaDebug.slowSetUps, mhaDebug.breakSetUps): what every set-up from now on does in its worker after it
// began (worker.js init). delayMs: that much longer, as the largest models' set-ups take; breakWith: fails, 'throw'
// (an exception inside it, as a bug of ours or a trap of the core would throw) or 'die' (the worker dies there)
/** @type {{delayMs?: number, breakWith?: 'throw'|'die'}} */
const setUpHooks = {};

/**
 * From now on, every worker's set-up takes this much longer (a test of a set-up slower than the start's timeout).
 * @param {number} ms
 */
export function slowSetUps(ms) {
  setUpHooks.delayMs = Math.max(0, Number(ms) || 0);
}

/**
 * From now on, every worker's set-up fails after it began (a test of what the page does then), or none with null.
 * @param {'throw'|'die'|null} kind
 */
export function breakSetUps(kind) {
  setUpHooks.breakWith = kind === 'throw' || kind === 'die' ? kind : undefined;
}

/**
 * Starts a worker: a module worker where the origin allows it, sent the core compiled once for every worker
 * (kernels_module.js compiledCore), else a classic worker from a blob URL that importScripts() the single-file wasm
 * build and the bundled worker (no CORS needed for either).
 * @param {boolean} forceClassic skip the module worker (after it failed once)
 * @returns {Worker}
 */
export function spawnWorker(forceClassic = false) {
  if (!forceClassic && !opaqueOrigin()) {
    try {
      const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
      compiledCore(kernelsFor(workerKernels), import.meta.url).then(({ kernels, module }) =>
        toWorker(worker, TO_WORKER.core, { kernels, module }));
      return worker;
    } catch {
      // e.g. a browser without module workers: fall through to the classic one
    }
  }
  const abs = (path) => JSON.stringify(new URL(path, import.meta.url).href);
  const blobWorker = (src) => new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  if (location.protocol === 'file:' && typeof self.createMha === 'function' && typeof self.mhaWorkerBundle === 'function') {
    // from disk Chromium refuses importScripts() of file:// URLs in a blob worker: the worker gets the code itself,
    // from the functions this page loaded (the single-file wasm build's factory, whose wrapper only adds _scriptDir,
    // and the worker bundle of worker.source.js)
    return blobWorker(`var _scriptDir;\nvar createMha = ${self.createMha.toString()};\nself.MHA_SCRIPT_URL = ${abs('./worker.js')};\n` +
      `(${self.mhaWorkerBundle.toString()})();\n`);
  }
  // the relaxed-SIMD build where the browser runs it (kernels_module.js), else, or if it does not load, mha.classic.js
  const core = workerKernels !== 'simd128' && hasRelaxedSimd()
    ? `try {\n  importScripts(${abs('../mha.relaxed.classic.js')});\n  self.MHA_KERNELS = 'relaxed-simd';\n} catch (e) {\n` +
      `  importScripts(${abs('../mha.classic.js')});\n}\n`
    : `importScripts(${abs('../mha.classic.js')});\n`;
  return blobWorker(`self.MHA_SCRIPT_URL = ${abs('./worker.js')};\n${core}importScripts(${abs('./worker.classic.js')});\n`);
}

// finished runs holding a worker that nobody has asked anything since they finished, in the order they finished: a
// run that needs a worker takes the first one's (Run.#reclaim) rather than start one, as the next runs of a
// comparison do (comparison.js). See workersReused.
/** @type {Set<Run>} */
const unaskedDone = new Set();

export class Run {
  /**
   * @param {{key: string, label: string, settings: RunSettings, text: string, checkpoint?: Uint8Array,
   *          onEvent: (e: RunEvent) => void, saved?: object|null}} options
   *   key: a stable name ('H4', 'upload'); text: the training text; checkpoint: start from this .safetensors file;
   *   saved: a run kept in the browser (toSaved()), to take back (Run.restore): it starts from its own last weights
   */
  constructor({ key, label, settings, text, checkpoint, onEvent, saved = null }) {
    this.key = key;
    this.label = label;
    this.settings = settings;
    this.text = text;
    this.onEvent = onEvent;
    /** @type {RunStatus} */
    this.status = 'starting';
    this.facts = null;        // from the core once set up: params, vocabSize, baselineLoss, divergenceLimit, …
    this.error = '';
    /** curves: train loss per step, validation loss at evaluation steps */
    this.train = { step: [], loss: [] };
    this.val = { step: [], loss: [] };
    /** @type {{step: number, bytes: Uint8Array}[]} weights-only snapshots, for scrubbing through training */
    this.snapshots = [];
    this.heapBytes = 0;       // the worker's wasm memory at its last progress message
    /** @type {{step: number, bytes: Uint8Array} | null} the last snapshot with the AdamW state, for recovery */
    this.lastFull = null;
    this.stepsDone = 0;
    this.seconds = 0;         // training time so far (pauses excluded), over every worker of this run
    this.secondsBefore = 0;   // training time of the workers before the current one
    /** seconds its helpers took of its steps (their halves, on their own cores: lendHelper), and of those before the
     *  current worker */
    this.helperSeconds = 0;
    this.helperSecondsBefore = 0;
    this.trained = 0;         // steps trained so far, over every worker (recomputed steps count twice)
    this.wallStart = performance.now();  // wall time counts from the click: worker start-up included
    this.wallSeconds = 0;     // wall time from start to done
    /** when (performance.now(), ms) it was made, its worker was set up, first told to train and ended: 0 until then */
    this.timeline = { createdAt: this.wallStart, readyAt: 0, startedAt: 0, doneAt: 0 };
    /** the last worker's milliseconds by part (protocol.js DoneMessage spent, bootMs), once it is done, and of those
     *  before it first trained (spentBeforeStart) */
    this.spent = null;
    this.spentBeforeStart = null;
    this.sample = '';
    /** the core's causality check: on the random weights at set-up, and on the trained ones at the end */
    this.causality = { init: null, trained: null };
    /** @type {{step: number, own: number, swapped: number} | null} these weights read in the swapped order */
    this.swap = null;
    /** @type {{step: number, measurement: object}[]} induction measurements over training (induction task) */
    this.induction = [];
    /** the latest probe attention {tokens, L, H, T, att (L,H,T,T), segment}, induction task */
    this.probe = null;
    /** @type {{step: number, trace: object}[]} the head trace at every measurement, in step order (protocol.js) */
    this.traces = [];
    this.restarts = 0;
    this.diverged = null;     // {step, loss, limit} when the run blew up
    this.wantRunning = false; // the user's intent, re-applied after a restart
    this.held = false;        // paused, and the worker said it has stopped (pause())
    this.pending = new Map();
    this.nextId = 1;
    this.classic = false;
    /** when this run was taken back from the browser's store after a reload (Date.now()), 0 for a run of this page */
    this.restoredAt = 0;
    /** when it last trained (Date.now() at its last save), for a restored run */
    this.trainedAt = 0;
    /** @type {'done'|'paused'|''} while a restored run's worker sets up: the status it comes back with */
    this.savedStatus = '';
    /** @type {Worker | null} null while a finished run sleeps (sleep()) */
    this.worker = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} a finished run's sleep() to come */
    this.idleTimer = undefined;
    /** @type {Promise<{ok: boolean, error?: string}> | null} while a sleeping run's new worker sets up (#wake) */
    this.waking = null;
    this.wakeDone = null;
    /** @type {Helper | null} the helper taking half of each step now (lendHelper), and every one it had */
    this.helper = null;
    /** @type {Helper[]} */
    this.helpers = [];
    if (saved) this.#takeSaved(saved);
    // a run taken back from the store holds its measurements already: its worker makes none (known)
    if (saved?.status === 'done' && saved.facts) this.#restAsleep();
    else if (saved) this.#spawn(this.#lastWeights(), true);
    else this.#spawn(checkpoint, false);
  }

  // ---------------------------------------------------------------- kept in the browser (run_store.js)
  /**
   * What the browser keeps of this run, or null when there is nothing to keep yet (no snapshot) or it failed: its
   * weights snapshots (for scrubbing) and its last full snapshot (weights, AdamW state and the step), which restore
   * goes back to: a running run's to continue from, a finished run's taken at its last step, so that after a reload
   * it still knows the step it was trained to and a download of it is the same file as before.
   * @returns {object|null} structured-cloneable (IndexedDB copies it at once)
   */
  toSaved() {
    const done = this.status === 'done';
    if (this.status === 'failed' || (done && !this.snapshots.length)) return null;
    // a training run is kept at its last full snapshot; at the schedule's end 'done' follows at once, and kept
    // paused there it could not finish (its worker would have nothing left to train)
    if (!done && (!this.lastFull || this.lastFull.step >= this.settings.steps)) return null;
    return {
      key: this.key, label: this.label, settings: this.settings, text: this.text, status: done ? 'done' : 'paused',
      trainedAt: Date.now(), facts: this.facts, train: this.train, val: this.val, snapshots: this.snapshots,
      lastFull: done && this.lastFull?.step !== this.stepsDone ? null : this.lastFull, stepsDone: this.stepsDone,
      seconds: this.seconds, helperSeconds: this.helperSeconds, trained: this.trained,
      wallSeconds: done ? this.wallSeconds : (performance.now() - this.wallStart) / 1000, sample: this.sample, causality: this.causality, swap: this.swap,
      induction: this.induction, probe: this.probe, traces: this.traces, diverged: this.diverged,
    };
  }

  /**
   * A run kept in the browser, back on the page. A run that was training gets a new worker from its last full
   * snapshot, paused there, its curves after that step dropped (start() continues it); a finished run comes back
   * asleep (sleep()): its first request starts a worker from its last full snapshot, at its last step (its final
   * weights alone if it was kept without one). It says RUN_EVENT.ready, with its saved status, once its worker is set
   * up, or a task later for a finished one.
   * @param {object} saved from toSaved(), with its text
   * @param {(e: RunEvent) => void} onEvent
   * @returns {Run}
   */
  static restore(saved, onEvent) {
    return new Run({ key: saved.key, label: saved.label, settings: saved.settings, text: saved.text, onEvent, saved });
  }

  // the weights a new worker of this run starts from: its last full snapshot (weights, AdamW state and step), or a
  // finished run's final weights alone if it was kept without one (kept before that was kept)
  #lastWeights() {
    return this.lastFull ? this.lastFull.bytes : this.snapshots.at(-1).bytes;
  }

  #takeSaved(saved) {
    for (const k of ['facts', 'train', 'val', 'snapshots', 'lastFull', 'stepsDone', 'seconds', 'trained', 'wallSeconds',
      'sample', 'causality', 'swap', 'induction', 'probe', 'traces', 'trainedAt']) this[k] = saved[k];
    this.secondsBefore = this.seconds;
    this.helperSeconds = this.helperSecondsBefore = saved.helperSeconds ?? 0;  // kept before helpers: none
    if (saved.status !== 'done') this.wallStart = performance.now() - 1000 * this.wallSeconds;  // wall time so far
    this.restoredAt = Date.now();
    this.status = 'restarting';
    // a run that was training goes back to its full snapshot (after a blow-up, that is the one before it)
    if (saved.status !== 'done') this.#truncate(this.lastFull.step);
    this.savedStatus = saved.status;
  }

  // a finished run taken back from the store has everything it draws: no worker until it is asked something (#wake);
  // it says ready a task later, as one whose worker was set up would (its panel holds it by then)
  #restAsleep() {
    setTimeout(() => {
      if (this.status !== 'restarting') return;  // disposed meanwhile
      this.status = 'done';
      this.savedStatus = '';
      this.timeline.readyAt ||= performance.now();
      this.facts = { ...this.facts, stepsDone: this.stepsDone };
      this.#emit(RUN_EVENT.ready);
    }, 0);
  }

  // ---------------------------------------------------------------- the worker
  // known: the run holds the measurements of these weights already (taken back from the store, or woken), so the
  // worker makes and posts none at set-up
  // fresh: a worker of its own, not a finished run's (the one given could not set this run up)
  #spawn(checkpoint, known, fresh = false) {
    const given = fresh ? null : Run.#reclaim(this.classic);
    const w = given ?? spawnWorker(this.classic);
    this.worker = w;
    let began = false;  // the worker said it began the set-up: it loaded, so an error from then on is a crash
    let ready = false;
    // a given worker that stopped unseen, crashed, or refused the set-up (its heap, grown for the run before, may not
    // hold what a new worker's would) is let go: a worker of the run's own tries once, so reuse never costs a run
    const ownWorker = () => {
      w.terminate();
      this.#dropPending();
      this.#spawn(checkpoint, known, true);
    };
    // until it begins the set-up (FROM_WORKER.settingUp)
    const timeout = setTimeout(() => {
      if (w !== this.worker) return;  // replaced meanwhile (ownWorker, the classic fallback)
      if (given) return ownWorker();
      if (this.wakeDone) this.#woken({ ok: false, error: 'The worker did not start in time.' });
      else this.#fail('The training worker did not start in time.');
    }, given ? SETTINGS.givenReadyTimeoutMs : SETTINGS.readyTimeoutMs);
    this.heardAt = performance.now();
    this.#watch();
    w.onmessage = (e) => {
      if (w !== this.worker) return;
      this.heardAt = performance.now();
      if (e.data?.type === FROM_WORKER.settingUp) {  // started: the set-up is not timed
        began = true;
        return clearTimeout(timeout);
      }
      pageCosts.timed('receive', () => this.#receive(e.data));
    };
    w.onerror = (e) => {
      e.preventDefault();
      if (w !== this.worker) return;
      if (!ready && given) return ownWorker();
      if (!began && !this.classic && !opaqueOrigin()) {
        // the module worker could not start (not a crash in a set-up it began, nor of a running worker): try the
        // classic one once
        this.classic = true;
        w.terminate();
        this.#spawn(checkpoint, known);
        return;
      }
      this.#died(e.message || 'the worker stopped');
    };
    const init = { settings: this.settings, text: this.text, checkpoint: checkpoint ?? null, known,
      hooks: { ...setUpHooks } };
    this.#send(TO_WORKER.init, init, []).then((r) => {
      ready = true;
      clearTimeout(timeout);
      if (w !== this.worker) return;
      const ended = this.status === 'failed';  // ended for good while it set up (its init answered by #dropPending)
      if (!r.ok && given && !ended) return ownWorker();
      if (this.wakeDone) return this.#woken(r);
      if (ended) return;
      if (!r.ok) return this.#fail(r.error);
      this.timeline.readyAt ||= performance.now();
      if (this.savedStatus) {
        // back from the browser's store: the run holds its measurements already (the worker makes none: known);
        // a finished run's worker has its final weights only, so the run keeps its own step count
        this.facts = { ...r, stepsDone: this.stepsDone };
        this.status = this.savedStatus;
        this.savedStatus = '';
        if (this.status === 'done') this.#sleepWhenIdle();
        this.#emit(RUN_EVENT.ready);
        return;
      }
      this.facts = r;
      this.stepsDone = r.stepsDone;
      if (this.status === 'restarting' && this.timeline.startedAt) {
        this.status = this.stepsDone >= this.settings.steps ? 'done' : 'paused';
        if (this.status === 'done') this.#sleepWhenIdle();
        this.#emit(RUN_EVENT.restarted, { fromStep: this.stepsDone });
        if (this.wantRunning && this.status !== 'done') this.start();
      } else {
        // set up by its first worker, or, for a run that had not started (set up ahead, waiting for a core:
        // comparison.js), by a new one after the first died: ready to start either way (paused, nothing but the user
        // would start it, and its comparison would never end: tests/browser/lab.test.mjs)
        this.status = r.stepsDone >= r.steps ? 'done' : 'ready';
        this.#emit(RUN_EVENT.ready);
      }
    });
  }

  // a crash of a set-up worker: report it, start a new worker from the last full snapshot, keep the curves
  #died(reason) {
    unaskedDone.delete(this);
    this.worker.terminate();
    this.#dropPending();
    if (this.wakeDone) return this.#woken({ ok: false, error: `The worker stopped (${reason}).` });
    if (this.status === 'done') this.worker = null;  // the next request starts a new one (#wake)
    if (this.status === 'done' || this.status === 'failed') return;
    if (this.restarts >= SETTINGS.maxRestarts || !this.lastFull) {
      this.#fail(`The training worker stopped (${reason}) and could not be restarted.`);
      return;
    }
    this.restarts += 1;
    const from = this.lastFull;
    const lost = this.stepsDone;
    this.status = 'restarting';
    // drop the points after the snapshot: the new worker computes them again (bit-identically)
    this.#truncate(from.step);
    this.secondsBefore = this.seconds;
    this.helperSecondsBefore = this.helperSeconds;
    this.#emit(RUN_EVENT.died, { reason, atStep: lost, fromStep: from.step });
    this.#spawn(from.bytes, false);
  }

  // the run fails for good, and says why
  #fail(error) {
    this.error = error;
    this.#end();
    this.#emit(RUN_EVENT.failed, { error });
  }

  // the run ends for good (its worker with it), failed or disposed of: whatever it was asked is answered, and what it
  // is asked later is answered at once (#request)
  #end() {
    unaskedDone.delete(this);
    this.status = 'failed';
    this.#endHelper();
    this.worker?.terminate();
    this.#dropPending();
  }

  #truncate(step) {
    const cut = (c, keep) => {
      const n = c.step.findIndex((s) => !keep(s));
      if (n >= 0) {
        c.step.length = n;
        c.loss.length = n;
      }
    };
    cut(this.train, (s) => s <= step);  // the point at step k is the loss of the k-th step's batch
    cut(this.val, (s) => s <= step);
    this.snapshots = this.snapshots.filter((s) => s.step <= step);
    this.induction = this.induction.filter((m) => m.step <= step);
    this.traces = this.traces.filter((t) => t.step <= step);
    this.stepsDone = step;
  }

  #emit(type, extra = {}) {
    if (this.helper && this.status !== 'running') this.#endHelper();
    this.onEvent({ type, run: this, ...extra });
  }

  // ---------------------------------------------------------------- a helper on an idle core
  /**
   * Lends this run a helper (helper.js): a second worker that takes half of each step on a core that would stand
   * idle. The run computes the same numbers, sooner. Only while it trains, on a page whose workers can share
   * memory, one at a time.
   * @returns {boolean} whether one was lent
   */
  lendHelper() {
    if (!helpersAllowed || this.helper || this.status !== 'running' || !this.worker || this.classic || !this.facts) return false;
    if (!canShare()) return false;
    if (!this.lastFull && !this.snapshots.length) return false;  // no weights to set the helper up with yet
    const worker = this.worker;
    this.helper = new Helper({ settings: this.settings, text: this.text, checkpoint: this.#lastWeights(),
      facts: this.facts, worker: spawnWorker(), onLinked: (link) => {
        if (worker === this.worker && this.status === 'running') toWorker(worker, TO_WORKER.assist, link);
        else this.#endHelper();
      } });
    this.helpers.push(this.helper);
    return true;
  }

  #endHelper() {
    this.helper?.end();
    this.helper = null;
  }

  #receive(msg) {
    const wrong = checkMessage(FROM_WORKER, msg);
    if (wrong) {
      this.error = wrong;
      return this.#emit(RUN_EVENT.failed, { error: wrong });
    }
    switch (msg.type) {
      case FROM_WORKER.reply: {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        const { type, id, ...rest } = msg;
        p?.resolve(rest);
        if (this.status === 'done') this.#sleepWhenIdle();
        return;
      }
      case FROM_WORKER.progress:
        for (let i = 0; i < msg.step.length; ++i) {
          this.train.step.push(msg.step[i] + 1);  // the loss of step k's batch, plotted after k+1 steps
          this.train.loss.push(msg.loss[i]);
        }
        this.trained += msg.step.length;
        this.stepsDone = msg.stepsDone;
        this.heapBytes = msg.heapBytes;
        this.seconds = this.secondsBefore + msg.seconds;
        this.helperSeconds = this.helperSecondsBefore + msg.helperSeconds;
        return this.#emit(RUN_EVENT.progress);
      case FROM_WORKER.val:
        if (this.val.step.length && this.val.step[this.val.step.length - 1] >= msg.step) return;
        this.val.step.push(msg.step);
        this.val.loss.push(msg.loss);
        return this.#emit(RUN_EVENT.val);
      case FROM_WORKER.snapshot:
        if (!this.snapshots.some((s) => s.step === msg.step)) {
          this.snapshots = thinSnapshots([...this.snapshots, { step: msg.step, bytes: msg.weights }]);
        }
        this.lastFull = { step: msg.step, bytes: msg.full };
        return this.#emit(RUN_EVENT.snapshot);
      case FROM_WORKER.diverged:
        this.status = 'diverged';
        this.wantRunning = false;
        this.diverged = { step: msg.step, loss: msg.loss, limit: msg.limit };
        return this.#emit(RUN_EVENT.diverged);
      case FROM_WORKER.done:
        this.status = 'done';
        if (workersReused) unaskedDone.add(this);  // until it is asked something (#request) or its worker goes
        this.wantRunning = false;
        this.sample = msg.sample;
        this.stepsDone = msg.stepsDone;
        this.seconds = this.secondsBefore + msg.seconds;
        this.wallSeconds = (performance.now() - this.wallStart) / 1000;
        this.timeline.doneAt = performance.now();
        this.spent = { ...msg.spent, boot: msg.bootMs };
        this.spentBeforeStart = { ...msg.spentBeforeStart, boot: msg.bootMs };
        this.#sleepWhenIdle();
        return this.#emit(RUN_EVENT.done);
      case FROM_WORKER.causality:
        this.causality[msg.when] = { step: msg.step, ...msg.report };
        return this.#emit(RUN_EVENT.causality);
      case FROM_WORKER.swap:
        this.swap = { step: msg.step, own: msg.own, swapped: msg.swapped };
        return this.#emit(RUN_EVENT.swap);
      case FROM_WORKER.induction:
        if (this.induction.length && this.induction[this.induction.length - 1].step >= msg.step) return;
        this.induction.push({ step: msg.step, measurement: msg.measurement });
        this.probe = msg.probe;
        return this.#emit(RUN_EVENT.induction);
      case FROM_WORKER.trace:
        if (this.traces.length && this.traces[this.traces.length - 1].step >= msg.step) return;
        this.traces = thinSnapshots([...this.traces, { step: msg.step, trace: msg.trace }], SETTINGS.maxTraces);
        return this.#emit(RUN_EVENT.trace);
      case FROM_WORKER.failed:
        // a module out of memory is not used again: the run fails and its worker ends (a new run gets a new one)
        if (msg.outOfMemory) return this.#fail(msg.error);
        this.error = msg.error;
        return this.#emit(RUN_EVENT.failed, { error: msg.error });
    }
  }

  // sends a message that the worker answers (one with an id); resolves with its reply ({ok, ...}). A sleeping run
  // first gets a worker again, and a request made while that worker sets up waits for it too: should it not start,
  // each says why. A run ended for good (failed, or disposed of) answers at once that its worker stopped
  #request(type, payload, transfer = []) {
    if (this.status === 'failed') return Promise.resolve(stopped());
    unaskedDone.delete(this);  // asked: it keeps its worker until idle
    if (!this.worker || this.waking) {
      return this.#wake().then((r) => (r.ok ? this.#send(type, payload, transfer) : r));
    }
    return this.#send(type, payload, transfer);
  }

  // the requests still unanswered by a worker that is gone
  #dropPending() {
    for (const { resolve } of this.pending.values()) resolve(stopped());
    this.pending.clear();
  }

  #send(type, payload, transfer) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve });
      toWorker(this.worker, type, { id, ...payload }, transfer);
    });
  }

  // ---------------------------------------------------------------- asking the worker
  /**
   * Attention maps and head scores of this run's model, now or at a snapshot, with heads switched off or tied
   * for this look only (protocol.js InspectMessage).
   * @param {{text: string, source: 'live'|Uint8Array, ablate: Array<[number, number]>, tie: boolean,
   *          withLoss: boolean}} look source: 'live' or the bytes of one of run.snapshots (postMessage copies them)
   * @returns {Promise<{ok: true, maps: object, scores: object, valBase?: number, valModified?: number}
   *                 | {ok: false, error: string}>}
   */
  inspect(look) {
    return this.#request(TO_WORKER.inspect, look);
  }

  /**
   * The core's induction measurement of this run's model now, as it is and with heads switched off for this
   * measurement only (protocol.js InductionWithoutMessage); induction task only.
   * @param {Array<[number, number]>} ablate the heads [layer, head] to switch off
   * @returns {Promise<{ok: true, step: number, full: object, without: object} | {ok: false, error: string}>}
   */
  measureInductionWithout(ablate) {
    return this.#request(TO_WORKER.inductionWithout, { ablate });
  }

  /**
   * Head pruning of this run's model now (protocol.js PruneMessage): each head's importance and the validation loss
   * with the heads switched off one by one, least important first; the model is put back exactly.
   * @returns {Promise<{ok: true, step: number, L: number, H: number, baseLoss: number, importance: Float64Array,
   *   order: Int32Array, loss: Float64Array} | {ok: false, error: string}>} importance (L·H, layer-major), order (L·H
   *   head indices l·H + h, least important first), loss (L·H + 1, k = 0 … L·H heads off)
   */
  pruneHeads() {
    return this.#request(TO_WORKER.prune, {});
  }

  /**
   * A .safetensors file of the model now.
   * @param {boolean} withOptimizer with the AdamW state and progress (a file training can continue from)
   * @returns {Promise<{ok: true, bytes: Uint8Array, step: number} | {ok: false, error: string}>}
   */
  requestSnapshot(withOptimizer) {
    return this.#request(TO_WORKER.snapshot, { withOptimizer });
  }

  // ---------------------------------------------------------------- controls
  /** Starts or resumes training. */
  start() {
    if (!['ready', 'paused'].includes(this.status)) return;
    if (!this.timeline.startedAt && this.status === 'ready' && this.timeline.readyAt) {
      // set up ahead of a free slot (comparison.js), it waited: its wall time is its set-up and its training
      this.wallStart += performance.now() - this.timeline.readyAt;
    }
    this.timeline.startedAt ||= performance.now();
    this.status = 'running';
    this.wantRunning = true;
    this.held = false;
    toWorker(this.worker, TO_WORKER.start);
    this.#emit(RUN_EVENT.status);
  }

  /**
   * Pauses after the current chunk of steps. The run says paused at once; `held` turns true when the worker has
   * stopped, after the messages of its last chunk (curves, snapshot), so the run's state no longer changes then.
   * @returns {Promise<void>} resolved once held (or the worker went away)
   */
  async pause() {
    if (this.status !== 'running') return;
    this.status = 'paused';
    this.held = false;
    this.wantRunning = false;
    this.#emit(RUN_EVENT.status);
    await this.#request(TO_WORKER.pause, {});
    if (this.status === 'paused') this.held = true;
  }

  /** Ends the run now: a last evaluation and a sample, as at the end of the schedule. */
  stop() {
    if (!['ready', 'running', 'paused', 'diverged'].includes(this.status)) return;
    this.wantRunning = false;
    toWorker(this.worker, TO_WORKER.stop);
  }

  /** The full snapshot restoreLastGood goes back to: the last one, and after a blow-up only if taken before it. */
  get lastGood() {
    const s = this.lastFull;
    return this.diverged && !(s && s.step < this.diverged.step) ? null : s;
  }

  /**
   * Goes back to the last full snapshot (optionally with a new learning rate) after a blow-up.
   * @param {{lr?: number}} [change]
   * @returns {Promise<{ok: boolean, error?: string}>}
   */
  async restoreLastGood(change = {}) {
    const snap = this.lastGood;
    if (!snap) return { ok: false, error: 'There is no snapshot from before the blow-up.' };
    const settings = change.lr ? { ...this.settings, lr: change.lr, minLr: Math.min(this.settings.minLr, change.lr / 10) } : null;
    const r = await this.#request(TO_WORKER.restore, { bytes: snap.bytes, settings });  // postMessage copies it
    if (!r.ok) return r;
    if (settings) this.settings = settings;
    this.#truncate(snap.step);
    this.diverged = null;
    this.status = 'paused';
    this.#emit(RUN_EVENT.restored, { fromStep: snap.step });
    return r;
  }

  /** Test hook: makes the worker die with an uncaught error, as a crash would. */
  crash() {
    if (this.worker) toWorker(this.worker, TO_WORKER.crash);
  }

  /**
   * Stops the worker for good. A request still unanswered, or made later, is answered {ok: false}, as a failed run's
   * are: its asker would wait for ever (Look inside asks one look at a time).
   */
  dispose() {
    this.#end();
    clearInterval(this.watchdog);
    clearTimeout(this.idleTimer);
  }

  // ---------------------------------------------------------------- a finished run's worker
  /** @returns {boolean} whether the run has a worker now (a finished run's goes when idle: sleep()) */
  get awake() {
    return this.worker !== null;
  }

  /**
   * Lets a finished run's worker go (it holds the model for looking inside, about 50 MB at the default model): the
   * run keeps everything it draws, and its next request (a look inside, pruning, a download) starts a worker again
   * from its final weights (the last full snapshot: weights, AdamW state and step). Done by itself SETTINGS.idleMs
   * after the run's last request; does nothing while a request is under way or the run is not done.
   * @returns {boolean} whether the worker went
   */
  sleep() {
    const worker = this.#letGo();
    worker?.terminate();
    return worker !== null;
  }

  // a finished run's worker, no longer this run's (null while a request is under way or the run is not done)
  #letGo() {
    clearTimeout(this.idleTimer);
    if (this.status !== 'done' || !this.worker || this.pending.size || this.waking) return null;
    const worker = this.worker;
    this.worker = null;
    unaskedDone.delete(this);
    return worker;
  }

  #sleepWhenIdle() {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.sleep(), SETTINGS.idleMs);
  }

  // the worker of the finished run that nobody has asked anything for the longest (of the kind asked for: a module
  // or a classic worker), to set up another run in: that run goes to sleep as if idle (sleep()), and the worker
  // skips its start (worker.js init). null when no finished run's worker is free
  static #reclaim(classic) {
    for (const run of unaskedDone) {
      const worker = run.classic === classic ? run.#letGo() : null;
      if (worker) return worker;
    }
    return null;
  }

  // a worker again for a sleeping run, from its final weights; resolves with the set-up's reply ({ok, error?})
  #wake() {
    this.waking ??= new Promise((resolve) => {
      this.wakeDone = resolve;
      this.#spawn(this.#lastWeights(), true);
    });
    return this.waking;
  }

  // the woken worker is set up (r.ok), or could not be: the run stays done either way, asleep if it failed
  #woken(r) {
    const resolve = this.wakeDone;
    this.wakeDone = null;
    this.waking = null;
    if (!r.ok) {
      this.worker?.terminate();
      this.worker = null;
      this.#dropPending();  // its set-up, when it did not start in time
    }
    resolve(r.ok ? { ok: true } : { ok: false, error: r.error });
  }

  // the heartbeat: a training worker that has gone silent is treated as one that died (#died restarts it)
  #watch() {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      if (['done', 'failed'].includes(this.status)) {
        clearInterval(this.watchdog);
        this.watchdog = 0;
        return;
      }
      const silent = performance.now() - this.heardAt;
      if (this.status === 'running' && silent > SETTINGS.silentMs) {
        this.#died(`it said nothing for ${Math.round(silent / 1000)} s`);
      }
    }, SETTINGS.watchEveryMs);
  }

  // the seconds of training the run's steps took on one core each: its worker's and its helpers' halves (the run
  // itself was done sooner with a helper, but a step costs what it costs: Break it compares variants by it)
  #coreSeconds() {
    return this.seconds + this.helperSeconds;
  }

  /** @returns {number} tokens per second of one core's training so far (B·T·steps / training seconds) */
  tokensPerSecond() {
    const s = this.#coreSeconds();
    return s > 0 ? (this.trained * this.settings.batch * this.settings.context) / s : 0;
  }

  /** @returns {number} milliseconds of one core's training per step so far (measured in the workers), NaN before any */
  msPerStep() {
    const s = this.#coreSeconds();
    return this.trained > 0 && s > 0 ? (1000 * s) / this.trained : NaN;
  }

  /** @returns {number} seconds left at the current speed (its own worker's: a helper's steps are quicker), NaN when
   *  unknown */
  secondsLeft() {
    if (!this.trained || this.seconds <= 0) return NaN;
    return ((this.settings.steps - this.stepsDone) * this.seconds) / this.trained;
  }
}

/**
 * A throttled redraw for panels fed by training workers: progress arrives dozens of times a second from each
 * worker, so draw() runs at most every `ms` milliseconds, inside an animation frame, and the main thread stays
 * idle (no long tasks). schedule(true) draws at the next frame (for state changes the user should see at once).
 * Where the user asks for less motion (prefers-reduced-motion), the curves move on at most every
 * SETTINGS.reducedMotionMs instead; state changes are still drawn at once.
 * @param {() => void} draw
 * @param {number} [ms] SETTINGS.liveDrawMs by default (the panels' live charts)
 * @returns {(now?: boolean) => void} schedule
 */
export function drawScheduler(draw, ms = SETTINGS.liveDrawMs) {
  const every = globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ? Math.max(ms, SETTINGS.reducedMotionMs) : ms;
  let frame = 0, lastDraw = 0;
  /** @type {ReturnType<typeof setTimeout> | 0} the throttle's timer, 0 when none is pending */
  let timer = 0;
  live.schedulers.add(schedule);
  return schedule;
  function schedule(now = false) {
    if (live.paused && !now) return;  // the user paused the live charts: progress waits for resume
    if (frame) return;  // the next frame draws anyway, from the state then
    if (timer) {
      // a state change does not wait out the throttle of the progress before it: a worker that died was restarted
      // within that wait, and its card never showed "restarting" (status.test.mjs missed it in three runs of five)
      if (!now) return;
      clearTimeout(timer);
      timer = 0;
    }
    const wait = now ? 0 : Math.max(0, every - (performance.now() - lastDraw));
    timer = setTimeout(() => {
      timer = 0;
      frame = requestAnimationFrame(() => { frame = 0; lastDraw = performance.now(); pageCosts.timed('draw', draw); });
    }, wait);
  }
}

// The live charts, paused by the user (WCAG 2.2.2: moving content that goes on for more than five seconds can be
// paused): while paused, training goes on but its progress moves no chart; a state change (a run done, failed or
// restarted) still draws. Resuming draws every panel at once. One switch for the page (views/live_toggle.js).
const live = { paused: false, /** @type {Set<(now?: boolean) => void>} */ schedulers: new Set(),
  /** @type {Set<(paused: boolean) => void>} */ listeners: new Set() };

/** Whether the live charts are paused. @returns {boolean} */
export const liveChartsPaused = () => live.paused;

/**
 * Pauses or resumes the live charts of every panel.
 * @param {boolean} paused
 */
export function pauseLiveCharts(paused) {
  live.paused = paused;
  for (const l of live.listeners) l(paused);
  if (!paused) for (const s of live.schedulers) s(true);
}

/**
 * Calls back whenever the live charts are paused or resumed.
 * @param {(paused: boolean) => void} listener
 */
export function onLiveCharts(listener) {
  live.listeners.add(listener);
}

/**
 * Asks every item, at most `slots` at a time (the cores, by default): the next ask starts when one is answered. For
 * requests that wake finished runs (Run.sleep): each woken run starts a worker of its own, about 50 MB, and pruning
 * the 12 seeds of one H of the heads comparison should not start 12 at once.
 * @template T, A
 * @param {T[]} items
 * @param {(item: T) => Promise<A>} ask
 * @param {number} [slots]
 * @returns {Promise<A[]>} the answers, in the order of items
 */
export async function inTurn(items, ask, slots = Math.max(1, globalThis.navigator?.hardwareConcurrency || 1)) {
  const answers = new Array(items.length);
  let next = 0;
  const asker = async () => {
    while (next < items.length) {
      const i = next++;
      answers[i] = await ask(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, slots), items.length) }, asker));
  return answers;
}

/**
 * True once no run is still starting and none failed to start: then the panel starts them all together, so runs
 * with matched budgets share the cores from their first step.
 * @param {Iterable<Run>} runs
 */
export function allReady(runs) {
  return [...runs].every((r) => r.status !== 'starting' && r.status !== 'failed');
}

/**
 * Steps between two measurements (or snapshots) so that a schedule of steps holds about points of them.
 * @param {number} steps
 * @param {number} points
 */
export function stepsBetween(steps, points) {
  return Math.max(1, Math.round(steps / points));
}
