// Status text that is always true (issue 14, items 4 and 5), against the real built module and real workers in
// headless Chromium (scripts/build page first):
//   node --test --test-reporter=spec tests/browser/status.test.mjs
// Every state of the run-state machine (web/js/run_state.js) reached by real runs, with the panel's status line and
// buttons; the learning rate offered after a blow-up; the rejected inputs in the user's terms; the induction panel's
// time estimate and its question before a long run. Screenshots go to tests/browser/output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canMove } from '../../web/js/run_state.js';
import { afterNextFrame } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
mkdirSync(OUTPUT, { recursive: true });
const { openPage } = pageSession({ timeout: 60_000 });

// records every state each run card of a panel goes through (data-state), and the panel's status states
async function recordStates(p, runsSel, statusSel) {
  await p.evaluate(([runsSel, statusSel]) => {
    window.seenStates = { runs: {}, panel: [] };
    const note = () => {
      for (const c of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(`${runsSel} [data-run][data-state]`))) {
        const seq = (window.seenStates.runs[c.dataset.run] ??= []);
        if (seq.at(-1) !== c.dataset.state) seq.push(c.dataset.state);
      }
      const s = /** @type {HTMLElement} */ (document.querySelector(statusSel)).dataset.state ?? '';
      // before the first run the panel has nothing to say (''): a redraw of the page still settling then is no state
      if (!window.seenStates.panel.length && s === '') return;
      if (window.seenStates.panel.at(-1) !== s) window.seenStates.panel.push(s);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-state'], childList: true });
  }, [runsSel, statusSel]);
}

// every recorded run went only through transitions the state machine allows
async function checkTransitions(p) {
  const seen = await p.evaluate(() => window.seenStates);
  for (const [run, seq] of Object.entries(seen.runs))
    for (let i = 1; i < seq.length; ++i) assert.ok(canMove(seq[i - 1], seq[i]), `${run}: ${seq.join(' → ')}`);
  return seen;
}

const buttons = (p, prefix) => p.evaluate((prefix) => {
  const b = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(`${prefix}-${id}`));
  return { pause: b('pause') ? { disabled: b('pause').disabled, text: b('pause').textContent } : null, stop: b('stop').disabled };
}, prefix);
const statusIs = (p, id, state) => p.waitForFunction(([id, state]) => document.getElementById(id).dataset.state === state, [id, state]);

test('heads: setting up, training, paused, restarting after a killed worker, done — each with its line and buttons', async () => {
  const p = await openPage('#panel=heads&heads=4&steps=400&batch=4&context=32&seeds=1');
  try {
    await recordStates(p, '#c-runs', '#c-status');
    await p.click('#c-start');
    await statusIs(p, 'c-status', 'training');
    assert.match(await p.textContent('#c-status'), /^Training…/);
    assert.deepEqual(await buttons(p, 'c'), { pause: { disabled: false, text: 'Pause' }, stop: false });
    await p.click('#c-pause');
    await statusIs(p, 'c-status', 'paused');
    assert.equal(await p.textContent('#c-status'), 'Paused. Resume goes on from here.');
    assert.deepEqual(await buttons(p, 'c'), { pause: { disabled: false, text: 'Resume' }, stop: false });
    await p.click('#c-pause');
    await statusIs(p, 'c-status', 'training');
    // a worker killed mid-run: restarting, then training again from its last snapshot
    await p.waitForFunction(() => (globalThis.mhaDebug.runs()[0]?.lastFull?.step ?? 0) >= 40);
    await p.evaluate(() => globalThis.mhaDebug.crash('H4'));
    await p.waitForFunction(() => /stopped unexpectedly at step \d+.*restarted from its snapshot at step \d+/.test(document.getElementById('c-status').textContent));
    await p.waitForFunction(() => window.seenStates.runs.H4?.includes('restarting'));
    await statusIs(p, 'c-status', 'training');
    await p.click('#c-stop');
    await p.waitForSelector('html[data-comparison="done"]');
    const seen = await checkTransitions(p);
    assert.deepEqual(seen.runs.H4.slice(0, 3), ['setting-up', 'training', 'paused']);
    assert.ok(['done', 'no-better'].includes(seen.runs.H4.at(-1)), seen.runs.H4.join(' → '));
    assert.equal(seen.panel[0], 'setting-up');  // the first change after the click
    console.log(`# H4: ${seen.runs.H4.join(' → ')}; panel: ${seen.panel.join(' → ')}`);
    assert.match(await p.textContent('#c-status'), /Done: 1 run in \d+\.\d s of wall time\./);
    assert.deepEqual(await buttons(p, 'c'), { pause: { disabled: true, text: 'Pause' }, stop: true });
  } finally {
    await p.close();
  }
});

test('heads: a blow-up at lr = 10 says so, and the way back names the rule that gave its learning rate', async () => {
  const p = await openPage('#panel=heads&heads=4&lr=10&steps=200&batch=4&context=32&seeds=1');
  try {
    await p.click('#c-start');
    await statusIs(p, 'c-status', 'diverged');
    assert.equal(await p.textContent('#c-status'), 'Paused: the loss of H = 4 blew up (see its card for the way back).');
    assert.deepEqual(await buttons(p, 'c'), { pause: { disabled: true, text: 'Pause' }, stop: false });
    assert.equal(await p.getAttribute('#c-runs .run-card', 'data-state'), 'diverged');
    assert.match(await p.textContent('#c-runs .run-card .run-facts'), /^blew up · step/);
    // 10 blows up in the warm-up: whichever rule applies (the largest rate that still lowered the loss, or a tenth of
    // the one that blew up) gives more than the default 0.003, so the default is offered and the sentence says why
    assert.match(await p.textContent('#c-runs button[data-action="restore"]'), new RegExp('continue with learning rate 0\\.003 \\(the default rate: ' +
      '(the largest rate this run trained at while its loss still fell \\(step \\d+, in its warm-up\\)|a tenth of the rate [\\d.]+ at which it blew up) ' +
      'would be [\\d.]+, above it\\)'));
    for (const [w, h] of [[1280, 800], [390, 844]]) {
      await p.setViewportSize({ width: w, height: h });
      await p.locator('#c-runs .run-card').scrollIntoViewIfNeeded();
      await p.screenshot({ path: join(OUTPUT, `status-diverged-${w}.png`) });
    }
    await p.click('#c-runs button[data-action="restore"]');
    await p.waitForFunction(() => ['training', 'done', 'no-better'].includes(document.getElementById('c-status').dataset.state));
    await p.click('#c-stop');
    await p.waitForSelector('html[data-comparison="done"]');
  } finally {
    await p.close();
  }
});

test('heads: done but no better than the unigram guess is said in the status line', async () => {
  // two steps cannot beat the unigram baseline (3.016 nats) from random weights (about ln 62 = 4.1)
  const p = await openPage('#panel=heads&heads=4&steps=2&batch=2&context=16&seeds=1');
  try {
    await p.click('#c-start');
    await statusIs(p, 'c-status', 'no-better');
    assert.match(await p.textContent('#c-status'), /^Done: 1 run in \d+\.\d s of wall time\. H = 4 ended no better than the unigram guess \(3\.016\): the learning rate may be too high or the budget too short\.$/);
    assert.equal(await p.getAttribute('#c-runs .run-card', 'data-state'), 'no-better');
  } finally {
    await p.close();
  }
});

test('heads: an empty own text fails every run with one sentence, said once; the status says failed', async () => {
  const p = await openPage('#panel=heads&corpus=pasted&steps=10&batch=4&context=32&seeds=1');
  try {
    await p.fill('#c-text', '');
    await p.click('#c-start');
    await statusIs(p, 'c-status', 'failed');
    assert.equal(await p.textContent('#c-status'), 'Failed: no run could train (the reason is above).');
    const panel = await p.textContent('#panel-heads');
    assert.equal(panel.split('The text is empty').length - 1, 1, 'the sentence shows once');
    assert.equal(await p.textContent('#c-error'), 'The text is empty: paste or load some text to train on.');
    assert.deepEqual(await buttons(p, 'c'), { pause: { disabled: true, text: 'Pause' }, stop: true });
  } finally {
    await p.close();
  }
});

test('rejected inputs are sentences in the user\'s terms, next to the control, once', async () => {
  const p = await openPage('#D=8&H=4');
  try {
    for (const [H, sentence] of /** @type {Array<[string, string|RegExp]>} */ ([['-3', 'H must be a whole number from 1 to 64.'],
      ['2.5', 'H must be a whole number from 1 to 64.'],
      ['3', /^D = 8 is not divisible by H = 3: .*The nearest H that divide D are 2 and 4 \(every H that does, up to 64: 1, 2, 4, 8\)\.$/]])) {
      await p.fill('#in-H', H);
      // the page draws in the next frame; until then the box before's sentence is still up (-3 and 2.5 share one)
      await afterNextFrame(p);
      await p.waitForFunction(() => !document.getElementById('sizes-error').hidden);
      const text = await p.textContent('#sizes-error');
      if (typeof sentence === 'string') assert.equal(text, sentence);
      else assert.match(text, sentence);
      assert.equal(await p.getAttribute('#in-H', 'aria-invalid'), 'true');
    }
    await p.fill('#in-H', '4');
    await p.waitForFunction(() => document.getElementById('sizes-error').hidden);
    // the heads panel: D not divisible by a head count, said under Train with the focus on the head counts
    await p.evaluate(() => { location.hash = '#panel=heads&cD=10&heads=1,4&seeds=1&steps=5'; });
    await p.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('c-heads')).value === '1,4');
    await p.click('#c-start');
    await p.waitForFunction(() => !document.getElementById('c-error').hidden);
    assert.match(await p.textContent('#c-error'), /D = 10 is not divisible by H = 4: .*The nearest H that divides D is 5 \(every H that does, up to 64: 1, 2, 5, 10\)\./);
    assert.equal(await p.evaluate(() => document.activeElement.id), 'c-heads');
    // a number field out of range: the sentence, and the focus on that field
    await p.fill('#c-steps', '0');
    await p.click('#c-start');
    assert.equal(await p.textContent('#c-error'), 'Steps must be a whole number from 1 to 5000.');
    assert.equal(await p.evaluate(() => document.activeElement.id), 'c-steps');
    // an upload that is no model: a PNG is named as one
    await p.fill('#c-steps', '5');
    await p.fill('#c-heads', '1,2');
    await p.setInputFiles('#c-upload', { name: 'heatmap.png', mimeType: 'image/png', buffer: readFileSync(new URL('../../public/img/screenshot.png', import.meta.url)) });
    await p.waitForFunction(() => /PNG image/.test(document.getElementById('c-error').textContent));
    assert.match(await p.textContent('#c-error'), /this file is a PNG image, not a \.safetensors model/i);
    assert.doesNotMatch(await p.textContent('#c-error'), /header length|bytes is more than/);
    // the core read the file before any run was set up: no card for it, and the sentence shows once
    assert.equal(await p.locator('#c-runs [data-run="upload"]').count(), 0);
    assert.equal((await p.textContent('#panel-heads')).split('PNG image').length - 1, 1, 'the sentence shows once');
  } finally {
    await p.close();
  }
});

test('a link with nonsense values says what each must be', async () => {
  const p = await openPage('#H=-3&steps=2.5&ntask=long&nlr=fast');
  try {
    const notice = await p.textContent('#link-notice');
    assert.match(notice, /H must be a whole number from 1 to 64, not “-3”: using 4\./);
    assert.match(notice, /steps must be a whole number from 1 to 5000, not “2\.5”: using 300\./);
    // a rate that follows the induction setting falls back to that setting's (long: 2e-3), and says so
    assert.match(notice, /nlr must be a number from 0\.000001 to 1, not “fast”: using 0\.002\./);
    assert.equal(Number(await p.inputValue('#n-lr')), 2e-3);
  } finally {
    await p.close();
  }
});

test('induction: the expected time before a run, and a question in the page before a long one', async () => {
  const p = await openPage('#panel=induction');
  try {
    // the default (3,500 steps of 64 × 16 tokens) before any run here: 3,584,000 tokens at the fallback measured idle,
    // 114,000 tokens/s, are 31.4 s, under the two minutes that ask first
    const estimate = await p.textContent('#n-estimate');
    assert.match(estimate, /^2 runs of 3,500 steps \(the 2-layer model and its control\): about 31 s here \(114,000 tokens\/s per worker, measured in headless Chromium on an idle 2-core machine; this browser's own speed replaces it after a first run; \d at a time\)\.$/);
    // the page's own 16,000-step link: the long setting, asked about before it starts. The link names the setting
    // only: its steps and rate are the long preset's (state.js defaultIn), 16,000 and 2e-3 (run_settings.hpp)
    const longLink = await p.getAttribute('#n-long', 'href');
    assert.equal(longLink, '?panel=induction&ntask=long');
    await p.goto(p.url().split('#')[0].split('?')[0] + longLink);
    await p.waitForSelector('html[data-ready="true"]');
    assert.equal(await p.inputValue('#n-steps'), '16000');
    assert.equal(Number(await p.inputValue('#n-lr')), 2e-3);
    assert.match(await p.textContent('#n-estimate'), /^2 runs of 16,000 steps .*: about (\d+\.\d) min here/);
    await p.click('#n-start');
    await p.waitForSelector('#n-confirm:not([hidden])');
    assert.match(await p.textContent('#n-confirm-text'), /^This will take about \d+\.\d min here: 2 runs of 16,000 steps/);
    for (const [w, h] of [[1280, 800], [390, 844]]) {
      await p.setViewportSize({ width: w, height: h });
      await p.locator('#n-confirm').scrollIntoViewIfNeeded();
      await p.screenshot({ path: join(OUTPUT, `status-induction-question-${w}.png`) });
    }
    await p.click('#n-confirm-cancel');
    assert.equal(await p.evaluate(() => globalThis.mhaDebug.inductionRuns().length), 0);
    // a short run starts without a question; afterwards the estimate uses this browser's own speed
    await p.fill('#n-steps', '60');
    await p.click('#n-start');
    assert.equal(await p.isHidden('#n-confirm'), true);
    await p.waitForSelector('html[data-induction="done"]', { timeout: 120_000 });
    assert.ok(['done', 'no-better'].includes(await p.getAttribute('#n-status', 'data-state')));
    assert.match(await p.textContent('#n-status'), /^Done in \d+\.\d s of wall time\./);
    assert.match(await p.textContent('#n-estimate'), /this browser's median over its finished runs/);
  } finally {
    await p.close();
  }
});
