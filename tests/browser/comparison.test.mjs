// The comparison engine (web/js/comparison.js) on its own, in node: no browser, no worker. Its runs are test doubles
// with a Run's controls and statuses (runs.js), driven by hand: set up, trained, done; the keeper records what would
// be kept. The same engine with real workers in Chromium: seeds.test.mjs, persist.test.mjs, lab.test.mjs.
//   node --test --test-reporter=spec tests/browser/comparison.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Comparison, evalGrid, sameSettings, seedMajor } from '../../web/js/comparison.js';
import { RUN_EVENT, streams } from '../../web/js/protocol.js';

// a run as the engine sees it: a status, start/pause/stop/dispose; ready() and end() play its worker's part
class FakeRun {
  constructor(p, onEvent, status = 'starting') {
    this.key = p.key;
    this.label = p.label;
    this.settings = p.settings;
    this.onEvent = onEvent;
    this.status = status;
    /** @type {string[]} the controls called, in order */
    this.calls = [];
    this.text = '';     // the text it was made with
    this.saved = null;  // what it was restored from
    this.stepsDone = 0;
    this.left = NaN;     // seconds left (secondsLeft), NaN before it has trained
    this.helper = null;  // a helper lent to it (lendHelper), as runs.js keeps one
  }
  say(type, more = {}) { this.onEvent({ type, run: this, ...more }); }
  secondsLeft() { return this.left; }
  lendHelper() { this.calls.push('lendHelper'); this.helper = {}; return true; }
  ready() { this.status = 'ready'; this.say(RUN_EVENT.ready); }
  start() { this.calls.push('start'); if (['ready', 'paused'].includes(this.status)) this.status = 'running'; }
  pause() { this.calls.push('pause'); if (this.status === 'running') this.status = 'paused'; }
  stop() { this.calls.push('stop'); }
  end(status = 'done') { this.status = status; this.say(status === 'done' ? RUN_EVENT.done : RUN_EVENT.failed); }
  dispose() { this.calls.push('dispose'); }
}

function setup(o = {}) {
  const kept = { replaced: [], plans: [] };
  const keeper = {
    watch: (panel, onEvent) => (e) => onEvent(e),
    replace: (panel, old, plan, keptRuns = []) => kept.replaced.push({ panel, old: [...old], plan: structuredClone(plan), keptRuns: [...keptRuns] }),
    plan: (panel, plan) => kept.plans.push(structuredClone(plan)),
  };
  const heard = [];
  const made = [];
  const comp = new Comparison({ panel: 'test', keeper, slots: 2, onEvent: (e) => heard.push(e.type),
    // stand-ins for the worker-driven Run: the controls and statuses the engine uses
    makeRun: (p, text, on) => { const r = new FakeRun(p, on); r.text = text; made.push(r); return /** @type {any} */ (r); },
    restoreRun: (saved, on) => { const r = new FakeRun(saved, on, 'restarting'); r.saved = saved; made.push(r); return /** @type {any} */ (r); },
    ...o });
  return { comp, kept, heard, made };
}

const three = (seeds = 2) => seedMajor(['a', 'b', 'c'].map((k) => ({ key: k, label: k.toUpperCase(), name: k })), seeds, 7,
  (s, seed, index) => ({ name: s.name, seed, first: index === 0 }));

test('seedMajor plans every setting\'s first seed, then every second seed; the first seed keeps the plain key', () => {
  const e = three();
  assert.deepEqual(e.map((p) => p.key), ['a', 'b', 'c', 'a-seed8', 'b-seed8', 'c-seed8']);
  assert.deepEqual(e.map((p) => p.label), ['A, seed 7', 'B, seed 7', 'C, seed 7', 'A, seed 8', 'B, seed 8', 'C, seed 8']);
  assert.deepEqual(e[4].settings, { name: 'b', seed: 8, first: false });
  assert.equal(e[4].name, 'b');  // the setting's own fields ride along
  assert.deepEqual(seedMajor([{ key: 'a', label: 'A' }], 1, 3, () => ({})).map((p) => p.label), ['A']);  // one seed: no "seed" in the label
});

test('evalGrid: every `every` steps, and the end when it is not on the grid', () => {
  assert.deepEqual(evalGrid(100, 25), [0, 25, 50, 75, 100]);
  assert.deepEqual(evalGrid(110, 25), [0, 25, 50, 75, 100, 110]);
});

test('streams: the events that come many times while a run trains, and no state change among them', () => {
  for (const t of ['progress', 'val', 'snapshot', 'trace', 'induction']) assert.ok(streams(t), t);
  for (const t of ['ready', 'done', 'failed', 'diverged', 'died', 'restarted', 'status', 'reset', 'restored']) assert.ok(!streams(t), t);
  for (const t of Object.values(RUN_EVENT)) assert.equal(typeof streams(t), 'boolean');
});

test('as many runs as slots train, one more is set up ahead, the rest wait; a run that ends frees its slot', () => {
  const { comp, made, heard } = setup();
  comp.start({ entries: three(), text: 'the text', meta: { what: 1 } });
  assert.deepEqual(made.map((r) => r.key), ['a', 'b']);  // two slots: none set up ahead while theirs are set up
  assert.equal(comp.queued(), 4);
  assert.equal(made[0].text, 'the text');
  made[0].ready();
  assert.equal(made[0].status, 'running');  // set up: it starts
  made[0].say(RUN_EVENT.progress);          // streaming: no new run
  assert.equal(made.length, 2);             // b is still being set up
  made[1].ready();
  assert.deepEqual(made.map((r) => r.key), ['a', 'b', 'c']);  // both train: one is set up ahead
  made[2].ready();
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'ready']);  // the third waits, set up
  made[0].end();
  // the run set up ahead trains at once, and the next is set up ahead in its place
  assert.deepEqual(made.map((r) => r.status), ['done', 'running', 'running', 'starting']);
  assert.deepEqual(made.map((r) => r.key), ['a', 'b', 'c', 'a-seed8']);
  made[1].end('failed');                    // a failed run frees its slot too, which a-seed8 will take
  assert.deepEqual(made.map((r) => r.key), ['a', 'b', 'c', 'a-seed8']);  // none ahead while a-seed8 is set up
  made[3].ready();                          // a slot was free when it was set up: it starts
  assert.equal(made[3].status, 'running');
  assert.deepEqual(made.map((r) => r.key), ['a', 'b', 'c', 'a-seed8', 'b-seed8']);  // and the next is set up ahead
  assert.deepEqual(comp.entries().map((e) => e.label), ['A, seed 7', 'B, seed 7', 'C, seed 7', 'A, seed 8', 'B, seed 8']);
  assert.deepEqual(heard, ['ready', 'progress', 'ready', 'ready', 'done', 'failed', 'ready']);  // every event reaches the panel
});

test('startRank: lower ranks are set up and started first, equal ranks in plan order; the page lists the plan order', () => {
  const { comp, made } = setup();
  // two settings over three seeds, b's runs (the longer ones, say) ranked first
  const entries = seedMajor([{ key: 'a', label: 'A', startRank: 1 }, { key: 'b', label: 'B', startRank: 0 }], 3, 1, (s, seed) => ({ seed }));
  comp.start({ entries, text: 't', meta: {} });
  assert.deepEqual(made.map((r) => r.key), ['b', 'b-seed2']);  // two slots, both b
  for (const r of made) r.ready();          // (made grows: the one set up ahead comes once both train)
  assert.deepEqual(made.map((r) => r.key), ['b', 'b-seed2', 'b-seed3']);  // and one ahead, b too
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'ready']);
  made[0].end();
  assert.deepEqual(made.map((r) => r.status), ['done', 'running', 'running', 'starting']);
  assert.equal(made[3].key, 'a');  // then a's runs, seed by seed
  made[1].end();
  made[3].ready();
  assert.equal(made[3].status, 'running');
  assert.equal(made[4].key, 'a-seed2');
  // listed in plan order, seed-major, whatever order they started in
  assert.deepEqual([...comp.runs.keys()], ['a', 'b', 'a-seed2', 'b-seed2', 'b-seed3']);
  assert.deepEqual(comp.saved().entries.map((p) => p.startRank), [1, 0, 1, 0, 1, 0]);  // kept with the plan
});

test('runs start in start order: one that is ready first waits for the one before it', () => {
  const { comp, made } = setup();
  comp.start({ entries: three(), text: 't', meta: {} });
  assert.deepEqual(made.map((r) => r.key), ['a', 'b']);
  made[1].ready();  // b is ready before a: it waits, though a slot is free
  assert.deepEqual(made.map((r) => r.status), ['starting', 'ready']);
  made[0].ready();  // a starts, then b; and c is set up ahead
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'starting']);
  made[0].end();
  made[2].ready();  // c takes the slot a freed
  assert.deepEqual(made.map((r) => r.status), ['done', 'running', 'running', 'starting']);
  // a run whose set-up fails holds back nothing: the one after it takes the slot
  const second = setup();
  second.comp.start({ entries: three(), text: 't', meta: {} });
  second.made[1].ready();
  second.made[0].end('failed');
  assert.deepEqual(second.made.map((r) => r.status), ['failed', 'running', 'starting']);
});

test('a start that the panel hears at once (as a Run says its status) does not let more runs train than slots', () => {
  // Run.start emits its status, which comes back to the comparison before its own loop goes on
  class SaysItsStart extends FakeRun {
    /** @override */
    start() { const was = this.status; super.start(); if (was !== this.status) this.say(RUN_EVENT.status); }
  }
  const made = [];
  const { comp } = setup({ makeRun: (p, text, on) => { const r = new SaysItsStart(p, on); made.push(r); return /** @type {any} */ (r); } });
  comp.start({ entries: three(), text: 't', meta: {} });
  made[1].ready();  // b waits for a, the first in order
  made[0].ready();  // a is set up last: a and b start (each start heard at once), c is set up ahead
  made[2].ready();  // and waits for a free slot
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'ready']);
});

test('a run outside the plan holds a slot only while it trains; keepLast keeps it after the planned runs', () => {
  const runs = new Map();
  const { comp, made } = setup({ runs, keepLast: ['upload'] });
  const upload = { status: 'running', key: 'upload', stop() {}, start() {}, pause() {}, dispose() {} };
  comp.start({ entries: three(2), text: '', meta: {} });
  runs.set('upload', upload);
  made[0].ready();
  made[1].ready();                          // a trains beside the file's run; b, set up, waits for a slot
  assert.deepEqual(made.map((r) => r.status), ['running', 'ready']);  // and none is set up ahead: three are busy
  made[0].end();                            // a's slot goes to b, and c is set up ahead
  assert.deepEqual(made.map((r) => r.status), ['done', 'running', 'starting']);
  upload.status = 'ready';                  // the file's run no longer trains: it holds no slot
  made[1].end();
  assert.deepEqual(made.map((r) => r.key), ['a', 'b', 'c', 'a-seed8']);  // c and a-seed8 take the two slots
  made[2].ready();
  made[3].ready();
  assert.deepEqual(made.map((r) => r.key), ['a', 'b', 'c', 'a-seed8', 'b-seed8']);  // and b-seed8 is set up ahead
  assert.deepEqual([...runs.keys()], ['a', 'b', 'c', 'a-seed8', 'b-seed8', 'upload']);
});

test('Pause holds the runs and the queue; Resume starts them again and fills the slots', () => {
  const { comp, made } = setup();
  comp.start({ entries: three(), text: '', meta: {} });
  made[0].ready();
  comp.togglePause();
  assert.ok(comp.held);
  assert.equal(made[0].status, 'paused');
  made[1].ready();                          // set up while held: it waits
  assert.equal(made[1].status, 'ready');
  made[0].end();                            // a slot frees while held: nothing new is set up or starts
  assert.equal(made.length, 2);
  comp.togglePause();                       // nothing runs: this is Resume
  assert.ok(!comp.held);
  assert.deepEqual(made.map((r) => r.status), ['done', 'running', 'starting']);  // b trains, c is set up for a's slot
});

test('Resume restarts the paused runs, not the one set up ahead beyond the slots', () => {
  const { comp, made } = setup();
  comp.start({ entries: three(), text: '', meta: {} });
  for (const r of made) r.ready();
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'ready']);
  comp.togglePause();
  comp.togglePause();
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'ready']);
});

test('Stop ends every run, cancels the queued ones, keeps the plan; a run set up afterwards ends at once', () => {
  const { comp, made, kept } = setup();
  comp.start({ entries: three(), text: '', meta: {} });
  for (const r of made) r.ready();          // the third set up ahead (no slot free): dropped by Stop as a queued run
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'ready']);
  comp.stop();
  assert.ok(made.slice(0, 2).every((r) => r.calls.includes('stop')));
  assert.deepEqual(made[2].calls, ['dispose']);
  made[0].status = 'starting';              // as a run that had not finished its set-up when Stop came
  assert.equal(comp.queued(), 0);
  assert.deepEqual(kept.plans.at(-1).entries.map((p) => p.cancelled), [false, false, true, true, true, true]);
  assert.deepEqual(comp.entries().map((e) => e.label), ['A, seed 7', 'B, seed 7']);
  made[0].calls.length = 0;
  made[0].ready();
  assert.deepEqual(made[0].calls, ['stop']);
  made[0].end();
  assert.equal(made.length, 3);             // nothing queued starts after Stop
});

test('together: the planned runs start at once when every one is set up', () => {
  const { comp, made } = setup({ together: true });
  comp.start({ entries: three(1).slice(0, 2), text: '', meta: {} });
  made[0].ready();
  assert.equal(made[0].status, 'ready');
  made[1].ready();
  assert.deepEqual(made.map((r) => r.status), ['running', 'running']);
});

test('together: a run set up again after its worker died, before it trained, starts with the others', () => {
  const { comp, made } = setup({ together: true });
  comp.start({ entries: three(1).slice(0, 2), text: '', meta: {} });
  made[1].ready();
  made[0].status = 'restarting';
  made[0].say(RUN_EVENT.died, { atStep: 0, reason: 'it crashed', fromStep: 0 });
  made[0].ready();  // runs.js: a run that had not started says ready again, not restarted
  assert.deepEqual(made.map((r) => r.status), ['running', 'running']);
});

test('a core left idle once no planned run waits is lent to the run with the most time left, if it has enough', () => {
  const { comp, made } = setup();
  comp.start({ entries: three(1), text: '', meta: {} });
  for (const r of made) r.ready();
  assert.deepEqual(made.map((r) => r.status), ['running', 'running', 'ready']);
  made[0].left = 9, made[1].left = 30;
  made[0].end();  // c starts: no core idle, nothing lent
  assert.deepEqual(made.map((r) => r.status), ['done', 'running', 'running']);
  assert.ok(made.every((r) => !r.calls.includes('lendHelper')));
  made[2].left = 0.3;  // too little left to be worth a helper's set-up
  made[1].end();     // one core idle, c alone with 0.3 s left: not lent
  assert.ok(!made[2].calls.includes('lendHelper'));
  made[2].left = 5;
  made[2].say(RUN_EVENT.status);  // the next event: lent now
  assert.deepEqual(made[2].calls.filter((c) => c === 'lendHelper'), ['lendHelper']);
  made[2].say(RUN_EVENT.status);  // a helper already: no second
  assert.equal(made[2].calls.filter((c) => c === 'lendHelper').length, 1);
});

test('an idle core goes to the run with the most time left; two idle cores to two runs', () => {
  const { comp, made } = setup({ slots: 4 });
  comp.start({ entries: seedMajor([{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }, { key: 'c', label: 'C' },
    { key: 'd', label: 'D' }], 1, 1, () => ({})), text: '', meta: {} });
  for (const r of made) r.ready();
  [made[0].left, made[1].left, made[2].left, made[3].left] = [1, 5, 20, 9];
  made[0].end();  // one core idle: c, with 20 s left
  assert.deepEqual(made.map((r) => r.calls.includes('lendHelper')), [false, false, true, false]);
  made[2].end();  // c done (its helper with it, in runs.js): two cores idle for b and d, both lent
  assert.deepEqual(made.map((r) => r.calls.includes('lendHelper')), [false, true, true, true]);
});

test('no core is lent while a planned run is still to start on it, nor while the comparison is held', () => {
  const { comp, made } = setup();
  comp.start({ entries: three(1), text: '', meta: {} });
  made[0].ready(), made[1].ready();  // c, set up ahead, is still setting up
  for (const r of made) r.left = 60;
  made[0].end();  // a core idle, but c will take it once set up
  assert.ok(made.every((r) => !r.calls.includes('lendHelper')), 'lent while c was setting up');
  made[2].ready();
  assert.deepEqual(made.map((r) => r.status), ['done', 'running', 'running']);
  comp.togglePause();
  made[2].status = 'running';  // still finishing its chunk when b ends
  made[1].end();
  assert.ok(made.every((r) => !r.calls.includes('lendHelper')), 'lent while held');
});

test('a new comparison disposes of the runs so far and tells the keeper to drop them; a died run leaves a note', () => {
  const { comp, made, kept } = setup();
  comp.start({ entries: three(), text: 'x', meta: { n: 1 } });
  made[0].say(RUN_EVENT.died, { atStep: 40, reason: 'it crashed', fromStep: 30 });
  assert.match(comp.note, /^The worker of A, seed 7 stopped unexpectedly at step 40 \(it crashed\)\. It was restarted from its snapshot at step 30/);
  const first = made.slice();
  comp.start({ entries: three(1), text: 'y', meta: { n: 2 } });
  assert.ok(first.every((r) => r.calls.includes('dispose')));
  assert.equal(comp.note, '');
  assert.deepEqual(kept.replaced[1].old.map((r) => r.key), ['a', 'b']);
  assert.deepEqual(kept.replaced[1].plan.comparison, { n: 2, slots: 2, wall: null });
  assert.equal(kept.replaced[1].plan.text, null);  // not kept with the plan unless asked
});

test('ended takes the wall time once and keeps the plan with it', () => {
  const { comp, kept } = setup();
  comp.start({ entries: three(1), text: '', meta: {} });
  const wall = comp.ended();
  assert.ok(wall >= 0);
  assert.equal(comp.ended(), wall);
  assert.equal(kept.plans.length, 1);
  assert.equal(kept.plans[0].comparison.wall, wall);
});

test('restore: the plan back with its kept runs, queued ones waiting; held until resumed unless every run was done', async () => {
  const { comp, made } = setup();
  comp.start({ entries: three(), text: 'pasted', meta: { m: 3 }, keepText: true });
  const saved = comp.saved();
  const records = [{ kind: 'plan', plan: structuredClone(saved) },
    { kind: 'run', key: 'a', run: { key: 'a', label: 'A, seed 7', status: 'done' } },
    { kind: 'run', key: 'b', run: { key: 'b', label: 'B, seed 7', status: 'paused' } }];
  const again = setup();
  assert.equal(await again.comp.restore(records, async () => assert.fail('the pasted text was kept')), true);
  assert.deepEqual(again.made.map((r) => [r.key, r.saved.text]), [['a', 'pasted'], ['b', 'pasted']]);
  assert.deepEqual(again.comp.meta, { m: 3, slots: 2, wall: null });
  assert.equal(again.comp.queued(), 4);
  assert.ok(again.comp.held);
  again.made[0].status = 'done';          // their workers set up: as they were kept
  again.made[1].status = 'paused';
  again.comp.resume();
  assert.equal(again.made[1].status, 'running');
  assert.equal(again.made.length, 3);       // the queue fills again: one slot was free
  again.made[2].ready();
  assert.equal(again.made.length, 4);       // and, once its run is set up, one is set up ahead
  // a comparison already on the page is not replaced; a plan without its text loads it
  assert.equal(await comp.restore(records, async () => ''), false);
  assert.equal(made.length, 2);
  const shipped = setup();
  const plain = { ...structuredClone(saved), text: null };
  assert.equal(await shipped.comp.restore([{ kind: 'plan', plan: plain }], async () => 'loaded'), true);
  assert.equal(shipped.comp.text, 'loaded');
  assert.ok(shipped.comp.held);             // nothing of it trained yet: it waits for the user
  const done = setup();
  assert.equal(await done.comp.restore([{ kind: 'plan', plan: { ...plain, entries: plain.entries.slice(0, 1) } },
    records[1]], async () => ''), true);
  assert.ok(!done.comp.held);               // every run was done: nothing to hold
  assert.equal(await setup().comp.restore([records[1]], async () => ''), false);  // no plan: nothing taken back
});

// settings with a schedule: `steps` steps for setting a, b, c, seeds from 7
const scheduled = (seeds, steps = 10, names = ['a', 'b', 'c']) => seedMajor(names.map((k) => ({ key: k, label: k.toUpperCase() })),
  seeds, 7, (s, seed) => ({ name: s.key, seed, steps }));
// plays every made run to the end of its schedule
const finishAll = (runs) => { for (const r of runs) { r.stepsDone = r.settings.steps; r.end(); } };

test('sameSettings: the same fields and values whatever their order; arrays in order', () => {
  assert.ok(sameSettings({ a: 1, b: [1, 2], c: { x: 1, y: 2 } }, { c: { y: 2, x: 1 }, b: [1, 2], a: 1 }));
  assert.ok(!sameSettings({ a: 1, b: [1, 2] }, { a: 1, b: [2, 1] }));
  assert.ok(!sameSettings({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(!sameSettings({ a: 1, seed: 7 }, { a: 1, seed: 8 }));
});

test('a new comparison keeps the finished runs it plans again (same key, settings, text): not disposed, not trained again', () => {
  const { comp, made, kept, heard } = setup();
  comp.start({ entries: scheduled(1), text: 'the text', meta: {} });
  for (const r of made) r.ready();
  finishAll(made.slice());
  const first = made.slice();
  assert.equal(comp.wouldKeep(scheduled(2), 'the text'), 3);
  assert.equal(comp.wouldKeep(scheduled(2), 'another text'), 0);
  assert.equal(comp.wouldKeep(scheduled(2, 20), 'the text'), 0);  // another budget
  heard.length = 0;
  // one more seed: the three first seeds are kept, the three second ones are made
  comp.start({ entries: scheduled(2), text: 'the text', meta: {} });
  assert.ok(first.every((r) => !r.calls.includes('dispose')));
  assert.deepEqual(comp.plan.map((p) => p.reused), [true, true, true, false, false, false]);
  assert.deepEqual(comp.plan.slice(0, 3).map((p) => p.run), first);
  assert.deepEqual(first.map((r) => r.label), ['A, seed 7', 'B, seed 7', 'C, seed 7']);  // the new plan's labels
  assert.deepEqual(made.slice(3).map((r) => r.key), ['a-seed8', 'b-seed8']);  // two slots
  assert.equal(comp.queued(), 1);
  assert.deepEqual([...comp.runs.keys()], ['a', 'b', 'c', 'a-seed8', 'b-seed8']);
  // the keeper drops nothing and keeps the three kept runs' records
  assert.deepEqual(kept.replaced[1].old, []);
  assert.deepEqual(kept.replaced[1].keptRuns, first);
  assert.equal(comp.reusedCount(), 3);
  assert.equal(comp.reusedSentence(), '3 of the runs were kept from the comparison before, not trained again: the same ' +
    'settings, seed and text train to the same numbers.');
  assert.equal(comp.saved().entries[0].reused, true);  // kept with the plan
  // the same comparison again: every run is kept, nothing is made
  for (const r of made.slice(3)) r.ready();
  finishAll(made.slice(3));
  comp.start({ entries: scheduled(2), text: 'the text', meta: {} });
  assert.equal(made.length, 6);
  assert.equal(comp.reusedSentence(), 'All 6 runs were kept from the comparison before, not trained again: the same ' +
    'settings, seed and text train to the same numbers.');
  // fewer settings: the kept ones stay, the others are disposed of and dropped
  comp.start({ entries: scheduled(2, 10, ['b']), text: 'the text', meta: {} });
  assert.deepEqual(comp.plan.map((p) => p.run), [made[1], made[4]]);
  assert.deepEqual(kept.replaced.at(-1).old.map((r) => r.key).sort(), ['a', 'a-seed8', 'c', 'c-seed8']);
  assert.ok(made[0].calls.includes('dispose') && !made[1].calls.includes('dispose'));
});

test('not kept: another text, other settings, a run stopped early, one that blew up, one that failed; nor runs started together', () => {
  const { comp, made } = setup({ slots: 6 });
  comp.start({ entries: scheduled(2), text: 't', meta: {} });
  for (const r of made) r.ready();
  const [a, b, c, a8, b8, c8] = made;
  for (const r of [a, b, c, a8]) r.stepsDone = 10;
  b8.stepsDone = 6;  // Stop ended it early: done, but not its whole schedule
  a.end();
  b.end();
  c.diverged = { step: 9, loss: 99, limit: 9 };
  c.end();
  a8.end('failed');
  b8.end();
  // c8 still trains
  assert.equal(comp.wouldKeep(scheduled(2), 't'), 2);  // a and b
  assert.equal(comp.wouldKeep(scheduled(2), 'T'), 0);
  assert.equal(comp.wouldKeep(seedMajor([{ key: 'a', label: 'A' }], 1, 7, (s, seed) => ({ name: 'a', seed, steps: 10, lr: 1 })), 't'), 0);
  comp.start({ entries: scheduled(2), text: 't', meta: {} });
  assert.deepEqual(comp.plan.map((p) => p.reused), [true, true, false, false, false, false]);
  for (const r of [c, a8, b8, c8]) assert.ok(r.calls.includes('dispose'), r.key);

  const together = setup({ together: true, slots: 3 });
  together.comp.start({ entries: scheduled(1), text: 't', meta: {} });
  for (const r of together.made) r.ready();
  finishAll(together.made.slice());
  assert.equal(together.comp.wouldKeep(scheduled(1), 't'), 0);
  together.comp.start({ entries: scheduled(1), text: 't', meta: {} });
  assert.equal(together.made.length, 6);
  assert.equal(together.comp.reusedSentence(), '');
});

test('kept too: a run its worker ended at its stopping loss (settings.stopAtLoss), not one stopped by hand above it', () => {
  const { comp, made } = setup({ slots: 2 });
  const entries = seedMajor([{ key: 'a', label: 'A' }], 2, 7, (s, seed) => ({ name: 'a', seed, steps: 100, evalEvery: 20, stopAtLoss: 0.2 }));
  comp.start({ entries, text: 't', meta: {} });
  for (const r of made) r.ready();
  const [reached, byHand] = made;
  reached.val = { step: [0, 20, 40], loss: [4, 0.9, 0.15] };  // its first measurement at or below 0.2: step 40
  byHand.val = { step: [0, 20, 30], loss: [4, 0.9, 0.5] };    // Stop at step 30
  reached.stepsDone = 40;
  byHand.stepsDone = 30;
  reached.end();
  byHand.end();
  assert.equal(comp.wouldKeep(entries, 't'), 1);
  comp.start({ entries, text: 't', meta: {} });
  assert.deepEqual(comp.plan.map((p) => p.reused), [true, false]);
});

test('wouldKeepNow asks for the planned comparison again only when the settings or the runs changed', () => {
  const { comp, made } = setup();
  let asked = 0;
  const planned = () => { asked += 1; return { entries: scheduled(2), text: 't' }; };
  assert.equal(comp.wouldKeepNow('s1', planned), 0);
  assert.equal(asked, 0);  // no comparison yet: nothing to keep, nothing to work out
  comp.start({ entries: scheduled(1), text: 't', meta: {} });
  for (const r of made) r.ready();
  assert.equal(comp.wouldKeepNow('s1', planned), 0);
  assert.equal(comp.wouldKeepNow('s1', planned), 0);
  assert.equal(asked, 1);
  finishAll(made.slice());
  assert.equal(comp.wouldKeepNow('s1', planned), 3);  // the runs finished
  assert.equal(asked, 2);
  assert.equal(comp.wouldKeepNow('s2', planned), 3);  // other settings
  assert.equal(asked, 3);
  assert.equal(comp.wouldKeepNow('s2', () => null), 3);  // unchanged: the answer before
  assert.equal(comp.wouldKeepNow('s3', () => null), 0);  // settings that are not valid
});

test('the runs are listed in plan order, kept and new alike; a run outside the plan after them, keepLast last', () => {
  const { comp, made } = setup({ slots: 6, keepLast: ['upload'] });
  comp.start({ entries: scheduled(1, 10, ['a', 'c']), text: 't', meta: {} });
  for (const r of made) r.ready();
  finishAll(made.slice());
  comp.start({ entries: scheduled(1, 10, ['a', 'b', 'c']), text: 't', meta: {} });
  assert.deepEqual(comp.plan.map((p) => p.reused), [true, false, true]);
  assert.deepEqual([...comp.runs.keys()], ['a', 'b', 'c']);  // b was made after the kept a and c
  // a loaded file's run (keepLast) and another run outside the plan, set before a new run is made
  const outside = (key) => /** @type {any} */ (new FakeRun({ key, label: key, settings: {} }, () => {}, 'done'));
  comp.runs.set('upload', outside('upload'));
  comp.runs.set('other', outside('other'));
  comp.runs.delete('b');
  comp.runs.set('b', made[2]);
  comp.fill();
  assert.deepEqual([...comp.runs.keys()], ['a', 'b', 'c', 'other', 'upload']);
});
