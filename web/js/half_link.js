// The memory a training worker and its helper share (helper.js): each step the run's worker writes the second half
// of its batch and the weights there, the helper takes that half's gradient and writes it back, and the run's step
// sums the two halves (core: Trainer::step, RemoteHalf). Each measurement the same way: the run's worker writes the
// weights and which validation batches, the helper writes back their losses (core: Run::evaluate). Both workers
// block on Atomics.wait for the other: a step copies the weights to the helper and the gradient back (each into the
// shared memory and out of it) and sends no message. Both sides are here, so their layout is written once.
// No DOM in this file.
//
// Layout of the SharedArrayBuffer (byte offsets, 8-aligned):
//   control   Int32Array(10)   POSTED (the number of the job written last), ANSWERED (the job whose answer was
//                              written last), QUIT (1: the helper ends, the run takes its halves itself again),
//                              B, T, NORM (a half's sequences and context, the whole batch's count of targets),
//                              FAILED (1: the helper could not do the posted job), KIND (HALF or EVAL), FIRST, COUNT
//                              (an evaluation's batches)
//   numbers   Float64Array(2)  the half's loss share; the helper's milliseconds of halves so far
//   losses    Float64Array(64) an evaluation's losses, one per batch (64: the core's RunLimits::max_eval_batches)
//   x, y      Int32Array(tokens) each: the half's inputs and targets
//   params    Float32Array(P)  the weights of the step, or of the measurement
//   grads     Float32Array(P)  the half's gradient
const POSTED = 0, ANSWERED = 1, QUIT = 2, B = 3, T = 4, NORM = 5, FAILED = 6, KIND = 7, FIRST = 8, COUNT = 9;
const CONTROL_INTS = 10;
const HALF = 0, EVAL = 1;  // the jobs: a half batch's gradient, validation batches' losses
const MAX_EVAL_BATCHES = 64;  // the core's RunLimits::max_eval_batches (half_link.test.mjs checks it)

const SETTINGS = {
  // the run's worker waits this long for an answer, plus 20 times what its own part took (its half, its batches),
  // before it does the job itself: the helper's core may be briefly taken, but a helper that never answers must not
  // hold the run up
  answerMs: 2000,
  answerTimesOwnPart: 20,
  // each side watches the shared word this long before it sleeps in Atomics.wait: the other side answers within a
  // fraction of a millisecond at every step, and a sleeping worker takes a while to wake (the offsets task's tail
  // run waited 0.13 ms a step for its helper's half, 0.10 ms when both watched first: its receives, timed)
  watchMs: 0.3,
  sleepMs: 100,
};

/**
 * Waits while control[i] is value and the link has not quit, watching for SETTINGS.watchMs before it sleeps in
 * Atomics.wait for at most SETTINGS.sleepMs (and timeoutMs): the caller looks again. A quit's notify that came while
 * this watched is not lost for long.
 * @param {Int32Array} control
 * @param {number} i
 * @param {number} value
 * @param {number} [timeoutMs]
 */
function waitWhile(control, i, value, timeoutMs = Infinity) {
  const until = performance.now() + SETTINGS.watchMs;
  while (Atomics.load(control, i) === value && Atomics.load(control, QUIT) === 0) {
    if (performance.now() > until) return void Atomics.wait(control, i, value, Math.min(timeoutMs, SETTINGS.sleepMs));
  }
}

/** @returns {boolean} two workers can share memory here (a cross-origin-isolated page) */
export function canShare() {
  return typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated === true;
}

/**
 * The views of a shared half link.
 * @param {SharedArrayBuffer} sab
 * @param {number} tokens the most tokens a half holds (the run's batch × context)
 * @param {number} params the model's parameter count
 */
export function halfViews(sab, tokens, params) {
  let at = 0;
  const next = (bytes) => {
    const from = at;
    at += Math.ceil(bytes / 8) * 8;
    return from;
  };
  const ints = (n) => new Int32Array(sab, next(4 * n), n);
  const floats = (n) => new Float32Array(sab, next(4 * n), n);
  return {
    control: ints(CONTROL_INTS),
    numbers: new Float64Array(sab, next(16), 2),
    losses: new Float64Array(sab, next(8 * MAX_EVAL_BATCHES), MAX_EVAL_BATCHES),
    x: ints(tokens),
    y: ints(tokens),
    params: floats(params),
    grads: floats(params),
  };
}

/**
 * The shared memory of a link for a run of these sizes.
 * @param {number} tokens the run's batch × context
 * @param {number} params
 * @returns {SharedArrayBuffer}
 */
export function newHalfLink(tokens, params) {
  const bytes = (n, size) => Math.ceil((n * size) / 8) * 8;
  return new SharedArrayBuffer(bytes(CONTROL_INTS, 4) + 16 + 8 * MAX_EVAL_BATCHES + 2 * bytes(tokens, 4) +
    2 * bytes(params, 4));
}

/**
 * Ends a link from any side: the helper leaves its loop, and a run's worker waiting for a half takes it itself.
 * @param {ReturnType<typeof halfViews>} v
 */
export function quitLink(v) {
  Atomics.store(v.control, QUIT, 1);
  Atomics.notify(v.control, POSTED);
  Atomics.notify(v.control, ANSWERED);
}

/**
 * The run's side: the object the core's LinkedHalf calls (web/bindings.cpp) at each step and each measurement.
 * After a quit, or a job not answered in time, it is spent: it sends nothing more and every receive says none came,
 * so the core does the rest itself (the same numbers: Trainer::step, Run::evaluate).
 * @param {ReturnType<typeof halfViews>} v
 * @returns {{send: Function, receive: Function, sendEval: Function, receiveEval: Function, spent: () => boolean,
 *   helperMs: () => number}} helperMs: the helper's milliseconds of halves so far (what the run's steps cost on
 *   its core)
 */
export function runSide(v) {
  let job = 0;  // a new link: the helper takes the first post as job 1 (serveJobs)
  let sentAt = 0;
  let spent = false;
  const quit = () => Atomics.load(v.control, QUIT) === 1;
  /** writes a job (the weights, and fill writes its inputs) and wakes the helper; nothing once the link is spent */
  const post = (kind, params, fill) => {
    if (spent || quit()) {
      spent = true;
      return;
    }
    v.params.set(params);
    fill();
    v.control[KIND] = kind;
    job += 1;
    Atomics.store(v.control, POSTED, job);
    Atomics.notify(v.control, POSTED);
    sentAt = performance.now();
  };
  /** waits for the answer to the job posted last: true when it came and is good, else the link is spent */
  const answered = () => {
    if (spent) return false;
    const ownPart = performance.now() - sentAt;  // what this side did meanwhile: its own half, its own batches
    const deadline = performance.now() + SETTINGS.answerMs + SETTINGS.answerTimesOwnPart * ownPart;
    for (;;) {
      const last = Atomics.load(v.control, ANSWERED);
      if (last === job) break;
      const left = deadline - performance.now();
      if (quit() || left <= 0) break;
      waitWhile(v.control, ANSWERED, last, left);
    }
    spent = Atomics.load(v.control, ANSWERED) !== job || v.control[FAILED] === 1;
    return !spent;
  };
  return {
    send(x, y, b, t, norm, params) {
      post(HALF, params, () => {
        v.x.set(x);
        v.y.set(y);
        v.control[B] = b;
        v.control[T] = t;
        v.control[NORM] = norm;
      });
    },
    receive(grads) {
      if (!answered()) return null;
      grads.set(v.grads);
      return v.numbers[0];
    },
    sendEval(first, count, params) {
      post(EVAL, params, () => {
        v.control[FIRST] = first;
        v.control[COUNT] = count;
      });
    },
    receiveEval(losses) {
      if (!answered()) return false;
      losses.set(v.losses.subarray(0, losses.length));
      return true;
    },
    spent: () => spent || quit(),
    helperMs: () => v.numbers[1],
  };
}

/**
 * The helper's side: does every job posted until the link quits, blocking this worker meanwhile. run is the
 * helper's own Run of the same settings (its model's config and variant, its validation batches are the run's).
 * Returns when it quits.
 * @param {ReturnType<typeof halfViews>} v
 * @param {{_halfBuffers: () => any, _halfGradient: (b: number, t: number, norm: number) => any,
 *   _evaluateBatches: (first: number, count: number) => any}} run
 * @param {(ms: number, part: 'train' | 'evaluate') => void} took the milliseconds of each job: a half's gradient
 *   (training) or validation batches (evaluation)
 */
export function serveJobs(v, run, took) {
  // a new link (newHalfLink): nothing posted yet. Not the value now: the run's worker may post its first job before
  // this line runs, and a helper that took that post for seen would wait for the next while the run waited for it
  let seen = 0;
  for (;;) {
    waitWhile(v.control, POSTED, seen);
    if (Atomics.load(v.control, QUIT) === 1) return;
    const job = Atomics.load(v.control, POSTED);
    if (job === seen) continue;
    seen = job;
    const t0 = performance.now();
    const half = v.control[KIND] === HALF;
    const into = run._halfBuffers();
    let r = into.ok ? null : into;
    if (into.ok) {
      into.params.set(v.params);
      r = half ? halfGradient(v, run, into) : run._evaluateBatches(v.control[FIRST], v.control[COUNT]);
    }
    if (r.ok && half) {
      v.grads.set(run._halfBuffers().grads);  // views again: a view made before the call may be stale after it
      v.numbers[0] = r.loss;
    } else if (r.ok) {
      v.losses.set(r.losses);
    }
    v.control[FAILED] = r.ok ? 0 : 1;
    const ms = performance.now() - t0;
    if (half) v.numbers[1] += ms;
    took(ms, half ? 'train' : 'evaluate');
    Atomics.store(v.control, ANSWERED, job);
    Atomics.notify(v.control, ANSWERED);
    if (!r.ok) return;
  }
}

/** the posted half's gradient on the helper's run, its inputs copied into the run's buffers (into) */
function halfGradient(v, run, into) {
  const b = v.control[B], t = v.control[T], n = b * t;
  into.x.set(v.x.subarray(0, n));
  into.y.set(v.y.subarray(0, n));
  return run._halfGradient(b, t, v.control[NORM]);
}
