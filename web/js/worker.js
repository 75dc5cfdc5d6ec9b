// One training run at a time in its own Web Worker, with its own wasm instance: the main thread only draws. A worker
// whose run finished may be given the next run (runs.js Run.#reclaim): init frees the run before. Loaded as a
// module worker (new Worker(url, {type: 'module'})), or, on a page with an opaque origin, as a classic blob
// worker that has imported mha.classic.js and this file bundled (worker.classic.js). No DOM in this file.
// The messages in and out are listed, with their fields, in protocol.js. The worker owns two objects of the core:
// the Run (model, AdamW state, data, validation batches) and, once the page looks inside, an Inspector attached to
// it (the same model's weights: the run's now, or a snapshot's), each freed with delete().
import createMha from '../mha.js';
import { costTally } from './costs.js';
import { halfViews, runSide, serveJobs } from './half_link.js';
import { moduleOptions } from './kernels_module.js';
import { checkMessage, FROM_WORKER, fromWorker, TO_WORKER } from './protocol.js';

// where this worker's time goes, by part (sent with done, for scripts/bench_page.mjs); bootMs: from the worker's
// creation (its timeOrigin) to this script running: the fetch and evaluation of its modules (0 for the later runs
// of a worker that a finished run gave over: runs.js Run.#reclaim)
const costs = costTally();
let bootMs = performance.now();
const timed = costs.timed;
/** @type {Record<string, number> | null} the tally when the page first said start: what set-up cost */
let spentBeforeStart = null;

const SETTINGS = {
  // ms of training between two looks at the message queue: a pause or a look inside waits at most this long. Each
  // chunk ends with a progress message, which wakes the page's main thread on the cores the workers train on: at
  // 40 ms "messages and gaps" were 0.26-0.39 s a slot of Break it's 21 s, at 100 ms 0.15-0.28 (docs/experiments.md)
  chunkMs: 100,
};

/** @type {import('../mha.js').Mha | null} the Embind module */
let mod = null;
let probed = false;  // the run's task is measured by the induction probes (init)
let tasks = null;     // the core's task table (constants().tasks)
/** the run, and the inspector that looks inside its model (created at the first look) */
let run = null;
let inspector = null;
let hosted = false;  // a run was set up in this worker before (init)
let settings = null;
let status = 'idle';   // idle | running | paused | done
let seconds = 0;       // training time so far, not counting pauses
let evalEvery = 10;
let snapshotEvery = 30;
let stepsPerChunk = 1;
let stopAtLoss = 0;    // nats: the run ends at its first measurement at or below this (0: at its schedule's end)
let divergenceLimit = NaN;  // the run's, read once at set-up: the blow-up message states it
/** @type {ReturnType<typeof runSide> | null} while a helper takes half of each step (TO_WORKER.assist) */
let helperLink = null;
let helperSeconds = 0;        // the helpers' seconds of halves for this run so far, the current one's included
let helperSecondsBefore = 0;  // of the helpers before the current one

// which build of the core this worker trains with (kernels_module.js): a classic worker (opaque origin) has the one
// its page imported for it (runs.js spawnWorker); a module worker is sent the module its page compiled for every
// worker (TO_WORKER.core, its first message) and instantiates that, or, sent none, loads the kernels named itself,
// with mha.wasm should those not load (a site copied in part, say)
const globals = /** @type {{MHA_SCRIPT_URL?: string, MHA_KERNELS?: string}} */ (/** @type {unknown} */ (self));
const classicWorker = typeof globals.MHA_SCRIPT_URL === 'string';
/** @type {import('./kernels_module.js').Kernels} */
let kernels = classicWorker && globals.MHA_KERNELS === 'relaxed-simd' ? 'relaxed-simd' : 'simd128';
/** @type {(msg: import('./kernels_module.js').CompiledCore) => void} */
let coreGiven = () => {};
const coreMessage = new Promise((resolve) => { coreGiven = resolve; });

/**
 * createMha on a module already compiled: Emscripten's glue hands the instantiation to instantiateWasm.
 * @param {WebAssembly.Module} module
 */
function instantiateCompiled(module) {
  return new Promise((resolve, reject) => {
    createMha({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), reject);
        return {};
      },
    }).then(resolve, reject);
  });
}

// the kernels named, fetched and compiled here, or mha.wasm should those not load
function loadOwn() {
  return createMha(moduleOptions(kernels, import.meta.url)).catch(() => {
    kernels = 'simd128';
    return createMha();
  });
}

async function loadCore() {
  if (classicWorker) return createMha();
  const given = await coreMessage;
  kernels = given.kernels;
  return given.module ? instantiateCompiled(given.module).catch(loadOwn) : loadOwn();
}
const loading = loadCore().then((m) => {
  mod = m;
  // the wait for the page's module and its instantiation (or a fetch and compilation of its own)
  costs.add('module', performance.now() - bootMs);
});

// this file runs in a worker, whose global scope posts to the page; the type check knows `self` only as a Window
// (jsconfig.json: the DOM's types), whose postMessage takes a target origin
const scope = /** @type {Parameters<typeof fromWorker>[0]} */ (/** @type {unknown} */ (self));
const post = (type, fields, transfer) => fromWorker(scope, type, fields, transfer);

function reply(id, result, transfer = []) {
  post(FROM_WORKER.reply, { id, ...result }, transfer);
}

// ---------------------------------------------------------------- set-up
function init(msg) {
  free();
  if (hosted) {
    // a worker given over by a finished run: this run's costs are its own, its start was paid before, and its first
    // chunk is sized by its own steps (a step of the run before may have been far shorter)
    costs.reset();
    spentBeforeStart = null;
    bootMs = 0;
    stepsPerChunk = 1;
  }
  hosted = true;
  settings = msg.settings;
  run = new mod.Run();
  const facts = timed('init', () => run._init(settings, msg.text, msg.checkpoint ?? null));
  if (!facts.ok) {
    free();
    return facts;
  }
  divergenceLimit = facts.divergenceLimit;
  // the task table's row of the run's task: a task the induction lab's probes measure gets them at every measurement
  tasks ??= mod._constants().tasks;  // the core's task table, read through Embind once per worker
  probed = tasks.find((t) => t.name === facts.task)?.inductionProbes === true;
  evalEvery = Math.max(1, settings.evalEvery | 0 || 10);
  snapshotEvery = Math.max(1, settings.snapshotEvery | 0 || 30);
  stopAtLoss = settings.stopAtLoss > 0 ? settings.stopAtLoss : 0;
  seconds = helperSeconds = helperSecondsBefore = 0;
  status = facts.stepsDone >= facts.steps ? 'done' : 'idle';
  // a run the page has measured already (taken back from the store, a finished run's worker started again) is not
  // measured again
  if (!msg.known) {
    measure();
    // leaks are structural: the check on the random weights already finds them
    if (settings.causality) postCausality('init');
    postSnapshot();
  }
  facts.kernels = kernels;
  return facts;
}

// the validation loss (on the induction task also its scores, on every task the head trace) of the weights now;
// returns the evaluation
function measure() {
  const val = timed('evaluate', () => run._evaluate());
  if (val.ok) post(FROM_WORKER.val, { step: run._stepsDone(), loss: val.loss });
  if (probed) timed('induction', postInduction);
  timed('trace', postTrace);
  return val;
}

function postCausality(when) {
  const report = timed('causality', () => run._causality());
  if (report.ok) post(FROM_WORKER.causality, { when, step: run._stepsDone(), report }, [report.leaks.buffer, report.depends.buffer]);
}

function postInduction() {
  const measurement = run._induction();
  const probe = run._probeAttention();
  if (measurement.ok && probe.ok) {
    post(FROM_WORKER.induction, { step: run._stepsDone(), measurement, probe }, [probe.att.buffer]);
  } else {
    post(FROM_WORKER.failed, { error: measurement.error ?? probe.error });
  }
}

// every task: what each head does on the first validation sequence, for the lines over training in "Look inside"
function postTrace() {
  const trace = run._trace();
  if (!trace.ok) return post(FROM_WORKER.failed, { error: trace.error });
  const { ok, ...fields } = trace;
  post(FROM_WORKER.trace, { step: run._stepsDone(), trace: fields },
    [fields.ids, fields.previous, fields.first, fields.entropy, fields.maxEntropy, fields.distance, fields.profile].map((a) => a.buffer));
}

function free() {
  haltLoop();
  helperLink = null;
  status = 'idle';
  inspector?.delete();
  run?.delete();
  run = inspector = null;
}

function postSnapshot() {
  timed('snapshot', postSnapshotNow);
}

function postSnapshotNow() {
  const weights = run._snapshot(false), full = run._snapshot(true);
  if (!weights.ok || !full.ok) return;
  post(FROM_WORKER.snapshot, { step: full.step, weights: weights.bytes, full: full.bytes }, [weights.bytes.buffer, full.bytes.buffer]);
}

// ---------------------------------------------------------------- the loop
// The loop yields between chunks with a message to itself: a task, so the page's messages (inspect, pause) are
// handled in between, but one that runs at once. setTimeout(loop, 0) did the same and waited too: browsers clamp a
// timeout nested five deep to at least 4 ms, a tenth of a 40 ms chunk, and the page's heads comparison spent 11% of
// its wall time in those gaps (scripts/bench_page.mjs, "messages and gaps in a run").
const tick = new MessageChannel();
let ticking = false;  // a tick is on its way
let looping = false;  // the loop runs at the next tick
tick.port1.onmessage = () => {
  ticking = false;
  if (!looping) return;
  looping = false;
  loop();
};
/** runs loop() as the next task */
function continueLoop() {
  looping = true;
  if (ticking) return;
  ticking = true;
  tick.port2.postMessage(0);
}
/** the pending loop() does not run */
function haltLoop() {
  looping = false;
}

// steps from `done` to the next evaluation or snapshot boundary, or to the schedule's end: a chunk ends there, so
// the measurements fall on the schedule's grid (comparison.js evalGrid) whatever the chunk size. (A chunk that
// merely crossed a boundary was measured at its end: at steps 3, 5, 7 … instead of 2, 4, 6 …, by timing.)
function stepsToBoundary(done) {
  const next = (every) => every - (done % every);
  return Math.max(1, Math.min(next(evalEvery), next(snapshotEvery), settings.steps - done));
}

function loop() {
  if (status !== 'running') return;
  if (helperLink?.spent()) {  // the helper went: the steps take both halves here again
    run._attachHelper(null);
    helperLink = null;
    helperSecondsBefore = helperSeconds;
  }
  const t0 = performance.now();
  const r = run._train(Math.min(stepsPerChunk, stepsToBoundary(run._stepsDone())));
  const dt = (performance.now() - t0) / 1000;
  costs.add('train', 1000 * dt);
  if (!r.ok) {
    status = 'paused';
    post(FROM_WORKER.failed, { error: r.error, outOfMemory: r.outOfMemory === true });
    return;
  }
  seconds += dt;
  if (helperLink) helperSeconds = helperSecondsBefore + helperLink.helperMs() / 1000;
  // adapt the chunk to about chunkMs (stepsToBoundary cuts it at the next boundary)
  const perStep = dt / Math.max(1, r.step.length);
  stepsPerChunk = Math.max(1, Math.round(SETTINGS.chunkMs / 1000 / Math.max(perStep, 1e-4)));
  post(FROM_WORKER.progress, { step: r.step, loss: r.loss, stepsDone: r.stepsDone, seconds, helperSeconds,
    heapBytes: mod.HEAPU8.length });
  if (r.diverged >= 0) {
    status = 'paused';
    post(FROM_WORKER.diverged, { step: r.step[r.diverged], loss: r.loss[r.diverged], limit: divergenceLimit });
    return;
  }
  const done = r.step.length === 0 || r.stepsDone >= settings.steps;
  // a chunk ends at a boundary (stepsToBoundary): the steps done now are on it, or the chunk crossed none
  const at = (every) => r.stepsDone % every === 0;
  const val = at(evalEvery) || done ? measure() : null;
  // a run compared by the step it first reaches a loss ends there (settings.stopAtLoss): the rest would not change it
  const reached = stopAtLoss > 0 && val?.ok === true && val.loss <= stopAtLoss;
  if (at(snapshotEvery) || done || reached) postSnapshot();
  if (done || reached) return finish(val);
  continueLoop();  // the page's messages (inspect, pause) are handled in between chunks
}

// own: the evaluation of the final weights, just measured
function finish(own) {
  status = 'done';
  if (settings.causality) postCausality('trained');  // timed apart: 'causality' (not in 'finish' too)
  const sample = timed('finish', () => finishNow(own));
  post(FROM_WORKER.done, { stepsDone: run._stepsDone(), seconds, sample, spent: costs.totals(),
    spentBeforeStart: spentBeforeStart ?? {}, bootMs });
}

// the swap check and the sample at the end; returns the sample
function finishNow(own) {
  if (settings.swapCheck) {
    const swapped = run._evaluateAs('swapped_order');
    if (own.ok && swapped.ok) post(FROM_WORKER.swap, { step: run._stepsDone(), own: own.loss, swapped: swapped.loss });
    else post(FROM_WORKER.failed, { error: own.error ?? swapped.error });
  }
  if (settings.sample === false) return '';  // a run whose sample the page does not show (a later seed's)
  const s = run._endSample();
  return s.ok ? s.text : '';
}

// ---------------------------------------------------------------- looking inside
// one look: the inspector takes the run's config, vocabulary and validation batches once, then the weights to look
// at (the run's now, or a snapshot's); the ablation and the tie hold for this look only
function inspect(msg) {
  if (!inspector) {
    inspector = new mod.Inspector();
    const attached = inspector._attach(run);
    if (!attached.ok) {
      inspector.delete();
      inspector = null;
      return attached;
    }
  }
  const loaded = msg.source === 'live' ? inspector._follow(run) : inspector._load(msg.source);
  if (!loaded.ok) return loaded;
  return inspector._look({ text: msg.text, ablate: msg.ablate, tie: !!msg.tie, withLoss: !!msg.withLoss });
}

// ---------------------------------------------------------------- messages
const NOT_SET_UP = { ok: false, error: 'This run is not set up.' };

async function handle(msg) {
  await loading;
  const wrong = checkMessage(TO_WORKER, msg);
  if (wrong) {
    if (msg?.id !== undefined) reply(msg.id, { ok: false, error: wrong });
    else post(FROM_WORKER.failed, { error: wrong });
    return;
  }
  switch (msg.type) {
    case TO_WORKER.init: {
      post(FROM_WORKER.settingUp, {});  // started: the page stops timing the start (runs.js #spawn)
      // the tests' hooks (InitMessage hooks): a slower set-up, or a failed one
      const { delayMs = 0, breakWith } = msg.hooks ?? {};
      const until = performance.now() + delayMs;
      while (performance.now() < until);
      const dies = () => { throw new Error('mha-test-crash: this worker died in a set-up'); };
      if (breakWith === 'die') return void setTimeout(dies);
      if (breakWith === 'throw') throw new Error('mha-test-crash: the set-up threw');
      return reply(msg.id, init(msg));
    }
    case TO_WORKER.start:
      if (!run || status === 'done') return;
      spentBeforeStart ??= costs.totals();
      status = 'running';
      continueLoop();
      return;
    case TO_WORKER.pause:
      if (status === 'running') status = 'paused';
      return reply(msg.id, { ok: true, stepsDone: run ? run._stepsDone() : 0 });
    case TO_WORKER.stop:
      if (!run || status === 'done') return;
      haltLoop();
      {
        const val = measure();
        postSnapshot();
        return finish(val);
      }
    case TO_WORKER.inspect: {
      if (!run) return reply(msg.id, NOT_SET_UP);
      const r = inspect(msg);
      return reply(msg.id, r, r.ok ? [r.maps.att.buffer] : []);
    }
    case TO_WORKER.snapshot: {
      if (!run) return reply(msg.id, NOT_SET_UP);
      const r = run._snapshot(!!msg.withOptimizer);
      return reply(msg.id, r, r.ok ? [r.bytes.buffer] : []);
    }
    case TO_WORKER.restore: {
      if (!run) return reply(msg.id, NOT_SET_UP);
      haltLoop();
      status = 'paused';
      let r = run._restore(msg.bytes);
      if (r.ok && msg.settings) {
        r = run._setSchedule(msg.settings);
        if (r.ok) settings = { ...settings, ...msg.settings };
      }
      return reply(msg.id, r);
    }
    case TO_WORKER.inductionWithout: {
      if (!run) return reply(msg.id, NOT_SET_UP);
      const full = run._induction();
      const without = full.ok ? run._inductionWithout({ ablate: msg.ablate }) : full;
      if (!without.ok) return reply(msg.id, without);
      return reply(msg.id, { ok: true, step: run._stepsDone(), full, without });
    }
    case TO_WORKER.prune: {
      if (!run) return reply(msg.id, NOT_SET_UP);
      const r = run._pruneHeads();
      return reply(msg.id, r, r.ok ? [r.importance.buffer, r.order.buffer, r.loss.buffer] : []);
    }
    case TO_WORKER.assist:
      if (!run) return;
      helperLink = runSide(halfViews(msg.shared, msg.tokens, msg.params));
      run._attachHelper(helperLink);
      return;
    case TO_WORKER.serve:
      if (!run) return post(FROM_WORKER.failed, { error: NOT_SET_UP.error });
      serveJobs(halfViews(msg.shared, msg.tokens, msg.params), run, (ms, part) => costs.add(part, ms));
      return post(FROM_WORKER.served, { spent: costs.totals(), bootMs });
    case TO_WORKER.crash:
      setTimeout(() => { throw new Error('mha-test-crash: this worker was told to die'); }, 0);
      return;
  }
}

self.onmessage = (e) => {
  // the core comes before everything else: handle() waits for it
  if (e.data?.type === TO_WORKER.core && !checkMessage(TO_WORKER, e.data)) return coreGiven(e.data);
  handle(e.data).catch((err) => {
    // a bug on our side, or a trap of the core: say so, rather than dying silently. A request is answered with it, so
    // that the page never waits for its reply: a set-up that threw, unanswered, would leave its run starting for
    // ever (the page stops timing a start once the worker began it)
    const error = `The training worker failed (${String(err?.message ?? err)}).`;
    if (e.data?.id !== undefined) reply(e.data.id, { ok: false, error });
    else post(FROM_WORKER.failed, { error });
  });
};
