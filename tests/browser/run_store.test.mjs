// The size cap of the run store (web/js/run_store.js) under node, without a browser: sizes, thinning, and the
// eviction order the page states (scrubbing snapshots of the oldest-saved run first, then whole finished runs, then
// paused ones), on hand-made records whose sizes are worked out here from their parts.
//   node --test --test-reporter=spec tests/browser/run_store.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CAP_BYTES, evictionPlan, sizeOf, thinRecord } from '../../web/js/run_store.js';

const MB = 1024 * 1024;

test('sizeOf: typed arrays and Blobs by length, strings 2 bytes a character, numbers 8, keys counted', () => {
  assert.equal(sizeOf(new Uint8Array(1000)), 1000);
  assert.equal(sizeOf(new Float64Array(10)), 80);
  assert.equal(sizeOf(new Blob([new Uint8Array(700)])), 700);  // the model bytes as the store keeps them
  assert.equal(sizeOf('abc'), 6);
  assert.equal(sizeOf(3.5), 8);
  assert.equal(sizeOf(null), 0);
  // {ab: [1, 2], c: Uint8Array(5)}: key "ab" 4 + 2 numbers 16, key "c" 2 + 5 bytes
  assert.equal(sizeOf({ ab: [1, 2], c: new Uint8Array(5) }), 4 + 16 + 2 + 5);
});

test('thinRecord keeps the last weights snapshot only, and leaves the record it was given alone', () => {
  const snaps = [0, 10, 20].map((step) => ({ step, bytes: new Uint8Array(100) }));
  const record = { id: 'heads:H4', run: { status: 'done', snapshots: snaps } };
  const thin = thinRecord(record);
  assert.deepEqual(thin.run.snapshots.map((s) => s.step), [20]);
  assert.equal(record.run.snapshots.length, 3);
  // {status: 'done', snapshots: [{step: 20, bytes: 100}]}: "status" 12 + "done" 8; "snapshots" 18 +
  // ("step" 8 + 8, "bytes" 10 + 100)
  assert.equal(thin.bytes, 12 + 8 + 18 + 8 + 8 + 10 + 100);
});

// a run record's index entry: size now, size with its last weights only
const entry = (id, savedAt, status, bytes, thinBytes = bytes) => ({ id, savedAt, status, bytes, thinBytes });

test('within the cap nothing goes', () => {
  assert.deepEqual(evictionPlan([entry('a', 1, 'done', 10 * MB, 1 * MB)], CAP_BYTES), []);
  assert.equal(CAP_BYTES, 100 * MB);
});

test('over the cap: the oldest-saved run is thinned first, and only as many as needed', () => {
  const entries = [entry('new', 3, 'done', 40 * MB, 4 * MB), entry('old', 1, 'done', 40 * MB, 4 * MB),
    entry('mid', 2, 'paused', 40 * MB, 5 * MB)];
  // 120 MB: thinning "old" saves 36 MB -> 84 MB, within 100
  assert.deepEqual(evictionPlan(entries, 100 * MB), [{ id: 'old', action: 'thin' }]);
  // with 30 MB of plans and texts besides: 150 -> 114 (old) -> 79 (mid)
  assert.deepEqual(evictionPlan(entries, 100 * MB, 30 * MB), [{ id: 'old', action: 'thin' }, { id: 'mid', action: 'thin' }]);
});

test('when thinning is not enough, whole finished runs go (oldest first), then paused ones', () => {
  const entries = [entry('p-old', 1, 'paused', 30 * MB), entry('d-new', 4, 'done', 30 * MB),
    entry('d-old', 2, 'done', 30 * MB), entry('p-new', 3, 'paused', 30 * MB)];
  // nothing to thin (one snapshot each); 120 MB: dropping d-old (the oldest finished) gives 90
  assert.deepEqual(evictionPlan(entries, 100 * MB), [{ id: 'd-old', action: 'drop' }]);
  // cap 50: 120 -> 90 (d-old) -> 60 (d-new) -> 30 (p-old, the oldest paused)
  assert.deepEqual(evictionPlan(entries, 50 * MB),
    [{ id: 'd-old', action: 'drop' }, { id: 'd-new', action: 'drop' }, { id: 'p-old', action: 'drop' }]);
});

test('thinning comes before any drop, and a thinned run that is dropped counts at its thinned size', () => {
  const entries = [entry('a', 1, 'done', 60 * MB, 10 * MB), entry('b', 2, 'done', 60 * MB, 50 * MB)];
  // 120 -> 70 (thin a) -> 60 (thin b) : within 65
  assert.deepEqual(evictionPlan(entries, 65 * MB), [{ id: 'a', action: 'thin' }, { id: 'b', action: 'thin' }]);
  // cap 40: 120 -> 70 -> 60 -> drop a (10) -> 50 -> drop b (50) -> 0
  assert.deepEqual(evictionPlan(entries, 40 * MB), [{ id: 'a', action: 'thin' }, { id: 'b', action: 'thin' },
    { id: 'a', action: 'drop' }, { id: 'b', action: 'drop' }]);
});
