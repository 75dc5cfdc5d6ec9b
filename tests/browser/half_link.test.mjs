// The half link (web/js/half_link.js) on its own, in node: the run's side in this thread, the helper's in a worker
// thread with a stand-in Run (half_link_helper.mjs). Halves and validation batches go there and back in any order,
// a job the helper fails spends the link (the run does the rest itself), and a quit ends the helper whether it
// watched or slept. The page's helper, with the core on both sides, is tests/browser/helper.test.mjs.
//   node --test --test-reporter=spec tests/browser/half_link.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { halfViews, newHalfLink, quitLink, runSide } from '../../web/js/half_link.js';
import { pageModule } from './page_module.mjs';

const TOKENS = 6, PARAMS = 5;

/** a link, the run's side of it, and a helper thread serving it; `returned` settles when serveJobs returns */
function link(failOn = '') {
  const shared = newHalfLink(TOKENS, PARAMS);
  const views = halfViews(shared, TOKENS, PARAMS);
  const helper = new Worker(new URL('./half_link_helper.mjs', import.meta.url),
    { workerData: { shared, tokens: TOKENS, params: PARAMS, failOn } });
  const returned = new Promise((resolve, reject) => {
    helper.once('message', resolve);
    helper.once('error', reject);
  });
  return { views, side: runSide(views), helper, returned };
}

const weights = (first) => Float32Array.from({ length: PARAMS }, (_, i) => first + i);

// the link's room for an evaluation's losses is a number of its own (half_link.js needs no module to lay out the
// memory): it must be the most validation batches the core lets a run have
test('the link holds the losses of as many validation batches as the core allows a run', async () => {
  const { limits } = (await pageModule())._constants();
  assert.equal(halfViews(newHalfLink(TOKENS, PARAMS), TOKENS, PARAMS).losses.length, limits.maxEvalBatches);
});

test('halves and validation batches go to the helper and come back, in any order', async () => {
  const { views, side, helper, returned } = link();
  try {
    for (let round = 0; round < 3; ++round) {
      side.send(Int32Array.of(7 + round, 1, 2), Int32Array.of(3, 4, 5), 1, 3, 9, weights(round));
      const grads = new Float32Array(PARAMS);
      assert.equal(side.receive(grads), 9.5);
      assert.deepEqual([...grads], [...weights(round)].map((w) => 2 * w + 7 + round));
      side.sendEval(2, 3, weights(10 * round));
      const losses = new Float64Array(3);
      assert.equal(side.receiveEval(losses), true);
      assert.deepEqual([...losses], [2, 3, 4].map((b) => b + 10 * round));
    }
    assert.equal(side.spent(), false);
    quitLink(views);
    const end = await returned;
    assert.deepEqual(end.took, { train: 3, evaluate: 3 });
    assert.equal(side.spent(), true);
    side.send(Int32Array.of(1), Int32Array.of(1), 1, 1, 1, weights(0));  // spent: nothing is posted
    assert.equal(side.receive(new Float32Array(PARAMS)), null);
  } finally {
    await helper.terminate();
  }
});

for (const failOn of ['half', 'evaluate']) {
  test(`a helper that fails a job (${failOn === 'half' ? 'a half' : 'validation batches'}) spends the link`, async () => {
    const { side, helper, returned } = link(failOn);
    try {
      if (failOn === 'half') {
        side.send(Int32Array.of(1, 2), Int32Array.of(2, 3), 1, 2, 2, weights(0));
        assert.equal(side.receive(new Float32Array(PARAMS)), null);
      } else {
        side.sendEval(0, 2, weights(0));
        assert.equal(side.receiveEval(new Float64Array(2)), false);
      }
      assert.equal(side.spent(), true);
      assert.equal((await returned).returned, true);  // the helper leaves after a job it could not do
      assert.equal(side.receiveEval(new Float64Array(2)), false);
    } finally {
      await helper.terminate();
    }
  });
}

// a quit the helper never saw would leave it serving: the test would not end (its timeout, a guard against a hang)
test('a quit ends a helper that is waiting, watching or asleep', { timeout: 60_000 }, async () => {
  for (const waitMs of [0, 50]) {  // at once (it may still watch), or once it sleeps in Atomics.wait
    const { views, helper, returned } = link();
    try {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      quitLink(views);
      const end = await returned;
      assert.deepEqual(end.took, { train: 0, evaluate: 0 });
    } finally {
      await helper.terminate();
    }
  }
});
