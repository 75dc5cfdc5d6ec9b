// A helper on an idle core (web/js/helper.js), in headless Chromium against the built site (scripts/build page):
//   node --test --test-reporter=spec tests/browser/helper.test.mjs
// The induction panel trains a 2-layer model beside a 1-layer control that takes about half as long per step, so
// once the control ends a core stands idle: the comparison lends it to the model, whose steps then take their
// batches' second halves there, and whose measurements their later validation batches. The model must train to the
// same bits as with no helper (mhaDebug.helpers(false)): its training and validation losses are compared number for
// number. A page that is not cross-origin isolated (a course host's frame, file://) has no helpers: there every run
// trains alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSession } from './page_session.mjs';

const INDUCTION = 'panel=induction&nsteps=1200';
const session = pageSession();
const { openPage, consoleErrors, foreignRequests } = session;

// trains the induction panel's model and control; returns each run's losses and its helpers' part
async function train(helpers) {
  const p = await openPage(`#${INDUCTION}`);
  try {
    assert.equal(await p.evaluate(() => globalThis.crossOriginIsolated), true, 'the page is not cross-origin isolated');
    await p.evaluate((on) => globalThis.mhaDebug.helpers(on), helpers);
    const t0 = Date.now();
    await p.click('#n-start');
    await p.waitForSelector('html[data-induction="done"]', { timeout: 180_000 });
    console.log(`# ${helpers ? 'with helpers' : 'alone'}: ${((Date.now() - t0) / 1000).toFixed(1)} s from the click to the end`);
    // an ended helper's worker reports what it spent a moment later
    await p.waitForFunction(() => globalThis.mhaDebug.inductionRuns().every((r) => r.helpers.every((h) => h.spent)),
      null, { timeout: 10_000 }).catch(() => {});
    return await p.evaluate(() => globalThis.mhaDebug.inductionRuns().map((r) => ({
      key: r.key, status: r.status, stepsDone: r.stepsDone, train: [...r.train.loss], val: [...r.val.loss],
      helperSeconds: r.helperSeconds,
      helpers: r.helpers.map((h) => ({ ready: h.timeline.readyAt > 0, halvesMs: h.spent?.train ?? 0,
        evaluationMs: h.spent?.evaluate ?? 0 })),
    })));
  } finally {
    await p.close();
  }
}

test('the induction model is lent the control\'s core when the control ends, and trains to the same bits', async () => {
  const alone = await train(false);
  const helped = await train(true);
  for (const runs of [alone, helped]) {
    assert.deepEqual(runs.map((r) => [r.key, r.status, r.stepsDone]), [['L2', 'done', 1200], ['L1', 'done', 1200]]);
  }
  assert.ok(alone.every((r) => r.helpers.length === 0), 'helpers were lent while the page said not to');
  const model = helped.find((r) => r.key === 'L2');
  assert.equal(model.helpers.length, 1, JSON.stringify(model.helpers));
  assert.ok(model.helpers[0].ready, 'the helper never set up');
  console.log(`# the helper took halves for ${model.helpers[0].halvesMs.toFixed(0)} ms`);
  assert.ok(model.helpers[0].halvesMs > 100, 'the helper took no halves');
  console.log(`# and validation batches for ${model.helpers[0].evaluationMs.toFixed(0)} ms`);
  assert.ok(model.helpers[0].evaluationMs > 0, 'the helper took no validation batches');
  // the run counts its helper's halves in what its steps cost (Run.msPerStep), as its worker reported them
  assert.ok(model.helperSeconds > 0.1 && model.helperSeconds <= model.helpers[0].halvesMs / 1000 + 1e-9,
    `helper seconds ${model.helperSeconds} against ${model.helpers[0].halvesMs} ms of halves`);
  assert.equal(helped.find((r) => r.key === 'L1').helperSeconds, 0);
  for (let i = 0; i < 2; ++i) {
    const a = alone[i], b = helped[i];
    assert.equal(b.train.length, a.train.length);
    assert.equal(b.val.length, a.val.length);
    // the same numbers, not close ones: a helper changes when a step is done, not what it computes
    assert.deepEqual(b.train, a.train, `${a.key}: the training losses differ with a helper`);
    assert.deepEqual(b.val, a.val, `${a.key}: the validation losses differ with a helper`);
  }
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});
