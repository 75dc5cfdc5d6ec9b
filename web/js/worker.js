// One training run in its own Web Worker, with its own wasm instance: the main thread only draws. Loaded as a
// module worker (new Worker(url, {type: 'module'})), or, on a page with an opaque origin, as a classic blob
// worker that has imported mha.classic.js and this file bundled (worker.classic.js). No DOM in this file.
//
// Messages in (main -> worker); every one with an `id` is answered by { type: 'reply', id, ok, ... }:
//   { type: 'init', id, settings, text, checkpoint?: Uint8Array }    set up (a fresh run, or from a checkpoint)
//   { type: 'start' } / { type: 'pause' } / { type: 'stop' }          run the schedule, hold, finish early
//   { type: 'inspect', id, text, source: 'live' | Uint8Array, ablate: [[l, h], ...], tie: boolean, withLoss }
//   { type: 'sample', id, prompt, n, temperature, seed }
//   { type: 'snapshot', id, withOptimizer }
//   { type: 'restore', id, bytes, settings? }                         back to a snapshot, optionally a new schedule
//   { type: 'crash' }                                                 test hook: the worker dies (uncaught error)
// Messages out (worker -> main), besides the replies:
//   { type: 'progress', step: Int32Array, loss: Float64Array, stepsDone, seconds }
//   { type: 'val', step, loss }                                       every evalEvery steps and at the end
//   { type: 'snapshot', step, weights: Uint8Array, full: Uint8Array } weights for scrubbing, full for recovery
//   { type: 'diverged', step, loss, limit }                           the run blew up and paused itself
//   { type: 'done', stepsDone, seconds, sample }                      the schedule ended (or stop)
// With settings.causality (panel 5, "Break it"), and settings.swapCheck (its canonical run):
//   { type: 'causality', when: 'init' | 'trained', step, report }      the core's causality check (random / trained)
//   { type: 'swap', step, own, swapped }                              this run's weights read in the swapped order
// With settings.task === 'induction' (panel 7), at every evaluation:
//   { type: 'induction', step, measurement, probe }                   per-head scores, copy losses, probe attention
import createMha from '../mha.js';

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

function post(msg, transfer = []) {
  self.postMessage(msg, transfer);
}

function reply(id, result, transfer = []) {
  post({ type: 'reply', id, ...result }, transfer);
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
  if (val.ok) post({ type: 'val', step: run._facts().stepsDone, loss: val.loss });
  if (settings.task === 'induction') postInduction();
  return val;
}

function postCausality(when) {
  const report = run._causality();
  if (report.ok) post({ type: 'causality', when, step: run._facts().stepsDone, report }, [report.leaks.buffer, report.depends.buffer]);
}

function postInduction() {
  const measurement = run._induction(SETTINGS.inductionProbes);
  const probe = run._probeAttention();
  if (measurement.ok && probe.ok) {
    post({ type: 'induction', step: run._facts().stepsDone, measurement, probe }, [probe.att.buffer]);
  } else {
    post({ type: 'failed', error: measurement.error ?? probe.error });
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
  post({ type: 'snapshot', step: full.step, weights: weights.bytes, full: full.bytes }, [weights.bytes.buffer, full.bytes.buffer]);
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
    post({ type: 'failed', error: r.error });
    return;
  }
  seconds += dt;
  // adapt the chunk to about chunkMs, but never past an evaluation or snapshot boundary
  const perStep = dt / Math.max(1, r.step.length);
  stepsPerChunk = Math.max(1, Math.min(evalEvery, Math.round(SETTINGS.chunkMs / 1000 / Math.max(perStep, 1e-4))));
  post({ type: 'progress', step: r.step, loss: r.loss, stepsDone: r.stepsDone, seconds });
  if (r.diverged >= 0) {
    status = 'paused';
    post({ type: 'diverged', step: r.step[r.diverged], loss: r.loss[r.diverged], limit: run._facts().divergenceLimit });
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
    if (own.ok && swapped.ok) post({ type: 'swap', step: run._facts().stepsDone, own: own.loss, swapped: swapped.loss });
    else post({ type: 'failed', error: own.error ?? swapped.error });
  }
  const s = run._sample('\n', SETTINGS.sampleChars, SETTINGS.sampleTemperature, (settings.seed >>> 0) + 2);
  post({ type: 'done', stepsDone: run._facts().stepsDone, seconds, sample: s.ok ? s.text : '' });
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
async function handle(msg) {
  await loading;
  switch (msg.type) {
    case 'init':
      return reply(msg.id, init(msg));
    case 'start':
      if (!run || status === 'done') return;
      status = 'running';
      clearTimeout(timer);
      timer = setTimeout(loop, 0);
      return;
    case 'pause':
      if (status === 'running') status = 'paused';
      return;
    case 'stop':
      if (!run || status === 'done') return;
      clearTimeout(timer);
      {
        const val = measure();
        postSnapshot();
        return finish(val);
      }
    case 'inspect': {
      if (!run) return reply(msg.id, { ok: false, error: 'This run is not set up.' });
      const r = inspect(msg);
      const transfer = r.ok ? [r.maps.att.buffer] : [];
      return reply(msg.id, r, transfer);
    }
    case 'sample': {
      if (!run) return reply(msg.id, { ok: false, error: 'This run is not set up.' });
      return reply(msg.id, run._sample(msg.prompt, msg.n, msg.temperature, msg.seed));
    }
    case 'snapshot': {
      if (!run) return reply(msg.id, { ok: false, error: 'This run is not set up.' });
      const r = run._snapshot(!!msg.withOptimizer);
      return reply(msg.id, r, r.ok ? [r.bytes.buffer] : []);
    }
    case 'restore': {
      if (!run) return reply(msg.id, { ok: false, error: 'This run is not set up.' });
      clearTimeout(timer);
      status = 'paused';
      let r = run._restore(msg.bytes);
      if (r.ok && msg.settings) {
        r = run._setTrainConfig(msg.settings);
        if (r.ok) settings = { ...settings, ...msg.settings };
      }
      return reply(msg.id, r);
    }
    case 'crash':
      setTimeout(() => { throw new Error('mha-test-crash: this worker was told to die'); }, 0);
      return;
    default:
      if (msg.id !== undefined) reply(msg.id, { ok: false, error: `unknown message '${msg.type}'` });
  }
}

self.onmessage = (e) => {
  handle(e.data).catch((err) => {
    // a bug on our side: say so, rather than dying silently
    post({ type: 'failed', error: String(err?.message ?? err) });
  });
};
