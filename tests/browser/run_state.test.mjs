// The run-state machine (web/js/run_state.js) on its own, in node: no browser, no worker. The runs here are plain
// objects with the fields a Run has (runs.js); the states reached by real runs in Chromium are in status.test.mjs.
//   node --test --test-reporter=spec tests/browser/run_state.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canMove, cardWord, failureSentence, panelStatus, RUN_STATE as S, runState, STATE_WORD, suggestedLr, TRANSITIONS } from '../../web/js/run_state.js';

const run = (status, o = {}) => ({ status, stepsDone: 0, error: '', val: { step: [], loss: [] }, train: { step: [], loss: [] },
  settings: { steps: 100, warmup: 10, lr: 1, minLr: 0.1 }, diverged: null, ...o });
const withVal = (status, loss) => run(status, { val: { step: [0, 10], loss: [4.1, loss] } });

test('each Run status maps to one state; done splits at the baseline', () => {
  assert.equal(runState(run('starting'), 3), S.settingUp);
  assert.equal(runState(run('ready'), 3), S.settingUp);
  assert.equal(runState(run('ready', { stepsDone: 40 }), 3), S.paused);  // a loaded file waiting for the user
  assert.equal(runState(run('running'), 3), S.training);
  assert.equal(runState(run('paused'), 3), S.paused);
  assert.equal(runState(run('diverged'), 3), S.diverged);
  assert.equal(runState(run('restarting'), 3), S.restarting);
  assert.equal(runState(run('failed'), 3), S.failed);
  assert.equal(runState(withVal('done', 2.5), 3), S.done);
  assert.equal(runState(withVal('done', 3), 3), S.noBetter);     // at the baseline is no better
  assert.equal(runState(withVal('done', 3.5), 3), S.noBetter);
  assert.equal(runState(withVal('done', 3.5), null), S.done);    // no baseline known: plainly done
});

test('a card says that a run set up ahead waits for a free core; other runs get their state\'s word', () => {
  assert.equal(cardWord(run('ready'), S.settingUp), 'set up, waiting for a free core');
  assert.equal(cardWord(run('starting'), S.settingUp), 'setting up');
  assert.equal(cardWord(run('ready', { stepsDone: 40 }), S.paused), 'paused');  // a loaded file waiting for the user
  assert.equal(cardWord(run('running'), S.training), STATE_WORD[S.training]);
});

test('the transitions: ends are ends, a blow-up goes back through paused', () => {
  for (const end of [S.done, S.noBetter, S.failed]) assert.deepEqual(TRANSITIONS[end], []);
  assert.ok(canMove(S.training, S.diverged));
  assert.ok(canMove(S.diverged, S.paused));
  assert.ok(!canMove(S.done, S.training));
  assert.ok(!canMove(S.settingUp, S.diverged));  // a run blows up only while it trains
  assert.ok(canMove(S.paused, S.paused));
  // every state has an entry
  for (const s of Object.values(S)) assert.ok(Array.isArray(TRANSITIONS[s]), s);
});

test('one sentence and the buttons for a panel, in order of what matters', () => {
  const e = (label, r) => ({ label, run: r });
  assert.equal(panelStatus([]).sentence, '');
  let p = panelStatus([e('A', run('starting')), e('B', run('ready'))]);
  assert.equal(p.sentence, 'Setting up the workers…');
  assert.deepEqual([p.buttons.pause.enabled, p.buttons.stop.enabled], [false, true]);
  p = panelStatus([e('A', run('running')), e('B', run('ready'))], { training: '2 at a time.' });
  assert.equal(p.sentence, 'Training… 2 at a time.');
  assert.deepEqual(p.buttons.pause, { enabled: true, label: 'Pause', pressed: false });
  p = panelStatus([e('A', run('running')), e('B', run('diverged'))]);
  assert.equal(p.sentence, 'Training… Meanwhile the loss of B blew up (see its card for the way back).');
  p = panelStatus([e('A', withVal('done', 2)), e('B', run('diverged'))]);
  assert.equal(p.state, S.diverged);
  assert.equal(p.sentence, 'Paused: the loss of B blew up (see its card for the way back).');
  assert.equal(p.buttons.stop.enabled, true);
  p = panelStatus([e('A', run('paused')), e('B', run('ready'))], { queued: 2, held: true });  // B set up while held
  assert.equal(p.sentence, 'Paused; 2 runs waiting. Resume goes on from here.');
  assert.deepEqual(p.buttons.pause, { enabled: true, label: 'Resume', pressed: true });
  // a panel whose way on is another button says so
  p = panelStatus([e('A', run('paused'))], { paused: 'Restored, paused: "Continue" trains on.' });
  assert.equal(p.sentence, 'Restored, paused: "Continue" trains on.');
  p = panelStatus([e('A', withVal('done', 2)), e('B', withVal('done', 2.9))], { baseline: 3, done: () => 'Done: 2 runs.' });
  assert.equal(p.state, S.done);
  assert.equal(p.sentence, 'Done: 2 runs.');
  assert.deepEqual([p.buttons.pause.enabled, p.buttons.stop.enabled], [false, false]);
  p = panelStatus([e('A', withVal('done', 2)), e('B', withVal('done', 3.1))], { baseline: 3, baselineName: 'the unigram guess',
    done: () => 'Done: 2 runs.' });
  assert.equal(p.state, S.noBetter);
  assert.equal(p.sentence, 'Done: 2 runs. B ended no better than the unigram guess (3.000): the learning rate may be too high or the budget too short.');
  p = panelStatus([e('A', run('failed', { error: 'x' })), e('B', run('failed', { error: 'x' }))]);
  assert.equal(p.state, S.failed);
  assert.equal(p.sentence, 'Failed: no run could train (the reason is above).');
});

test('the same failure is said once, naming the runs only when they differ', () => {
  const e = (label, error) => ({ label, run: run('failed', { error }) });
  const empty = 'The text is empty: paste or load some text to train on.';
  assert.equal(failureSentence([e('H = 1', empty), e('H = 4', empty), e('H = 8', empty)]), empty);
  assert.equal(failureSentence([e('H = 1', 'a.'), e('H = 4', 'a.'), { label: 'H = 8', run: run('running') }]), 'H = 1 and H = 4: a.');
  assert.equal(failureSentence([e('H = 1', 'a.'), e('H = 4', 'b.')]), 'H = 1: a. H = 4: b.');
  assert.equal(failureSentence([{ label: 'x', run: run('done') }]), '');
});

// the schedule written out here from its definition (linear warm-up from 0, then a cosine to minLr), not imported
const schedule = (step, s) => (step < s.warmup ? (s.lr * (step + 1)) / s.warmup
  : s.minLr + 0.5 * (s.lr - s.minLr) * (1 + Math.cos((Math.PI * (step - s.warmup)) / (s.steps - s.warmup))));

test('a blow-up in the warm-up suggests the largest rate the loss still fell at', () => {
  // lr 0.5 over a 20-step warm-up: the loss falls until step 6 (0-based 5: lr 0.15), then climbs to the blow-up at 9
  const loss = [4.2, 4.0, 3.8, 3.7, 3.6, 3.5, 3.9, 5, 9, 30];
  const r = run('diverged', { settings: { steps: 200, warmup: 20, lr: 0.5, minLr: 0.05 }, diverged: { step: 9 },
    train: { step: loss.map((_, i) => i + 1), loss } });
  const s = suggestedLr(r, schedule, 1);
  assert.equal(s.rule, 'history');
  assert.equal(s.lr, 0.15);  // 0.5 × 6 / 20
  assert.match(s.why, /largest rate this run trained at while its loss still fell \(step 6, in its warm-up\)/);
  // capped at the default, and the sentence says why
  const capped = suggestedLr(r, schedule, 0.003);
  assert.deepEqual([capped.lr, capped.rule], [0.003, 'default']);
  assert.match(capped.why, /^the default rate: .* would be 0\.15, above it$/);
});

test('a blow-up at a constant rate, or before the loss fell, suggests a tenth of that rate', () => {
  const constant = { steps: 100, warmup: 0, lr: 0.02, minLr: 0.02 };
  const loss = [4.2, 4.0, 3.9, 8, 40];
  const r = run('diverged', { settings: constant, diverged: { step: 4 }, train: { step: loss.map((_, i) => i + 1), loss } });
  assert.deepEqual(suggestedLr(r, schedule, 1), { lr: 0.002, rule: 'tenth', why: 'a tenth of the rate 0.02 at which it blew up' });
  // the loss never fell below its first value: nothing learned from the warm-up
  const rising = [4.2, 5, 9, 30];
  const r2 = run('diverged', { settings: { steps: 200, warmup: 20, lr: 0.5, minLr: 0.05 }, diverged: { step: 3 },
    train: { step: rising.map((_, i) => i + 1), loss: rising } });
  const s2 = suggestedLr(r2, schedule, 1);
  assert.equal(s2.rule, 'tenth');
  assert.equal(s2.lr, 0.01);  // a tenth of 0.5 × 4 / 20
});
