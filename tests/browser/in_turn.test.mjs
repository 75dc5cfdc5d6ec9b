// Asking runs in turn (web/js/runs.js inTurn), in node: the pruning of many seeds wakes their sleeping runs, each a
// worker of its own, at most as many at a time as there are cores. The asks are stand-ins whose answers the test
// releases by hand, so what is checked is the order of events, not this machine's speed.
//   node --test --test-reporter=spec tests/browser/in_turn.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inTurn } from '../../web/js/runs.js';

// an ask per item that stays open until answer(item) is called; started lists the items asked so far, in order
function heldAsks() {
  const started = [], open = new Map();
  return {
    started,
    open,
    ask: (item) => new Promise((resolve) => { started.push(item); open.set(item, resolve); }),
    answer(item) {
      open.get(item)(`answer of ${item}`);
      open.delete(item);
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('at most `slots` asks are open at once, the next starting when one is answered', async () => {
  const h = heldAsks();
  const all = inTurn(['a', 'b', 'c', 'd', 'e'], h.ask, 2);
  await settle();
  assert.deepEqual(h.started, ['a', 'b']);
  h.answer('b');  // the second answers first: the third starts, the first is still open
  await settle();
  assert.deepEqual(h.started, ['a', 'b', 'c']);
  assert.deepEqual([...h.open.keys()], ['a', 'c']);
  for (const item of ['c', 'a', 'd', 'e']) {
    h.answer(item);
    await settle();
    assert.ok(h.open.size <= 2, `${h.open.size} open after ${item}`);
  }
  // the answers come back in the items' order, whichever answered first
  assert.deepEqual(await all, ['a', 'b', 'c', 'd', 'e'].map((x) => `answer of ${x}`));
});

test('fewer items than slots, one slot, no items', async () => {
  const h = heldAsks();
  const two = inTurn(['x', 'y'], h.ask, 8);
  await settle();
  assert.deepEqual(h.started, ['x', 'y']);
  h.answer('y');
  h.answer('x');
  assert.deepEqual(await two, ['answer of x', 'answer of y']);

  const one = heldAsks();
  const serial = inTurn([1, 2, 3], one.ask, 1);
  for (const item of [1, 2, 3]) {
    await settle();
    assert.deepEqual([...one.open.keys()], [item]);
    one.answer(item);
  }
  assert.deepEqual(await serial, [1, 2, 3].map((x) => `answer of ${x}`));

  assert.deepEqual(await inTurn([], () => Promise.reject(new Error('never asked')), 2), []);
  // slots below one still ask, one at a time
  assert.deepEqual(await inTurn([5], async (x) => x * 2, 0), [10]);
});
