// The memory a training worker and its helper share (helper.js): each step the run's worker writes the second half
// of its batch and the weights there, the helper takes that half's gradient and writes it back, and the run's step
// sums the two halves (core: Trainer::step, RemoteHalf). Both workers block on Atomics.wait for the other: a step
// copies the weights to the helper and the gradient back (each into the shared memory and out of it) and sends no
// message. Both sides are here, so their layout is written once.
// No DOM in this file.
//
// Layout of the SharedArrayBuffer (byte offsets, 8-aligned):
//   control   Int32Array(8)    POSTED (the step whose half was written last), ANSWERED (the step whose gradient
//                              was written last), QUIT (1: the helper ends, the run takes its halves itself again),
//                              B, T, NORM (the half's sequences and context, the whole batch's count of targets),
//                              FAILED (1: the helper could not take the posted half)
//   numbers   Float64Array(2)  the half's loss share; the helper's milliseconds of halves so far
//   x, y      Int32Array(tokens) each: the half's inputs and targets
//   params    Float32Array(P)  the weights of the step
//   grads     Float32Array(P)  the half's gradient
const POSTED = 0, ANSWERED = 1, QUIT = 2, B = 3, T = 4, NORM = 5, FAILED = 6;
const CONTROL_INTS = 8;

const SETTINGS = {
  // the run's worker waits this long for a half, plus 20 times what its own half took, before it takes the half
  // itself: the helper's core may be briefly taken, but a helper that never answers must not hold the run up
  answerMs: 2000,
  answerTimesOwnHalf: 20,
};

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
  return new SharedArrayBuffer(bytes(CONTROL_INTS, 4) + 16 + 2 * bytes(tokens, 4) + 2 * bytes(params, 4));
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
 * The run's side: the object the core's LinkedHalf calls (web/bindings.cpp) at each step. After a quit, or a half
 * not answered in time, it is spent: it sends nothing more and every receive says none came, so the core takes
 * its halves itself (the same numbers: Trainer::step).
 * @param {ReturnType<typeof halfViews>} v
 * @returns {{send: Function, receive: Function, spent: () => boolean, helperMs: () => number}} helperMs: the
 *   helper's milliseconds of halves so far (what the run's steps cost on its core)
 */
export function runSide(v) {
  let step = 0;  // a new link: the helper takes the first post as step 1 (serveHalves)
  let sentAt = 0;
  let spent = false;
  const quit = () => Atomics.load(v.control, QUIT) === 1;
  return {
    send(x, y, b, t, norm, params) {
      if (spent || quit()) return void (spent = true);
      v.x.set(x);
      v.y.set(y);
      v.params.set(params);
      v.control[B] = b;
      v.control[T] = t;
      v.control[NORM] = norm;
      step += 1;
      Atomics.store(v.control, POSTED, step);
      Atomics.notify(v.control, POSTED);
      sentAt = performance.now();
    },
    receive(grads) {
      if (spent) return null;
      const ownHalf = performance.now() - sentAt;
      const deadline = performance.now() + SETTINGS.answerMs + SETTINGS.answerTimesOwnHalf * ownHalf;
      for (;;) {
        const answered = Atomics.load(v.control, ANSWERED);
        if (answered === step) break;
        const left = deadline - performance.now();
        if (quit() || left <= 0) {
          spent = true;
          return null;
        }
        Atomics.wait(v.control, ANSWERED, answered, left);
      }
      if (v.control[FAILED] === 1) {
        spent = true;
        return null;
      }
      grads.set(v.grads);
      return v.numbers[0];
    },
    spent: () => spent || quit(),
    helperMs: () => v.numbers[1],
  };
}

/**
 * The helper's side: takes every half posted until the link quits, blocking this worker meanwhile. run is the
 * helper's own Run of the same settings (its model's config and variant are the run's). Returns when it quits.
 * @param {ReturnType<typeof halfViews>} v
 * @param {{_halfBuffers: () => any, _halfGradient: (b: number, t: number, norm: number) => any}} run
 * @param {(ms: number) => void} took the milliseconds of each half's gradient
 */
export function serveHalves(v, run, took) {
  // a new link (newHalfLink): nothing posted yet. Not the value now: the run's worker may post its first half before
  // this line runs, and a helper that took that post for seen would wait for the next while the run waited for it
  let seen = 0;
  for (;;) {
    Atomics.wait(v.control, POSTED, seen);
    if (Atomics.load(v.control, QUIT) === 1) return;
    const step = Atomics.load(v.control, POSTED);
    if (step === seen) continue;
    seen = step;
    const t0 = performance.now();
    const b = v.control[B], t = v.control[T], n = b * t;
    const into = run._halfBuffers();
    let r = into.ok ? null : into;
    if (into.ok) {
      into.params.set(v.params);
      into.x.set(v.x.subarray(0, n));
      into.y.set(v.y.subarray(0, n));
      r = run._halfGradient(b, t, v.control[NORM]);
    }
    if (r.ok) {
      v.grads.set(run._halfBuffers().grads);  // views again: a view made before the call may be stale after it
      v.numbers[0] = r.loss;
    }
    v.control[FAILED] = r.ok ? 0 : 1;
    const ms = performance.now() - t0;
    v.numbers[1] += ms;
    took(ms);
    Atomics.store(v.control, ANSWERED, step);
    Atomics.notify(v.control, ANSWERED);
    if (!r.ok) return;
  }
}
