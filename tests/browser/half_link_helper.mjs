// The helper's side of a half link (web/js/half_link.js serveJobs) in a node worker thread, for
// half_link.test.mjs: its Run is a stand-in whose answers the test can check by hand (a half's gradient is each
// weight times 2 plus the half's first token, its loss the count of targets plus 0.5; batch i's validation loss is
// i plus the first weight), and which fails a job when asked to (workerData.failOn: 'half' or 'evaluate'). Tells the
// test when serveJobs returns.
import { parentPort, workerData } from 'node:worker_threads';
import { halfViews, serveJobs } from '../../web/js/half_link.js';

const { shared, tokens, params, failOn } = workerData;
const into = { ok: true, x: new Int32Array(tokens), y: new Int32Array(tokens), params: new Float32Array(params),
  grads: new Float32Array(params) };
const run = {
  _halfBuffers: () => into,
  _halfGradient(b, t, norm) {
    if (failOn === 'half') return { ok: false, error: 'no half here' };
    into.params.forEach((w, i) => { into.grads[i] = 2 * w + into.x[0]; });
    return { ok: true, loss: norm + 0.5 };
  },
  _evaluateBatches(first, count) {
    if (failOn === 'evaluate') return { ok: false, error: 'no batches here' };
    return { ok: true, losses: Float64Array.from({ length: count }, (_, i) => first + i + into.params[0]) };
  },
};
const took = { train: 0, evaluate: 0 };
serveJobs(halfViews(shared, tokens, params), run, (ms, part) => { took[part] += 1; });
parentPort.postMessage({ returned: true, took });
