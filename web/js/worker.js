// One training run in its own Web Worker, with its own wasm instance: the main thread only draws. Loaded as a
// module worker (new Worker(url, {type: 'module'})), or, on a page with an opaque origin, as a classic blob
// worker that has imported mha.classic.js and this file bundled (worker.classic.js). No DOM in this file.
// The messages in and out are listed, with their fields, in protocol.js.
import createMha from '../mha.js';
import { checkMessage, FROM_WORKER, fromWorker, TO_WORKER } from './protocol.js';

const SETTINGS = {
  chunkMs: 40,          // ms of training between two looks at the message queue (keeps inspect snappy)
  sampleChars: 160,     // characters of the sample at the end of a run
  sampleTemperature: 0.8,
  inductionProbes: 64,  // sequences of the task per induction measurement (core/induction_study.hpp)
};

/** @type {object|null} the Embind module */
let mod = null;
/** the run and the inspector (a second session that loads snapshots or follows the run) */
let run = null;
let probe = null;
let settings = null;
let text = '';
let status = 'idle';   // idle | running | paused | done
let seconds = 0;       // training time so far, not counting pauses
let evalEvery = 10;
let snapshotEvery = 30;
let stepsPerChunk = 1;

const loading = createMha().then((m) => { mod = m; });

const post = (type, fields, transfer) => fromWorker(self, type, fields, transfer);

function reply(id, result, transfer = []) {
  post(FROM_WORKER.reply, { id, ...result }, transfer);
}

// ---------------------------------------------------------------- set-up
function init(msg) {
  free();
  settings = msg.settings;
  text = msg.text;
  run = new mod.Session();
  const induction = settings.task === 'induction';
  let facts;
  if (msg.checkpoint && induction) {
    // the induction task has no text: set the task up, then load the weights, AdamW state and progress
    facts = run._init(settings, '');
    if (facts.ok) facts = run._restore(msg.checkpoint);
  } else {
    facts = msg.checkpoint ? run._initFromCheckpoint(msg.checkpoint, settings, text) : run._init(settings, text);
  }
  if (!facts.ok) {
    free();
    return facts;
  }
  evalEvery = Math.max(1, settings.evalEvery | 0 || 10);
  snapshotEvery = Math.max(1, settings.snapshotEvery | 0 || 30);
  seconds = 0;
  status = facts.stepsDone >= facts.steps ? 'done' : 'idle';
  measure();
  // leaks are structural: the check on the random weights already finds them
  if (settings.causality) postCausality('init');
  postSnapshot();
  return facts;
}

// the validation loss (and, on the induction task, the scores) of the weights now; returns the evaluation
function measure() {
  const val = run._evaluate();
  if (val.ok) post(FROM_WORKER.val, { step: run._facts().stepsDone, loss: val.loss });
  if (settings.task === 'induction') postInduction();
  return val;
}

function postCausality(when) {
  const report = run._causality();
  if (report.ok) post(FROM_WORKER.causality, { when, step: run._facts().stepsDone, report }, [report.leaks.buffer, report.depends.buffer]);
}

function postInduction() {
  const measurement = run._induction(SETTINGS.inductionProbes);
  const probe = run._probeAttention();
  if (measurement.ok && probe.ok) {
    post(FROM_WORKER.induction, { step: run._facts().stepsDone, measurement, probe }, [probe.att.buffer]);
  } else {
    post(FROM_WORKER.failed, { error: measurement.error ?? probe.error });
  }
}

function free() {
  clearTimeout(timer);
  status = 'idle';
  run?.delete();
  probe?.delete();
  run = probe = null;
}

function postSnapshot() {
  const weights = run._snapshot(false), full = run._snapshot(true);
  if (!weights.ok || !full.ok) return;
  post(FROM_WORKER.snapshot, { step: full.step, weights: weights.bytes, full: full.bytes }, [weights.bytes.buffer, full.bytes.buffer]);
}

// ---------------------------------------------------------------- the loop
let timer = 0;

function loop() {
  if (status !== 'running') return;
  const t0 = performance.now();
  const r = run._train(stepsPerChunk);
  const dt = (performance.now() - t0) / 1000;
  if (!r.ok) {
    status = 'paused';
    post(FROM_WORKER.failed, { error: r.error });
    return;
  }
  seconds += dt;
  // adapt the chunk to about chunkMs, but never past an evaluation or snapshot boundary
  const perStep = dt / Math.max(1, r.step.length);
  stepsPerChunk = Math.max(1, Math.min(evalEvery, Math.round(SETTINGS.chunkMs / 1000 / Math.max(perStep, 1e-4))));
  post(FROM_WORKER.progress, { step: r.step, loss: r.loss, stepsDone: r.stepsDone, seconds });
  if (r.diverged >= 0) {
    status = 'paused';
    post(FROM_WORKER.diverged, { step: r.step[r.diverged], loss: r.loss[r.diverged], limit: run._facts().divergenceLimit });
    return;
  }
  const done = r.step.length === 0 || r.stepsDone >= settings.steps;
  const crossed = (every) => r.step.some((s) => (s + 1) % every === 0);
  const val = crossed(evalEvery) || done ? measure() : null;
  if (crossed(snapshotEvery) || done) postSnapshot();
  if (done) return finish(val);
  timer = setTimeout(loop, 0);  // let messages (inspect, pause) in between chunks
}

// own: the evaluation of the final weights, just measured
function finish(own) {
  status = 'done';
  if (settings.causality) postCausality('trained');
  if (settings.swapCheck) {
    const swapped = run._evaluateAs('swapped_order');
    if (own.ok && swapped.ok) post(FROM_WORKER.swap, { step: run._facts().stepsDone, own: own.loss, swapped: swapped.loss });
    else post(FROM_WORKER.failed, { error: own.error ?? swapped.error });
  }
  const s = run._sample('\n', SETTINGS.sampleChars, SETTINGS.sampleTemperature, (settings.seed >>> 0) + 2);
  post(FROM_WORKER.done, { stepsDone: run._facts().stepsDone, seconds, sample: s.ok ? s.text : '' });
}

// ---------------------------------------------------------------- looking inside
// the inspector: a second session of the same model, created from the run's weights the first time
function inspector() {
  if (probe) return { ok: true };
  const snap = run._snapshot(false);
  if (!snap.ok) return snap;
  probe = new mod.Session();
  const r = probe._initFromCheckpoint(snap.bytes, { ...settings, steps: Math.max(settings.steps, run._facts().stepsDone) }, text);
  if (!r.ok) {
    probe.delete();
    probe = null;
  }
  return r;
}

function inspect(msg) {
  const ready = inspector();
  if (!ready.ok) return ready;
  const loaded = msg.source === 'live' ? probe._copyWeightsFrom(run) : probe._restore(msg.source);
  if (!loaded.ok) return loaded;
  const result = { ok: true };
  const modified = (msg.ablate?.length ?? 0) > 0 || !!msg.tie;
  if (msg.withLoss) {
    const base = probe._evaluate();
    if (!base.ok) return base;
    result.valBase = base.loss;
  }
  for (const [l, h] of msg.ablate ?? []) {
    const r = probe._setHeadEnabled(l, h, false);
    if (!r.ok) return r;
  }
  if (msg.tie) probe._tie(0);
  if (msg.withLoss) result.valModified = modified ? probe._evaluate().loss : result.valBase;
  const maps = probe._attention(msg.text);
  const scores = maps.ok ? probe._scores(msg.text) : maps;
  probe._enableAllHeads();
  probe._untie();
  if (!maps.ok) return maps;
  if (!scores.ok) return scores;
  return { ...result, maps, scores };
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
    case TO_WORKER.init:
      return reply(msg.id, init(msg));
    case TO_WORKER.start:
      if (!run || status === 'done') return;
      status = 'running';
      clearTimeout(timer);
      timer = setTimeout(loop, 0);
      return;
    case TO_WORKER.pause:
      if (status === 'running') status = 'paused';
      return;
    case TO_WORKER.stop:
      if (!run || status === 'done') return;
      clearTimeout(timer);
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
      clearTimeout(timer);
      status = 'paused';
      let r = run._restore(msg.bytes);
      if (r.ok && msg.settings) {
        r = run._setTrainConfig(msg.settings);
        if (r.ok) settings = { ...settings, ...msg.settings };
      }
      return reply(msg.id, r);
    }
    case TO_WORKER.crash:
      setTimeout(() => { throw new Error('mha-test-crash: this worker was told to die'); }, 0);
      return;
  }
}

self.onmessage = (e) => {
  handle(e.data).catch((err) => {
    // a bug on our side: say so, rather than dying silently
    post(FROM_WORKER.failed, { error: String(err?.message ?? err) });
  });
};
