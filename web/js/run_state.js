// The one run-state machine of the page: the states a student sees for a run (setting up, training, paused,
// diverged, done, done but no better than the baseline, failed, restarting after a worker died), the transitions
// between them that can happen, and for a panel's set of runs the one status sentence and which of its buttons are
// enabled. The heads, break-it and induction panels draw every status line and button from here, so that no panel
// keeps its own idea of what "done" or "paused" means. It reads a Run (runs.js: run.status, run.val, run.diverged,
// run.train, run.settings) and the baseline the panel shows; no DOM, no worker, no core call: it is unit-tested in
// node (tests/browser/run_state.test.mjs).

import { plural } from './views/dom.js';

/** The states a student sees, one per run. */
export const RUN_STATE = Object.freeze({
  settingUp: 'setting-up',   // the worker is starting, or is set up and waits for the others of its panel
  training: 'training',
  paused: 'paused',          // by the user, or a loaded file that has not been trained further yet
  diverged: 'diverged',      // the loss blew up: the run is paused, with a way back (suggestedLr)
  done: 'done',
  noBetter: 'no-better',     // done, but its final validation loss is at or above the baseline
  failed: 'failed',
  restarting: 'restarting',  // its worker died; a new one continues from the last full snapshot
});

const S = RUN_STATE;

/**
 * The transitions that can happen, from each state (Run: the worker's messages and the user's buttons).
 * done and no-better are ends; a diverged run goes back to paused at its last good snapshot (restoreLastGood).
 */
export const TRANSITIONS = Object.freeze({
  [S.settingUp]: Object.freeze([S.training, S.paused, S.done, S.noBetter, S.failed, S.restarting]),
  [S.training]: Object.freeze([S.paused, S.diverged, S.done, S.noBetter, S.failed, S.restarting]),
  [S.paused]: Object.freeze([S.training, S.done, S.noBetter, S.failed, S.restarting]),
  [S.diverged]: Object.freeze([S.paused, S.training, S.done, S.noBetter, S.failed, S.restarting]),
  [S.restarting]: Object.freeze([S.paused, S.training, S.done, S.noBetter, S.failed, S.restarting]),
  [S.done]: Object.freeze([]),
  [S.noBetter]: Object.freeze([]),
  [S.failed]: Object.freeze([]),
});

/**
 * @param {string} from a RUN_STATE
 * @param {string} to a RUN_STATE
 * @returns {boolean} true when a run can go from one to the other (staying in a state is always allowed)
 */
export function canMove(from, to) {
  return from === to || (TRANSITIONS[from] ?? []).includes(to);
}

/**
 * A run that ended as its schedule says: every step trained, or stopped by its worker at its first measurement at or
 * below settings.stopAtLoss (worker.js; a measurement on the schedule's grid, every evalEvery steps). Not one the
 * user stopped early, nor one that blew up.
 * @param {{status: string, stepsDone: number, diverged?: object|null, val: {step?: number[], loss: number[]},
 *          settings: {steps?: number, evalEvery?: number, stopAtLoss?: number}}|null|undefined} run
 * @returns {boolean}
 */
export function endedAsPlanned(run) {
  if (!run || run.status !== 'done' || run.diverged) return false;
  if (run.stepsDone === run.settings.steps) return true;
  const { stopAtLoss = 0, evalEvery = 0 } = run.settings;
  return stopAtLoss > 0 && evalEvery > 0 && run.stepsDone % evalEvery === 0
    && run.val.step?.at(-1) === run.stepsDone && run.val.loss.at(-1) <= stopAtLoss;
}

/**
 * A run that stopped at settings.stopAtLoss before its last step (endedAsPlanned).
 * @param {Parameters<typeof endedAsPlanned>[0]} run
 * @returns {boolean}
 */
export const stoppedAtLoss = (run) => endedAsPlanned(run) && run.stepsDone < run.settings.steps;

/** The word a run card shows for each state. */
export const STATE_WORD = Object.freeze({
  [S.settingUp]: 'setting up', [S.training]: 'training', [S.paused]: 'paused', [S.diverged]: 'blew up',
  [S.done]: 'done', [S.noBetter]: 'done, no better than the baseline', [S.failed]: 'failed',
  [S.restarting]: 'restarting',
});

/**
 * The words a run card shows for a run in a state: STATE_WORD's, except for a run that waits for a free core
 * (waitsForCore).
 * @param {{status: string, stepsDone: number}} run
 * @param {string} state runState(run, …)
 * @returns {string}
 */
export function cardWord(run, state) {
  return waitsForCore(run) ? 'set up, waiting for a free core' : STATE_WORD[state];
}

/**
 * A run set up that has not trained: in a comparison it waits for a free core (one is set up ahead of the slots).
 * @param {{status: string, stepsDone: number}} run
 * @returns {boolean}
 */
export const waitsForCore = (run) => run.status === 'ready' && run.stepsDone === 0;

/**
 * A run's state.
 * @param {{status: string, stepsDone: number, val: {loss: number[]}}} run a Run (runs.js)
 * @param {number|null} baseline the loss of the context-free guess the panel shows (unigram or uniform), null when
 *   not known: then a finished run is plainly done
 * @returns {string} a RUN_STATE
 */
export function runState(run, baseline) {
  switch (run.status) {
    case 'starting': return S.settingUp;
    // set up: a fresh run waits for the rest of its panel; a loaded file (steps already done) waits for the user
    case 'ready': return run.stepsDone > 0 ? S.paused : S.settingUp;
    case 'running': return S.training;
    case 'paused': return S.paused;
    case 'diverged': return S.diverged;
    case 'restarting': return S.restarting;
    case 'done': return noBetter(run, baseline) ? S.noBetter : S.done;
    default: return S.failed;
  }
}

/**
 * True when a run's final validation loss is no lower than the baseline's.
 * @param {{val: {loss: number[]}}} run
 * @param {number|null} baseline
 */
export function noBetter(run, baseline) {
  const val = run.val.loss.at(-1);
  return Number.isFinite(val) && Number.isFinite(baseline) && val >= baseline;
}

const names = (entries) => {
  const labels = entries.map((e) => e.label);
  return labels.length <= 1 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
};

/**
 * The failures of a panel's runs as one sentence each, the same error named once for every run that had it (an
 * empty text makes every run fail with the same sentence: the student reads it once).
 * @param {{label: string, run: {status: string, error: string}}[]} entries
 * @param {(message: string) => string} readable the page's cleaning of the core's messages
 * @returns {string} '' when none failed
 */
export function failureSentence(entries, readable = (m) => m) {
  const byError = new Map();
  for (const e of entries) {
    if (e.run.status !== 'failed' || !e.run.error) continue;
    const msg = readable(e.run.error);
    byError.set(msg, [...(byError.get(msg) ?? []), e]);
  }
  const all = entries.length > 0 && [...byError.values()].reduce((n, es) => n + es.length, 0) === entries.length;
  return [...byError].map(([msg, es]) => (all && byError.size === 1 ? msg : `${names(es)}: ${msg}`)).join(' ');
}

/**
 * The panel's one status sentence and its buttons, from its runs.
 * @param {{label: string, run: object}[]} entries the panel's runs (a Run each) with the label the sentence uses
 * @param {{baseline?: number|null, baselineName?: string, queued?: number, held?: boolean, stopped?: boolean,
 *          training?: string, done?: () => string, wayBack?: (n: number) => string, paused?: string}} [o]
 *   baseline: the loss of the guess the panel shows, and baselineName what it is ('the unigram guess');
 *   queued: runs planned that have no worker yet; held: the user paused the panel (queued runs wait);
 *   training: what follows "Training…" ("2 at a time; 3 waiting."); done: the sentence when every run has ended
 *   ("Done: 6 runs in 12.3 s of wall time."); wayBack: where the way back from a blow-up of n runs is
 *   ("see its card for the way back", the default); paused: the sentence while paused, when the panel's way on is
 *   not its Resume button (runs restored after a reload that wait for their own button)
 * @returns {{state: string, sentence: string, states: string[], counts: Record<string, number>,
 *            buttons: {pause: {enabled: boolean, label: string, pressed: boolean}, stop: {enabled: boolean}}}}
 *   state: the panel's state (a RUN_STATE, or '' with no runs); states: one per entry
 */
export function panelStatus(entries, o = {}) {
  const { baseline = null, baselineName = 'the baseline', queued = 0, held = false, training = '', done,
    wayBack = (n) => `see ${n > 1 ? 'their cards' : 'its card'} for the way back`, paused = '' } = o;
  // a run set up while the user holds the panel waits for Resume, not for the other workers: paused
  const states = entries.map((e) => (held && e.run.status === 'ready' ? S.paused : runState(e.run, baseline)));
  const counts = Object.fromEntries(Object.values(S).map((s) => [s, states.filter((x) => x === s).length]));
  const pick = (s) => entries.filter((_, i) => states[i] === s);
  const any = (s) => counts[s] > 0;
  const ended = counts[S.done] + counts[S.noBetter] + counts[S.failed];
  const pausable = any(S.training);
  const resumable = !pausable && (any(S.paused) || (held && queued > 0));
  const buttons = {
    pause: { enabled: pausable || resumable, label: resumable ? 'Resume' : 'Pause', pressed: resumable },
    stop: { enabled: any(S.training) || any(S.paused) || any(S.diverged) || any(S.settingUp) || queued > 0 },
  };
  const blewUp = pick(S.diverged);
  const blown = blewUp.length ? `the loss of ${names(blewUp)} blew up (${wayBack(blewUp.length)})` : '';
  let state = '', sentence = '';
  if (!entries.length && !queued) {
    // nothing to say
  } else if (any(S.training)) {
    state = S.training;
    sentence = `Training…${training ? ` ${training}` : ''}${blown ? ` Meanwhile ${blown}.` : ''}`;
  } else if (any(S.restarting)) {
    state = S.restarting;
    sentence = `Restarting the worker of ${names(pick(S.restarting))} from its last snapshot…`;
  } else if (any(S.settingUp)) {
    state = S.settingUp;
    sentence = 'Setting up the workers…';
  } else if (blown) {
    state = S.diverged;
    sentence = `Paused: ${blown}.`;
  } else if (any(S.paused) || (held && queued > 0)) {
    state = S.paused;
    sentence = paused || `Paused${queued ? `; ${plural(queued, 'run')} waiting` : ''}. Resume goes on from here.`;
  } else if (ended === entries.length && !queued) {
    const failed = pick(S.failed), worse = pick(S.noBetter);
    if (failed.length === entries.length) {
      state = S.failed;
      sentence = `Failed: ${entries.length > 1 ? 'no run could train' : 'the run could not train'} (the reason is above).`;
    } else {
      state = worse.length ? S.noBetter : S.done;
      const parts = [done ? done() : 'Done.'];
      if (worse.length) {
        parts.push(`${worse.length === entries.length - failed.length && worse.length > 1 ? 'Every run ended' : `${names(worse)} ended`} ` +
          `no better than ${baselineName} (${Number(baseline).toFixed(3)}): the learning rate may be too high or the budget too short.`);
      }
      if (failed.length) parts.push(`${names(failed)} failed (the reason is above).`);
      sentence = parts.join(' ');
    }
  }
  return { state, sentence, states, counts, buttons };
}

/**
 * The learning rate to continue a diverged run with, from its own history: the largest rate it trained at while its
 * training loss still reached new lows (its warm-up passed through lower rates than the one that blew up), else a
 * tenth of the rate at which it blew up; never above the panel's default. The sentence says which rule gave it.
 * @param {{diverged: {step: number}, train: {step: number[], loss: number[]}, settings: object}} run a diverged Run;
 *   train.step[i] is the number of steps done after the i-th loss (the loss of step train.step[i] − 1)
 * @param {(step: number, settings: object) => number} lrAt the core's schedule (engine.js lrAt)
 * @param {number} usual the panel's default learning rate
 * @returns {{lr: number, rule: 'history'|'tenth'|'default', why: string}}
 */
export function suggestedLr(run, lrAt, usual) {
  const blowUp = run.diverged.step;
  const atBlowUp = lrAt(blowUp, run.settings);
  // the step (counting from 0) of the lowest training loss before the blow-up: up to there the loss still fell
  let best = -1, low = Infinity;
  for (let i = 0; i < run.train.step.length; ++i) {
    const step = run.train.step[i] - 1, loss = run.train.loss[i];
    if (step >= blowUp) break;
    if (Number.isFinite(loss) && loss < low) {
      low = loss;
      best = step;
    }
  }
  // the history counts only when the loss fell below its first value (the first step alone says nothing)
  const first = run.train.step.length ? run.train.step[0] - 1 : 0;
  let fromHistory = 0;
  if (best > first) for (let s = 0; s <= best; ++s) fromHistory = Math.max(fromHistory, lrAt(s, run.settings));
  const round = (v) => +v.toPrecision(2);
  const tenth = round(atBlowUp / 10);
  const history = fromHistory > 0 && fromHistory < atBlowUp ? round(fromHistory) : 0;
  const where = best < run.settings.warmup ? ` (step ${best + 1}, in its warm-up)` : ` (step ${best + 1})`;
  /** @type {[number, 'history'|'tenth', string]} */
  const [lr, rule, why] = history > 0
    ? [history, 'history', `the largest rate this run trained at while its loss still fell${where}`]
    : [tenth, 'tenth', `a tenth of the rate ${round(atBlowUp)} at which it blew up`];
  return lr > usual ? { lr: usual, rule: 'default', why: `the default rate: ${why} would be ${lr}, above it` }
    : { lr, rule, why };
}
