// The offsets task in "Heads, compared", in headless Chromium against the real built module and real workers
// (scripts/build page):
//   node --test --test-reporter=spec tests/browser/offsets.test.mjs
// The task choice brings its own model (the core's constants().offsetsSetting: one attention-only layer, its T, B,
// steps and learning rate, shown greyed out) and its own head counts (default 1,4); the text's controls do not apply.
// The choice round-trips through the URL hash. A comparison trains and shows the core's verdict, word for word.
// The default run (H = 1 and 4, 3 seeds) ends each run at its first measurement at the task's threshold: the same
// steps as the whole budget's runs, to the bit, up to there; its wall time is logged, no test passes or fails on
// time. Screenshots go to tests/browser/output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));

const { openPage, consoleErrors, foreignRequests } = pageSession();

// the hash the page writes (at most once per frame after a change)
const hashOf = async (p, pattern) => {
  await p.waitForFunction((re) => new RegExp(re).test(location.hash), pattern.source);
  return p.evaluate(() => location.hash);
};

// the runs' final validation losses per H, in seed order
const finals = (p, heads) => p.evaluate((hs) => {
  const runs = globalThis.mhaDebug.runs();
  return hs.map((H) => runs.filter((r) => r.settings.nHeads === H).sort((a, b) => a.settings.seed - b.settings.seed)
    .map((r) => ({ status: r.status, steps: r.stepsDone, val: r.val.loss.at(-1), task: r.facts?.task, settings: r.settings,
      curve: { step: [...r.val.step], loss: [...r.val.loss] } })));
}, heads);

const coreVerdicts = (p, values) => p.evaluate(async (v) => {
  const { compareOverSeeds } = await import(new URL('build/js/engine.js', location.href).href);
  return compareOverSeeds(['H = 1', 'H = 4'], v, 0);
}, values);

// the core's steps-to-threshold over the runs' validation curves (curves (G,S), setting-major as the page passes them)
const coreReach = (p, curves, seeds, threshold, budget) => p.evaluate(async ([c, n, th, b]) => {
  const { reachOverSeeds } = await import(new URL('build/js/engine.js', location.href).href);
  return reachOverSeeds(['H = 1', 'H = 4'], c.flat().map((x) => x.step), c.flat().map((x) => x.loss), n, th, b);
}, [curves, seeds, threshold, budget]);

test('the task choice: the offsets task shows its own model greyed out, H = 1,4, and round-trips through the hash', async () => {
  const p = await openPage('#panel=heads');
  try {
    const o = await p.evaluate(async () => (await import(new URL('build/js/engine.js', location.href).href)).constants().offsetsSetting);
    assert.equal(await p.locator('input[name="ctask"][value="char"]').isChecked(), true);
    assert.equal(await p.inputValue('#c-heads'), '1,4,8');
    assert.equal(await p.locator('#c-task-note').isVisible(), false);
    assert.equal(await p.locator('[data-control="corpus"]').isVisible(), true);
    assert.equal(await p.locator('[data-control="ostop"]').isVisible(), false);  // the offsets task's own choice

    assert.match(await p.textContent('#heads-title'), /train H = 1, 4, 8 at the same budget/);
    await p.check('input[name="ctask"][value="offsets"]');
    assert.match(await hashOf(p, /ctask=offsets/), /ctask=offsets/);
    assert.equal(await p.inputValue('#c-heads'), '1,4');
    // the title and the chart's caption speak of the chosen task
    assert.match(await p.textContent('#heads-title'), /train H = 1, 4 at the same budget/);
    assert.match(await p.textContent('#panel-heads .chart-box figcaption'), /the uniform guess on the offsets task/);
    for (const [id, v] of [['#c-layers', o.nLayers], ['#c-context', o.context], ['#c-batch', o.batch], ['#c-steps', o.steps], ['#c-lr', o.lr]]) {
      assert.equal(await p.inputValue(id), String(v), id);
      assert.equal(await p.locator(id).isDisabled(), true, id);
    }
    assert.equal(await p.locator('#c-D').isDisabled(), false);
    assert.equal(await p.locator('#c-task-note').isVisible(), true);
    assert.match(await p.textContent('#c-task-note'), /depth and an MLP stand in for heads/);
    // the panel's intro speaks of the chosen task, not of character-level language models
    const intro = p.locator('#panel-heads .intro:visible');
    assert.equal(await intro.count(), 1);
    assert.match(await intro.textContent(), /^\s*Models of the offsets task below/);
    assert.equal(await p.locator('[data-control="corpus"]').isVisible(), false);
    // how a run ends: at the threshold by default; the other choice round-trips through the hash
    assert.equal(await p.locator('input[name="ostop"][value="reach"]').isChecked(), true);
    await p.check('input[name="ostop"][value="budget"]');
    await hashOf(p, /ostop=budget/);
    await p.check('input[name="ostop"][value="reach"]');
    await hashOf(p, /^(?!.*ostop=)/);

    // the offsets task's head counts are its own: editing them leaves the text's alone
    await p.fill('#c-heads', '1,2,4');
    assert.match(await p.textContent('#heads-title'), /train H = 1, 2, 4 at the same budget/);
    const hash = await hashOf(p, /oheads=1%2C2%2C4|oheads=1,2,4/);
    await p.check('input[name="ctask"][value="char"]');
    assert.equal(await p.inputValue('#c-heads'), '1,4,8');
    assert.match(await p.locator('#panel-heads .intro:visible').textContent(), /^\s*Character-level language models/);
    assert.equal(await p.locator('#c-layers').isDisabled(), false);
    await hashOf(p, /^(?!.*ctask=)/);
    // the text's fields are the text's again: they show and save its settings
    assert.equal(await p.inputValue('#c-steps'), '300');
    await p.fill('#c-steps', '70');
    await hashOf(p, /steps=70/);
    // an emptied list of head counts is left out of the address, as an emptied number is (not "heads=NaN")
    await p.fill('#c-heads', '');
    await p.fill('#c-steps', '71');
    assert.doesNotMatch(await hashOf(p, /steps=71/), /NaN|[#&]heads=/);
    await p.fill('#c-heads', '1,4,8');

    // the link reproduces the choice in a new tab
    const q = await openPage(hash);
    try {
      assert.equal(await q.locator('input[name="ctask"][value="offsets"]').isChecked(), true);
      assert.equal(await q.inputValue('#c-heads'), '1,2,4');
      assert.equal(await q.locator('#c-steps').isDisabled(), true);
    } finally {
      await q.close();
    }
  } finally {
    await p.close();
  }
});

// seed 1's runs over the whole budget (the second test), for the default run's stopped ones to agree with
let wholeBudget = null;

test('an offsets comparison (one seed, the whole budget) trains the task\'s model and shows the core\'s verdict', async () => {
  mkdirSync(OUTPUT, { recursive: true });
  const p = await openPage('#panel=heads&ctask=offsets&oseeds=1&ostop=budget');
  try {
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 240_000 });
    // the task predicts a token per position: its loss is counted per token, not per character
    assert.match(await p.locator('#c-values caption').textContent(), /^Validation loss \(nats per token\)/);
    const runs = await finals(p, [1, 4]);
    wholeBudget = runs;
    assert.equal(await p.locator('input[name="ostop"][value="budget"]').isChecked(), true);
    const o = await p.evaluate(async () => (await import(new URL('build/js/engine.js', location.href).href)).constants().offsetsSetting);
    for (const [r] of runs) {
      assert.equal(r.status, 'done');
      assert.equal(r.task, 'offsets');
      assert.equal(r.steps, o.steps);
      assert.equal(r.settings.nLayers, o.nLayers);
      assert.equal(r.settings.mlp, false);
      assert.equal(r.settings.offsets, o.offsets);
    }
    const core = await coreVerdicts(p, runs.map((rs) => rs.map((r) => r.val)));
    assert.equal(core.ok, true);
    const text = await p.locator('#c-final .seed-verdicts li[data-heads="4"]').textContent();
    assert.equal(text, core.verdicts[1]);
    // the parameter counts are equal, there is no text sample, and the baseline is the uniform guess
    assert.match(await p.locator('#c-final .table-caption').first().textContent(), /parameter counts are equal/);
    assert.equal(await p.locator('#c-samples figure').count(), 0);
    const legend = await p.locator('#c-chart .u-legend .u-series .u-label').allTextContents();
    assert.ok(legend.includes('uniform guess'), JSON.stringify(legend));
    // where the heads look, per H: the first seed's last trace from the core, one chart per head; the peaks are
    // the core's. Every head of H = 4 peaks at an offset the task needs; the single head of H = 1 weighs all four
    // (docs/experiments.md, "The offsets task": four different weights, so that each tuple's mix is distinct)
    const shown = await p.locator('#c-profiles .profiles-by-count').evaluateAll((boxes) => boxes.map((b) => ({
      title: b.querySelector('h4').textContent,
      peaks: [...b.querySelectorAll('.profile figcaption')].map((c) => Number(c.textContent.match(/peak (\d+)/)[1])) })));
    const corePeaks = await p.evaluate(() => globalThis.mhaDebug.runs().filter((r) => !r.key.includes('seed')).map((r) => {
      const t = r.traces.at(-1).trace;
      return Array.from({ length: t.L * t.H }, (_, i) => {
        const v = t.profile.subarray(i * t.K, (i + 1) * t.K);
        return v.indexOf(Math.max(...v));
      });
    }));
    assert.deepEqual(shown, [{ title: 'H = 1, seed 1', peaks: corePeaks[0] }, { title: 'H = 4, seed 1', peaks: corePeaks[1] }]);
    for (const k of corePeaks[1]) assert.ok([1, 3, 5, 7].includes(k), `an H = 4 head peaks at offset ${k}`);
    const single = await p.evaluate(() => {
      const t = globalThis.mhaDebug.runs().find((r) => r.settings.nHeads === 1).traces.at(-1).trace;
      return [1, 3, 5, 7].map((k) => t.profile[k]);
    });
    for (const w of single) assert.ok(w > 0.08, `the single head's weights on offsets 1, 3, 5, 7: ${single}`);
    // over time: the step each run first reached the task's threshold, from the core, word for word
    const reach = await coreReach(p, runs.map((rs) => rs.map((r) => r.curve)), 1, o.threshold, o.steps);
    assert.equal(reach.ok, true);
    assert.deepEqual(await p.locator('#c-final .reach-sentences li').allTextContents(), reach.sentences);
    // and judged over time too: one seed gives no interval
    assert.match(await p.locator('#c-final .reach-verdicts li[data-heads="4"]').textContent(),
      /^H = 4 − H = 1, the first step at the threshold: −[\d,]+ steps \(one seed: no interval\): cannot tell yet[.;]/);
    const reachRows = await p.locator('#c-final table.reach-table tbody tr').evaluateAll((/** @type {HTMLTableRowElement[]} */ trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.deepEqual(reachRows.map((r) => r[0]), ['H = 1', 'H = 4']);
    console.log(`# over time: ${reach.sentences.join(' ')}`);
    console.log(`# one seed: H = 1 ${runs[0][0].val.toFixed(4)}, H = 4 ${runs[1][0].val.toFixed(4)}; peaks H = 1 ${corePeaks[0]}, H = 4 ${corePeaks[1]}`);
    await p.locator('#panel-heads').screenshot({ path: join(OUTPUT, 'offsets-heads-1280.png') });
  } finally {
    await p.close();
  }
});

test('the page\'s default offsets run (H = 1 and 4, 3 seeds): each run ends at 0.2 nats, H = 4 sooner', async () => {
  const p = await openPage('#panel=heads&ctask=offsets');
  try {
    assert.equal(await p.inputValue('#c-seeds'), '3');
    assert.equal(await p.locator('input[name="ostop"][value="reach"]').isChecked(), true);
    assert.equal(await p.locator('[data-control="ostop"]').isVisible(), true);
    const t0 = Date.now();
    await p.click('#c-start');
    // a run that ends at a loss may end sooner than its last step: the time it has left is the most it can take
    await p.waitForFunction(() => /up to about \d+ s left/.test(document.querySelector('#panel-heads .run-card')?.textContent ?? ''));
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 400_000 });
    const wall = (Date.now() - t0) / 1000;
    const runs = await finals(p, [1, 4]);
    assert.deepEqual(runs.map((rs) => rs.length), [3, 3]);
    // every H's first seed starts first, then the longest runs (fewer heads: H = 1 takes about ten times H = 4's
    // steps): the later H = 1 runs start before the later H = 4 runs (the first three set up may start in either order)
    const started = Object.fromEntries(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => [r.key, r.timeline.startedAt])));
    for (const [a, b] of [['H4', 'H1-seed3'], ['H1-seed2', 'H1-seed3'], ['H1-seed3', 'H4-seed2'], ['H4-seed2', 'H4-seed3']])
      assert.ok(started[a] < started[b], `${a} started before ${b}: ${JSON.stringify(started)}`);
    const o = await p.evaluate(async () => (await import(new URL('build/js/engine.js', location.href).href)).constants().offsetsSetting);
    // each run ended at its first measurement at or below the threshold, on the grid: every one before it was above
    for (const r of runs.flat()) {
      assert.equal(r.status, 'done');
      assert.equal(r.settings.stopAtLoss, o.threshold);
      assert.equal(r.curve.step.at(-1), r.steps);
      assert.equal(r.steps % o.evalEvery, 0);
      assert.ok(r.curve.loss.at(-1) <= o.threshold && r.curve.loss.slice(0, -1).every((l) => l > o.threshold),
        JSON.stringify(r.curve));
      assert.ok(r.steps < o.steps, `seed ${r.settings.seed}, H = ${r.settings.nHeads}: ${r.steps} steps`);
    }
    const reach = await coreReach(p, runs.map((rs) => rs.map((r) => r.curve)), 3, o.threshold, o.steps);
    assert.deepEqual(await p.locator('#c-final .reach-sentences li').allTextContents(), reach.sentences);
    // the runs' last losses are all about the threshold: no final-loss verdict, a sentence that says why
    assert.equal(await p.locator('#c-final .seed-verdicts li').count(), 0);
    assert.match(await p.locator('#c-final [data-ended="threshold"]').textContent(),
      /^Each run ended at its first measurement at or below 0\.200 nats, .* over 3 seeds \(1, 2, 3\)\. The parameter counts are equal\./);
    // four heads get there first (natively, seeds 1..3: H = 4 at 225-250, H = 1 at 2,375-2,525)
    assert.ok(reach.settings[1].reached === 3 && reach.settings[1].max < reach.settings[0].median,
      JSON.stringify(reach.settings));
    // the verdict is on the paired steps: their mean, here from the runs' own ends
    const mean = runs[1].reduce((t, r, i) => t + r.steps - runs[0][i].steps, 0) / 3;
    const said = `−${Math.round(-mean).toLocaleString('en-US')}`;
    assert.match(await p.locator('#c-final .reach-verdicts li[data-heads="4"]').textContent(), new RegExp(
      `^H = 4 − H = 1, the first step at the threshold: ${said} steps \\(95% t-interval over 3 paired seeds: −[\\d,]+ to ` +
      '−[\\d,]+ steps\\): H = 4 gets there sooner, an effect\\.$'));
    // stopping changes nothing before the stop: seed 1 trained the same steps, to the bit, as over the whole budget
    if (!wholeBudget) assert.fail('the second test (the whole budget, seed 1) did not run first');
    for (const g of [0, 1]) {
      const whole = wholeBudget[g][0].curve, stopped = runs[g][0].curve;
      assert.deepEqual(stopped.step, whole.step.slice(0, stopped.step.length));
      assert.deepEqual(stopped.loss, whole.loss.slice(0, stopped.loss.length));
    }
    const status = await p.textContent('#c-status');
    console.log(`# default run: ${wall.toFixed(1)} s from the click; ${status}; ` +
      `steps H = 1 ${runs[0].map((r) => r.steps).join(' ')}, H = 4 ${runs[1].map((r) => r.steps).join(' ')}`);
  } finally {
    await p.close();
  }
});

test('a reload gives runs that ended at 0.2 nats back as they ended; Train again keeps them', async () => {
  // H = 4 and 8 (natively, seed 1: at steps 225 and 200 of 3,000): runs that end early, in seconds (H = 1 takes
  // about 2,450 steps)
  const p = await openPage('#panel=heads&ctask=offsets&oseeds=1&oheads=4%2C8');
  try {
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 240_000 });
    await p.waitForSelector('#panel-heads [data-saved-runs="2"]');
    const ended = () => p.evaluate(() => globalThis.mhaDebug.runs().map((r) => [r.key, r.status, r.stepsDone, r.val.loss.at(-1)]));
    const before = await ended();
    const verdict = await p.locator('#c-final .reach-verdicts li[data-heads="8"]').textContent();
    assert.deepEqual(before.map(([key]) => key), ['H4', 'H8']);
    assert.ok(before.every(([, status, steps]) => status === 'done' && steps < 3000), JSON.stringify(before));

    await p.reload();
    await p.waitForSelector('html[data-ready="true"][data-runs-restored="true"]');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 60_000 });
    await p.waitForFunction(() => globalThis.mhaDebug.runs().every((r) => r.facts));
    // done where they ended, not paused short of the budget: no "Continue" button, the same verdict in steps
    assert.deepEqual(await ended(), before);
    assert.equal(await p.locator('#c-runs [data-action="continue"]').count(), 0);
    assert.equal(await p.locator('#c-final [data-ended="threshold"]').count(), 1);
    assert.equal(await p.locator('#c-final .reach-verdicts li[data-heads="8"]').textContent(), verdict);

    // ended as planned, so the same comparison again trains nothing
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 60_000 });
    assert.match(await p.textContent('#c-status'), /^Done: 2 runs\. All 2 runs were kept from the comparison before/);
    assert.deepEqual(await ended(), before);
  } finally {
    await p.close();
  }
});

test('look inside an offsets run: its probe sequence of token ids, nothing to type', async () => {
  const p = await openPage('#panel=heads,inside&ctask=offsets&seeds=1&oheads=4');
  try {
    await p.click('#c-start');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 240_000 });
    await p.locator('#panel-inside').scrollIntoViewIfNeeded();
    await p.locator('#i-grid canvas').nth(3).waitFor();  // one layer of four heads
    assert.equal(await p.locator('#i-grid canvas').count(), 4);
    assert.equal(await p.locator('#i-text').isDisabled(), true);
    assert.match(await p.locator('#i-text-info').textContent(), /^does not apply: this model reads task tokens, not text/);
    // the maps are of the run's probe: the same token ids its trace was measured on
    const probe = await p.evaluate(() => globalThis.mhaDebug.runs()[0].traces.at(-1).trace.tokens.join(' '));
    assert.match(probe, /^\d+( \d+)+$/);
    assert.match(await p.locator('#i-detail canvas').getAttribute('aria-label'), /query positions/);
  } finally {
    await p.close();
  }
});

test('no request left 127.0.0.1, no console errors', () => {
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
});
