// The messages between the page (runs.js) and a training worker (worker.js): one list that both sides import, so
// a message type exists once, with its fields. Each direction has its own names (TO_WORKER, FROM_WORKER); a type
// that appears in both ('snapshot') is two messages: asked for by the page, or posted by the worker on its own.
// No DOM in this file.
//
// Page -> worker. Every message with an `id` is answered by FROM_WORKER.reply with the same id.
/**
 * @typedef {{type: 'core', kernels: 'relaxed-simd'|'simd128', module: WebAssembly.Module|null}} CoreMessage
 *   a module worker's first message: the core's module compiled by the page (kernels_module.js compiledCore), which
 *   the worker instantiates before it handles any other message; module null: it loads the given kernels itself
 * @typedef {{type: 'init', id: number, settings: object, text: string, checkpoint: Uint8Array|null,
 *            known?: boolean, hooks?: {delayMs?: number, breakWith?: 'throw'|'die'}}} InitMessage
 *   set up a run: fresh weights from settings.seed, or from a .safetensors checkpoint (weights; AdamW state and
 *   progress when it has them). settings: the core's run settings (engine.js constants().defaults keys) plus the
 *   worker's own evalEvery, snapshotEvery (steps between measurements, snapshots), stopAtLoss (nats: the run ends at
 *   its first measurement at or below it; 0 or none: at its last step), causality, swapCheck (booleans), sample
 *   (false: no text sample at the end, for a run whose sample the page does not show; default true). known: the
 *   page has this run's measurements of these weights already (a run taken back from the store, a finished run's
 *   worker started again), so none is made or posted at set-up. hooks: the tests' (mhaDebug.slowSetUps, breakSetUps),
 *   after the worker said settingUp: the set-up made delayMs slower, or failing ('throw' an exception, 'die' the
 *   worker).
 *   Replied with the run's facts ({ok, vocabSize, dModel, nHeads, …, stepsDone, baselineLoss, divergenceLimit}).
 * @typedef {{type: 'start'}} StartMessage  run the schedule (or resume)
 * @typedef {{type: 'pause', id: number}} PauseMessage  hold after the current chunk of steps; replied with
 *   {ok, stepsDone} once held, after every message of the chunks before it (so the page's curves are final then)
 * @typedef {{type: 'stop'}} StopMessage  finish now: a last measurement and snapshot, then done
 * @typedef {{type: 'inspect', id: number, text: string, source: 'live'|Uint8Array, ablate: Array<[number, number]>,
 *            tie: boolean, withLoss: boolean}} InspectMessage
 *   attention maps and head scores of the run's weights now ('live') or of a weights-only snapshot, with the heads
 *   [layer, head] of ablate switched off and, with tie, every head given head 0's weights, for this look only.
 *   Replied with {ok, maps: {tokens, L, H, T, att (L,H,T,T), truncated, unknown}, scores: {L, H, probeLen, previous,
 *   first, entropy, maxEntropy, induction, labels}, valBase?, valModified?} (the losses with withLoss)
 * @typedef {{type: 'snapshot', id: number, withOptimizer: boolean}} SnapshotRequest
 *   a .safetensors file of the weights (with the AdamW state and progress when withOptimizer); replied with
 *   {ok, bytes: Uint8Array, step}
 * @typedef {{type: 'restore', id: number, bytes: Uint8Array, settings: object|null}} RestoreMessage
 *   back to a full snapshot of this run, and with settings a new schedule (lr, minLr, steps, warmup); replied with
 *   the facts
 * @typedef {{type: 'inductionWithout', id: number, ablate: Array<[number, number]>}} InductionWithoutMessage
 *   induction task: the core's induction measurement of the run's weights now, as they are and with the heads
 *   [layer, head] of ablate switched off for this measurement only; replied with {ok, step, full, without} (each
 *   as InductionMessage's measurement)
 * @typedef {{type: 'prune', id: number}} PruneMessage
 *   every task: each head's importance (the validation loss with it alone off, minus the loss as trained) and the
 *   loss with the heads switched off one by one, least important first, on the run's weights now (the model is put
 *   back exactly; core/lab/head_pruning.hpp); replied with {ok, step, L, H, baseLoss, importance (L*H, layer-major),
 *   order (L*H head indices l*H + h, least important first), loss (L*H + 1: k = 0 … L*H heads off)}
 * @typedef {{type: 'assist', shared: SharedArrayBuffer, tokens: number, params: number}} AssistMessage
 *   from the run's next step on, a helper takes the second half of each batch, and the later validation batches of
 *   each measurement, through this shared memory (half_link.js; tokens: the run's batch × context, params: its
 *   parameter count), until the link quits
 * @typedef {{type: 'serve', shared: SharedArrayBuffer, tokens: number, params: number}} ServeMessage
 *   to a helper (helper.js) set up with the run's settings: do every job posted to this shared memory (a half, a
 *   measurement's batches), blocking this worker, until the link quits; then say served
 * @typedef {{type: 'crash'}} CrashMessage  test hook: the worker dies of an uncaught error
 */
// Worker -> page.
/**
 * @typedef {{type: 'reply', id: number, ok: boolean, error?: string, [key: string]: any}} ReplyMessage
 *   the answer to a message with an id: {ok: true, …result} or {ok: false, error}
 * @typedef {{type: 'settingUp'}} SettingUpMessage
 *   the worker has its module and begins an init: it has started, and its set-up takes as long as the run's size
 *   asks (the page times a worker's start up to here, not the set-up: runs.js #spawn)
 * @typedef {{type: 'progress', step: Int32Array, loss: Float64Array, stepsDone: number, seconds: number,
 *            helperSeconds: number, heapBytes: number}}
 *   ProgressMessage  the steps of one chunk: step (n) their indices, loss (n) their batches' losses; seconds of
 *   training so far (pauses excluded); helperSeconds: of those steps' halves taken by helpers (helper.js), on
 *   their own cores; heapBytes: the size of the worker's wasm memory now
 * @typedef {{type: 'val', step: number, loss: number}} ValMessage
 *   the validation loss after step steps: at set-up, every evalEvery steps and at the end
 * @typedef {{type: 'snapshot', step: number, weights: Uint8Array, full: Uint8Array}} SnapshotMessage
 *   every snapshotEvery steps and at the end: weights only (for scrubbing), and with the AdamW state (for recovery)
 * @typedef {{type: 'diverged', step: number, loss: number, limit: number}} DivergedMessage
 *   the loss of step blew up (above limit, or not finite); the run paused itself
 * @typedef {{type: 'done', stepsDone: number, seconds: number, sample: string, spent: Record<string, number>,
 *            spentBeforeStart: Record<string, number>, bootMs: number}} DoneMessage
 *   the schedule ended (at its last step, or at settings.stopAtLoss), or stop: the core's end sample; spent: the
 *   worker's milliseconds by part since its start (costs.js: module, init, train, evaluate, induction, trace,
 *   snapshot, finish), and of those spentBeforeStart before the page first said start (its set-up and first
 *   measurement); bootMs: from the worker's creation to its script running
 * @typedef {{type: 'causality', when: 'init'|'trained', step: number, report: object}} CausalityMessage
 *   with settings.causality: the core's causality check ({T, causal, nLeaks, leaks, depends}) on the random
 *   weights at set-up and on the trained ones at the end
 * @typedef {{type: 'swap', step: number, own: number, swapped: number}} SwapMessage
 *   with settings.swapCheck, at the end: the validation loss of these weights, and read in the swapped order
 * @typedef {{type: 'induction', step: number, measurement: object, probe: object}} InductionMessage
 *   induction task, at every measurement: per-head scores and copy losses, and the probe attention
 * @typedef {{type: 'trace', step: number, trace: object}} TraceMessage
 *   every task, at every measurement (set-up, every evalEvery steps, the end): the core's head trace on the run's
 *   first validation sequence ({L, H, T, K, ids (T), tokens (T), previous, first, entropy, maxEntropy, distance
 *   (L*H), profile (L*H, K)}), the same sequence every time
 * @typedef {{type: 'served', spent: Record<string, number>, bootMs: number}} ServedMessage
 *   a helper's link quit: its milliseconds by part (train: the halves it took, evaluate: the validation batches),
 *   and from its creation to its script running (as DoneMessage's)
 * @typedef {{type: 'failed', error: string, outOfMemory?: boolean}} FailedMessage
 *   something the worker was doing failed (a chunk of training, a measurement, a bug caught at the top); the
 *   sentence says what. A failed chunk pauses the run; outOfMemory: the module ran out of memory and answers nothing
 *   else from now on, so the run fails and its worker is ended (web/marshal.hpp, out_of_memory).
 */

// ---------------------------------------------------------------- the list: type -> required fields
// a field ending in '?' may be left out; a reply carries the fields of its result besides these
const TO_WORKER_FIELDS = {
  core: ['kernels', 'module'],
  init: ['id', 'settings', 'text', 'checkpoint', 'known?', 'hooks?'],
  start: [],
  pause: ['id'],
  stop: [],
  inspect: ['id', 'text', 'source', 'ablate', 'tie', 'withLoss'],
  snapshot: ['id', 'withOptimizer'],
  restore: ['id', 'bytes', 'settings'],
  inductionWithout: ['id', 'ablate'],
  prune: ['id'],
  assist: ['shared', 'tokens', 'params'],
  serve: ['shared', 'tokens', 'params'],
  crash: [],
};
const FROM_WORKER_FIELDS = {
  reply: ['id', 'ok', 'error?'],
  settingUp: [],
  progress: ['step', 'loss', 'stepsDone', 'seconds', 'helperSeconds', 'heapBytes'],
  val: ['step', 'loss'],
  snapshot: ['step', 'weights', 'full'],
  diverged: ['step', 'loss', 'limit'],
  done: ['stepsDone', 'seconds', 'sample', 'spent', 'spentBeforeStart', 'bootMs'],
  causality: ['when', 'step', 'report'],
  swap: ['step', 'own', 'swapped'],
  induction: ['step', 'measurement', 'probe'],
  trace: ['step', 'trace'],
  served: ['spent', 'bootMs'],
  failed: ['error', 'outOfMemory?'],
};

const names = (fields) => Object.freeze(Object.fromEntries(Object.keys(fields).map((k) => [k, k])));

/** The message types the page sends to a worker. */
export const TO_WORKER = names(TO_WORKER_FIELDS);
/** The message types a worker sends to the page. */
export const FROM_WORKER = names(FROM_WORKER_FIELDS);

// ---------------------------------------------------------------- building and checking messages

/**
 * What is wrong with a message, by the list above: an unknown type or a missing field.
 * @param {typeof TO_WORKER | typeof FROM_WORKER} direction
 * @param {{type: string, [key: string]: any}} msg
 * @returns {string|null} a sentence (a bug on our side), or null when the message is as listed
 */
export function checkMessage(direction, msg) {
  const table = direction === TO_WORKER ? TO_WORKER_FIELDS : FROM_WORKER_FIELDS;
  const fields = Object.prototype.hasOwnProperty.call(table, msg?.type) ? table[msg.type] : null;
  const to = direction === TO_WORKER ? 'to a worker' : 'from a worker';
  if (!fields) return `unknown message '${msg?.type}' ${to}`;
  const missing = fields.filter((f) => !f.endsWith('?') && !(f in msg));
  return missing.length ? `the message '${msg.type}' ${to} lacks ${missing.join(', ')}` : null;
}

function post(port, direction, type, fields, transfer) {
  const msg = { type, ...fields };
  const err = checkMessage(direction, msg);
  if (err) throw new Error(err);
  port.postMessage(msg, transfer);
}

/**
 * Sends a message to a worker, after checking it against the list (throws on a mismatch: a bug on our side).
 * @param {Worker} worker
 * @param {string} type one of TO_WORKER
 * @param {object} [fields] the message's fields besides type
 * @param {Transferable[]} [transfer]
 */
export function toWorker(worker, type, fields = {}, transfer = []) {
  post(worker, TO_WORKER, type, fields, transfer);
}

/**
 * Sends a message from a worker to the page, after checking it against the list (throws on a mismatch).
 * @param {{postMessage: (msg: object, transfer: Transferable[]) => void}} scope the worker's global scope
 * @param {string} type one of FROM_WORKER
 * @param {object} [fields] the message's fields besides type
 * @param {Transferable[]} [transfer]
 */
export function fromWorker(scope, type, fields = {}, transfer = []) {
  post(scope, FROM_WORKER, type, fields, transfer);
}

// ---------------------------------------------------------------- what a Run tells its panel
// Per event: true when it streams (it comes many times while a run trains and changes what is drawn, never the run's
// state: a panel redraws for it at its own pace, and a comparison need not look at its slots); false when the run's
// state may have changed (set up, ended, failed, blew up, restarted), which a comparison acts on at once.
const RUN_EVENT_STREAMS = {
  ready: false,        // the worker is set up: run.facts (also a new one of a run whose worker died before it trained)
  status: false,       // started or paused from the page
  restored: false,     // back at the last good snapshot after a blow-up: {fromStep}
  died: false,         // the worker crashed: {reason, atStep, fromStep}; a new one starts from that snapshot
  restarted: false,    // the new worker of a run that had trained is set up: {fromStep}
  failed: false,       // {error}: the run failed for good (run.status 'failed'), or one task of its worker did
  progress: true,
  val: true,
  snapshot: true,
  diverged: false,
  done: false,
  causality: false,
  swap: false,
  induction: true,
  trace: true,
  reset: false,        // sent by a panel, not by a Run: it replaced its runs (no run)
};

/**
 * What a Run tells its panel (RunEvent.type), besides the run itself. The events named as worker messages
 * (FROM_WORKER) follow one of them, after the Run has taken in its content (run.train, run.val, …).
 */
export const RUN_EVENT = names(RUN_EVENT_STREAMS);

/**
 * @param {string} type one of RUN_EVENT
 * @returns {boolean} whether the event streams (RUN_EVENT_STREAMS)
 */
export const streams = (type) => RUN_EVENT_STREAMS[type] === true;
