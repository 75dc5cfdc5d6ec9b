// One comparison: the runs a panel planned (a setting × a seed each), as many training at once as there are slots
// (one per core) and the rest queued, held or stopped by the user, kept in this browser as they train (run_store.js)
// and taken back after a reload. Heads, Break it and Induction heads each hold one; a panel keeps its form, its
// drawing and its tables. The comparison acts on its runs' events (a run set up starts, a slot freed starts the
// next) and passes every event on to the panel. No DOM in this file.
import { RUN_EVENT, streams } from './protocol.js';
import { endedAsPlanned, waitsForCore } from './run_state.js';
import { allReady, Run } from './runs.js';

// a run holds one of the slots from its set-up until it ends, fails or blows up (then it waits for the user)
const BUSY = ['starting', 'ready', 'running', 'paused', 'restarting'];
// runs set up beyond the slots, to start training the moment a slot frees: a run's start-up (its worker, the module,
// the data, the first measurement) took 0.8 s of the heads comparison's 36 runs each, 7% of its wall time, while its
// slot trained nothing (scripts/bench_page.mjs, issue 33)
const AHEAD = 1;
// a run lent a helper on a core that would stand idle (runs.js lendHelper) has at least this many seconds left: a
// helper's set-up (its worker, the module the page compiled once, the run's data) took 69–146 ms of that core, after
// which it takes half of each step (scripts/bench_page.mjs, docs/experiments.md "Speed of the page")
const HELP_AFTER_S = 0.5;

/**
 * @param {{status: string}} run
 * @returns {boolean} the run holds one of its comparison's slots (it is set up, trains or is paused)
 */
export const holdsSlot = (run) => BUSY.includes(run.status);

/**
 * @typedef {{key: string, label: string, settings: object, index: number, seed: number, run: Run|null,
 *            cancelled: boolean, reused?: boolean, startRank?: number, [field: string]: any}} Planned  one run of the
 *   comparison: its index-th seed; run: null while it waits for a free slot; cancelled: stopped before it started;
 *   reused: the finished run of the comparison before, kept instead of trained again; startRank: runs of a lower rank
 *   are set up and started first (0 without one; equal ranks in plan order), which changes when a run trains, never
 *   what it computes nor where the page lists it. A panel's own fields (H, variant) ride along and are kept with the
 *   plan.
 * @typedef {{watch: (panel: string, onEvent: (e: object) => void) => (e: object) => void,
 *            replace: (panel: string, oldRuns: Iterable<Run>, plan: object|null, keptRuns?: Run[]) => void,
 *            plan: (panel: string, plan: object) => void}} Keeper  run_store.js RunKeeper's part used here
 */

/**
 * The runs of a comparison in the order they start, seed-major: every setting's first seed, then every setting's
 * second seed, … (the comparison fills in seed by seed). The first seed keeps the setting's own key and label (a
 * panel's cards, Look inside and the file names use them); later seeds add theirs.
 * @param {{key: string, label: string, [field: string]: any}[]} settings one per setting (its own fields ride along)
 * @param {number} seeds seeds per setting
 * @param {number} firstSeed
 * @param {(setting: object, seed: number, index: number) => object} settingsOf the run's settings
 * @returns {Omit<Planned, 'run'|'cancelled'>[]}
 */
export function seedMajor(settings, seeds, firstSeed, settingsOf) {
  const out = [];
  for (let index = 0; index < seeds; ++index) {
    const seed = firstSeed + index;
    for (const s of settings) {
      out.push({ ...s, index, seed, key: index ? `${s.key}-seed${seed}` : s.key,
        label: seeds > 1 ? `${s.label}, seed ${seed}` : s.label, settings: settingsOf(s, seed, index) });
    }
  }
  return out;
}

/**
 * The steps at which a schedule measures its validation loss: every `every` steps and at the end. Runs of one
 * comparison share them, so their curves can be compared point by point (SeedCurvesView).
 * @param {number} steps
 * @param {number} every
 * @returns {number[]}
 */
export function evalGrid(steps, every) {
  const grid = Array.from({ length: Math.floor(steps / every) + 1 }, (_, k) => k * every);
  if (grid.at(-1) !== steps) grid.push(steps);
  return grid;
}

/**
 * A preset's schedule at other steps and another peak learning rate, in the same proportions: its warm-up the same
 * fraction of the steps, its final rate the same fraction of the peak (the core's presets: a tenth of each).
 * @param {import('./run_settings_type.js').RunSettings} preset the preset's settings
 * @param {number} steps
 * @param {number} lr
 * @returns {{steps: number, warmup: number, lr: number, minLr: number}}
 */
export function scaledSchedule(preset, steps, lr) {
  return { steps, warmup: Math.round((steps * preset.warmup) / preset.steps), lr, minLr: (lr * preset.minLr) / preset.lr };
}

/**
 * @param {object} a a run's settings
 * @param {object} b
 * @returns {boolean} the same settings, whatever the order of their fields
 */
export function sameSettings(a, b) {
  const canonical = (v) => (Array.isArray(v) ? v.map(canonical)
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v);
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

export class Comparison {
  /**
   * @param {object} o
   * @param {string} o.panel the run store's name for the panel's runs ('heads', 'break', 'induction')
   * @param {Keeper} o.keeper
   * @param {(e: object) => void} o.onEvent the panel's handler: every event of its runs, after the comparison acted
   * @param {Map<string, Run>} [o.runs] where the runs live by key: shared with other runs of the panel (a loaded
   *   file's, which counts against the slots only while it trains); a new map by default
   * @param {number} [o.slots] runs at once (one per core by default)
   * @param {boolean} [o.together] the planned runs start together, once every one of them is set up
   * @param {string[]} [o.keepLast] keys of runs outside the plan kept after the planned ones in `runs` (its order is
   *   the order the page lists the runs in)
   * @param {(p: Planned, text: string, onEvent: (e: object) => void) => Run} [o.makeRun] a new run for a planned one
   * @param {(saved: object, onEvent: (e: object) => void) => Run} [o.restoreRun] a kept run back (Run.restore)
   */
  constructor({ panel, keeper, onEvent, runs = new Map(), slots = Math.max(1, globalThis.navigator?.hardwareConcurrency || 1),
    together = false, keepLast = [], makeRun = (p, text, on) => new Run({ key: p.key, label: p.label, settings: p.settings, text, onEvent: on }),
    restoreRun = (saved, on) => Run.restore(saved, on) }) {
    this.panel = panel;
    this.keeper = keeper;
    this.runs = runs;
    this.slots = slots;
    this.together = together;
    this.keepLast = keepLast;
    this.makeRun = makeRun;
    this.restoreRun = restoreRun;
    this.panelEvent = onEvent;
    /** @type {Planned[]} */
    this.plan = [];
    /** the panel's description of the comparison (kept with the plan), with wall: the seconds from the click to the
     *  last run's end, once it ended (null before) */
    this.meta = null;
    this.text = '';
    this.keepText = false;  // the text is kept with the plan (a pasted one); else the panel loads it again
    this.startedAt = 0;
    this.held = false;      // paused by the user, or taken back after a reload: no run starts until resumed
    this.stopped = false;   // Stop: a run that finishes setting up ends at once, no queued run starts
    this.note = '';         // a worker that died and was restarted: said until the next comparison
    this.onRunEvent = keeper.watch(panel, (e) => this.#heard(e));
  }

  /** @returns {boolean} a comparison was started or taken back */
  get active() { return this.meta !== null; }

  /**
   * Starts a comparison: the panel's runs so far (every run in `runs`) are disposed of and no longer kept, except the
   * finished ones it plans again with the same key, settings and text (#reusable): those are kept as they are, done;
   * the other planned ones start as slots allow.
   * @param {{entries: Omit<Planned, 'run'|'cancelled'>[], text: string, meta: object, keepText?: boolean}} c
   */
  start({ entries, text, meta, keepText = false }) {
    const old = [...this.runs.values()];
    const reusable = this.#reusable(entries, text);
    this.plan = entries.map((p) => /** @type {Planned} */ ({ ...p, run: reusable.get(p.key) ?? null, cancelled: false,
      reused: reusable.has(p.key) }));
    const kept = new Set(this.plan.filter((p) => p.reused).map((p) => p.run));
    for (const r of old) if (!kept.has(r)) r.dispose();
    this.runs.clear();
    for (const p of this.plan) {
      if (!p.reused) continue;
      p.run.label = p.label;
      this.runs.set(p.key, p.run);
    }
    this.meta = { ...meta, slots: this.slots, wall: null };
    this.text = text;
    this.keepText = keepText;
    this.startedAt = performance.now();
    this.held = false;
    this.stopped = false;
    this.note = '';
    this.keeper.replace(this.panel, old.filter((r) => !kept.has(r)), this.saved(), [...kept]);
    this.#keepMemo = null;
    this.fill();
  }

  // The runs of the comparison so far that a new one of these entries on `text` keeps instead of training them again,
  // by key: those that ended as their schedule says (endedAsPlanned: not blown up, not stopped early), planned again
  // with the same key and settings (the seed among them). Training is deterministic (a run's worker that died is
  // replaced from a snapshot and computes the same bits again: runs.js), so such a run would come out the same. A
  // comparison whose runs start together (the induction panel's model and its control, whose curves grow side by
  // side) trains them again.
  #reusable(entries, text) {
    if (this.together || text !== this.text) return new Map();
    const finished = new Map(this.plan.filter((p) => endedAsPlanned(p.run)).map((p) => [p.key, p.run]));
    return new Map(entries.filter((p) => finished.has(p.key) && sameSettings(finished.get(p.key).settings, p.settings))
      .map((p) => [p.key, finished.get(p.key)]));
  }

  /**
   * @param {Omit<Planned, 'run'|'cancelled'>[]} entries a comparison a panel would start
   * @param {string} text its text
   * @returns {number} how many of its runs the comparison so far would keep (start), finished, instead of training
   */
  wouldKeep(entries, text) {
    return this.#reusable(entries, text).size;
  }

  /**
   * wouldKeep for a panel's settings now, worked out again only when they or the comparison's runs changed: a panel
   * asks at every redraw (its estimate), and its entries cost a check by the core.
   * @param {string} key the panel's settings as text
   * @param {() => {entries: Omit<Planned, 'run'|'cancelled'>[], text: string} | null} planned the comparison Train
   *   would start, or null when the settings are not valid
   * @returns {number}
   */
  wouldKeepNow(key, planned) {
    const now = `${key}|${this.plan.map((p) => `${p.key}:${p.run?.status ?? ''}`).join()}`;
    if (this.#keepMemo?.now !== now) {
      const c = this.active ? planned() : null;
      this.#keepMemo = { now, n: c ? this.wouldKeep(c.entries, c.text) : 0 };
    }
    return this.#keepMemo.n;
  }

  /** @type {{now: string, n: number} | null} the last answer of wouldKeepNow */
  #keepMemo = null;

  /** @returns {number} the planned runs kept from the comparison before, finished, instead of trained again */
  reusedCount() {
    return this.plan.filter((p) => p.reused).length;
  }

  /** @returns {boolean} every planned run was kept from the comparison before: this one trained nothing */
  reusedAll() {
    return this.plan.length > 0 && this.reusedCount() === this.plan.length;
  }

  /** @returns {string} what the page says of the runs kept from the comparison before ('' when none were) */
  reusedSentence() {
    const n = this.reusedCount();
    if (!n) return '';
    const which = this.reusedAll() ? (n === 1 ? 'This run was' : `All ${n} runs were`) : `${n} of the runs were`;
    return `${which} kept from the comparison before, not trained again: the same settings, seed and text train to ` +
      'the same numbers.';
  }

  /**
   * Sets up queued runs, in start order, while fewer than `slots` runs hold one (a run outside the plan holds one
   * while it trains), and AHEAD more: a run set up before a slot is free starts training the moment one is
   * (#startWaiting). A run is set up ahead only while no planned run is being set up: at the click the first two
   * runs' set-ups shared the two cores with the third's, and Break it's first steps came 0.35–0.44 s after the
   * click, 0.29–0.38 s without it (docs/experiments.md, "2026-11-29 afternoon on the AMD EPYC").
   */
  fill() {
    if (this.held || this.stopped || !this.active) return;
    const planned = new Set(this.plan.map((p) => p.run));
    let busy = [...this.runs.values()].filter((r) => (planned.has(r) ? holdsSlot(r) : r.status === 'running')).length;
    const settingUp = () => this.plan.some((p) => p.run?.status === 'starting');
    const room = () => this.slots + (this.together || settingUp() ? 0 : AHEAD);
    for (const p of this.#inStartOrder()) {
      if (busy >= room()) break;
      if (p.run || p.cancelled) continue;
      p.run = this.makeRun(p, this.text, this.onRunEvent);
      this.runs.set(p.key, p.run);
      busy += 1;
    }
    this.#order();
  }

  // the plan in the order its runs are set up and started: by startRank, equal ranks in plan order (a stable sort)
  #inStartOrder() {
    return this.plan.map((p, i) => ({ p, i })).sort((a, b) => (a.p.startRank ?? 0) - (b.p.startRank ?? 0) || a.i - b.i)
      .map(({ p }) => p);
  }

  // The page lists the runs in the map's order: the planned ones in plan order (kept and new alike: a kept run was
  // set in the map before the new ones), then any other run, those of keepLast last.
  #order() {
    const planned = this.plan.filter((p) => p.run).map((p) => /** @type {[string, Run]} */ ([p.key, p.run]));
    const inPlan = new Set(planned.map(([, r]) => r));
    const others = [...this.runs].filter(([k, r]) => !inPlan.has(r) && !this.keepLast.includes(k));
    const last = this.keepLast.filter((k) => this.runs.has(k)).map((k) => /** @type {[string, Run]} */ ([k, this.runs.get(k)]));
    this.runs.clear();
    for (const [k, r] of [...planned, ...others, ...last]) this.runs.set(k, r);
  }

  // a run of the comparison: set up, it starts (or ends, after Stop); a change of state frees or takes a slot.
  // Streaming events (dozens a second per run) change no run's state: they only pass on to the panel.
  #heard(e) {
    if (streams(e.type)) return this.panelEvent(e);
    const entry = e.run ? this.plan.find((p) => p.run === e.run) : null;
    if (entry && e.type === RUN_EVENT.ready && this.stopped) e.run.stop();
    else if (entry && e.type === RUN_EVENT.ready && this.together && !this.held) this.#startTogether();
    if (entry && e.type === RUN_EVENT.died) {
      this.note = `The worker of ${e.run.label} stopped unexpectedly at step ${e.atStep} (${e.reason}). ` +
        `It was restarted from its snapshot at step ${e.fromStep}; the curves so far are kept.`;
    }
    this.fill();
    this.#startWaiting();
    this.#lendIdleCores();
    this.panelEvent(e);
  }

  // Once no planned run waits for a core, the cores the training runs leave idle are lent to them, the longest left
  // first: each lent one takes half of its run's steps (runs.js lendHelper; the same numbers, sooner). The tail of a
  // comparison (the last runs of unequal lengths, the induction model after its shorter control) then trains on
  // every core.
  #lendIdleCores() {
    if (this.held || this.stopped || !this.active) return;
    if (this.plan.some((p) => !p.cancelled && (!p.run || waitsForCore(p.run) || p.run.status === 'starting'))) return;
    const training = [...this.runs.values()].filter((r) => r.status === 'running');
    let idle = this.slots - training.length - training.filter((r) => r.helper).length;
    const left = (r) => r.secondsLeft() || 0;
    for (const r of training.filter((t) => !t.helper && left(t) >= HELP_AFTER_S).sort((a, b) => left(b) - left(a))) {
      if (idle <= 0) return;
      if (r.lendHelper()) idle -= 1;
    }
  }

  #startTogether() {
    const planned = this.plan.map((p) => p.run);
    if (planned.every(Boolean) && allReady(planned)) for (const r of planned) r.start();
  }

  // the planned runs set up and waiting start, in start order, while fewer than `slots` runs train (a run restarting
  // after its worker died trains again at once, so it counts). A run still being set up holds back the runs after
  // it: otherwise whichever worker happened to be ready first would take the slot (seen 12 s after the click: the
  // offsets task's first H = 4 run waiting while the run set up ahead of it trained), and the order, with the curves
  // the page shows first and the experiment's wall time, would be the set-up race's.
  //
  // The runs training are counted again before each start: a start says so to the panel at once (Run.start emits its
  // status), which comes back here and may start runs itself, so a count kept across the loop would be stale (seen:
  // three runs training on two slots when the first in order was the last to be set up).
  #startWaiting() {
    if (this.held || this.stopped || this.together) return;
    const training = () => [...this.runs.values()].filter((r) => r.status === 'running' || (r.status === 'restarting' && r.wantRunning)).length;
    for (const p of this.#inStartOrder()) {
      if (training() >= this.slots) return;
      if (p.run?.status === 'starting') return;
      if (!p.run || !waitsForCore(p.run)) continue;
      p.run.start();
    }
  }

  /** Pause or Resume: holds every run that trains (and the queue), or starts them all again. */
  togglePause() {
    const running = [...this.runs.values()].some((r) => r.status === 'running');
    if (running) {
      this.held = true;
      for (const r of this.runs.values()) r.pause();
    } else {
      this.resume();
    }
  }

  /**
   * Trains on: every paused run and every run outside the plan that can start does, the runs set up ahead as slots
   * allow, and the queue fills again.
   */
  resume() {
    this.held = false;
    const planned = new Set(this.plan.map((p) => p.run));
    for (const r of this.runs.values()) if (this.together || !planned.has(r) || !waitsForCore(r)) r.start();
    this.fill();
    this.#startWaiting();
  }

  /** Trains one run on (a run taken back after a reload, paused at its snapshot): the hold ends, the queue fills. */
  continueRun(run) {
    this.held = false;
    run.start();
    this.fill();
    this.#startWaiting();
  }

  /**
   * Stop: every run ends now (a last measurement and a sample); the runs still queued are not run, and a run set up
   * ahead that has not trained is dropped as a queued one.
   */
  stop() {
    this.stopped = true;
    this.held = false;
    for (const p of this.plan) {
      if (p.run && waitsForCore(p.run) && !this.together) {
        p.run.dispose();
        this.runs.delete(p.key);
        p.run = null;
      }
      if (!p.run) p.cancelled = true;
    }
    if (this.active) this.keeper.plan(this.panel, this.saved());
    for (const r of this.runs.values()) r.stop();
  }

  /** @returns {number} the runs still waiting for a slot */
  queued() {
    return this.plan.filter((p) => !p.run && !p.cancelled).length;
  }

  /** @returns {{label: string, run: Run}[]} the planned runs that have a worker, for run_state.js */
  entries() {
    return this.plan.filter((p) => p.run).map((p) => ({ label: p.label, run: /** @type {Run} */ (p.run) }));
  }

  /**
   * The comparison has ended (every run done, failed or stopped): its wall time from the click to the last run's
   * end, taken once, and the plan kept with it.
   * @returns {number} seconds
   */
  ended() {
    if (this.meta.wall === null) {
      this.meta.wall = (performance.now() - this.startedAt) / 1000;
      this.keeper.plan(this.panel, this.saved());
    }
    return this.meta.wall;
  }

  /**
   * The comparison as the browser keeps it: what rebuilds the plan after a reload (the runs are kept one by one).
   * text: the text when it is kept with the plan (a pasted one), else null (the panel loads it again).
   * @returns {{comparison: object, text: string|null, entries: object[]}}
   */
  saved() {
    return { comparison: this.meta, text: this.keepText ? this.text : null, entries: this.plan.map(({ run, ...p }) => p) };
  }

  /**
   * The comparison this panel had before the reload, back: finished runs as they ended, training ones paused at
   * their last full snapshot, queued ones waiting; nothing trains until the user says so (resume, continueRun).
   * @param {object[]} records the panel's records in the store (run_store.js load)
   * @param {() => Promise<string>} loadText the text of a plan kept without its own
   * @returns {Promise<boolean>} whether a comparison was taken back (not when nothing was kept, or the user started
   *   one meanwhile); rejects when the text cannot be loaded
   */
  async restore(records, loadText) {
    const kept = new Map(records.filter((r) => r.kind === 'run').map((r) => [r.key, r.run]));
    const saved = records.find((r) => r.kind === 'plan')?.plan;
    if (this.active || !saved) return false;
    const text = saved.text ?? await loadText();
    if (this.active) return false;
    this.meta = { wall: null, ...saved.comparison };
    this.text = text;
    this.keepText = saved.text != null;
    this.startedAt = performance.now();
    this.plan = saved.entries.map((p) => ({ ...p, run: kept.has(p.key) ? this.restoreRun({ ...kept.get(p.key), text }, this.onRunEvent) : null }));
    for (const p of this.plan) if (p.run) this.runs.set(p.key, p.run);
    this.held = this.plan.some((p) => !p.cancelled && (!p.run || kept.get(p.key).status !== 'done'));
    this.stopped = false;
    return true;
  }
}
