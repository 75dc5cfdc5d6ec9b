// The heads comparison over seeds in headless Chromium, against the real built module and real workers
// (scripts/build wasm):
//   node --test --test-reporter=spec tests/browser/seeds.test.mjs
// Each H trains with the same seeds (paired), as many runs at once as the machine has cores; the chart shows per H
// the mean validation curve and a band over the seeds, the table the mean ± half-range and min–max, and each H's
// verdict is the core's (compareOverSeeds), printed as it is. Screenshots go to tests/browser/output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paintedPixels, settledHash } from '../../scripts/chromium.mjs';
import { evalGrid } from '../../web/js/comparison.js';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const TINY = 'panel=heads&steps=24&batch=4&context=32&layers=2';
const HEADS = [1, 4, 8];

const { openPage, consoleErrors, foreignRequests } = pageSession({ downloads: true });

// trains with the page's settings and waits until every run is done. Meanwhile the page records, at every change of
// the run cards and every frame, how many runs hold a core (set up, training or paused) and how many cards wait:
// an upper bound is checked on these samples, never a duration.
async function trainAll(p, timeout = 180_000) {
  await p.evaluate(() => {
    const busy = ['starting', 'ready', 'running', 'paused', 'restarting'];
    window.seen = { maxBusy: 0, maxTraining: 0, maxWaiting: 0 };
    const sample = () => {
      const runs = globalThis.mhaDebug.runs();
      window.seen.maxBusy = Math.max(window.seen.maxBusy, runs.filter((r) => busy.includes(r.status)).length);
      window.seen.maxTraining = Math.max(window.seen.maxTraining, runs.filter((r) => r.status === 'running').length);
      window.seen.maxWaiting = Math.max(window.seen.maxWaiting, document.querySelectorAll('#c-runs .run-card.status-queued').length);
    };
    new MutationObserver(sample).observe(document.getElementById('c-runs'), { childList: true, subtree: true, attributes: true });
    const frame = () => { sample(); if (!window.seenStop) requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
  });
  await p.click('#c-start');
  await p.waitForSelector('html[data-comparison="done"]', { timeout });
  return p.evaluate(() => { window.seenStop = true; return { ...window.seen, cores: navigator.hardwareConcurrency }; });
}

// the runs' final validation losses, (H, seed) in seed order, and their seeds, read from the page's runs
const finals = (p) => p.evaluate((heads) => {
  const runs = globalThis.mhaDebug.runs().filter((r) => r.key !== 'upload');
  return heads.map((H) => runs.filter((r) => r.settings.nHeads === H).sort((a, b) => a.settings.seed - b.settings.seed)
    .map((r) => ({ key: r.key, seed: r.settings.seed, status: r.status, steps: r.stepsDone, val: r.val.loss.at(-1), valStep: r.val.step.at(-1) })));
}, HEADS);

// the core's comparison of those losses, asked in the page (the module the page loaded)
const coreVerdicts = (p, values) => p.evaluate(async (v) => {
  const { compareOverSeeds } = await import(new URL('build/js/engine.js', location.href).href);
  return compareOverSeeds(['H = 1', 'H = 4', 'H = 8'], v, 0);
}, values);

const tableRows = (p) => p.locator('#c-final table.final-table').first().locator('tbody tr')
  .evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));

test('seeds=2: 3 × 2 paired runs, no more at once than cores, a band per H, mean ± spread, the core\'s verdicts', async () => {
  const p = await openPage(`#${TINY}&seeds=2`);
  try {
    const seen = await trainAll(p);
    console.log(`# ${seen.cores} cores: at most ${seen.maxTraining} runs trained and ${seen.maxBusy} held a worker at once; ` +
      `at most ${seen.maxWaiting} waited`);
    // the scheduler: never more runs training at once than cores, and one more set up ahead at most; with 6 runs on
    // fewer cores, some waited
    assert.ok(seen.maxTraining >= 1 && seen.maxTraining <= Math.max(1, seen.cores), JSON.stringify(seen));
    assert.ok(seen.maxBusy <= Math.max(1, seen.cores) + 1, JSON.stringify(seen));
    if (seen.cores < 6) assert.ok(seen.maxWaiting >= 1, JSON.stringify(seen));

    // six runs, every one to the end; seed s is the same seed for every H (paired)
    const runs = await finals(p);
    assert.deepEqual(runs.map((rs) => rs.map((r) => r.seed)), [[1, 2], [1, 2], [1, 2]]);
    assert.deepEqual(runs.map((rs) => rs.map((r) => r.key)), [['H1', 'H1-seed2'], ['H4', 'H4-seed2'], ['H8', 'H8-seed2']]);
    for (const r of runs.flat()) {
      assert.equal(r.status, 'done');
      assert.equal(r.steps, 24);
      assert.equal(r.valStep, 24);
    }
    const cards = p.locator('#c-runs .run-card');
    assert.equal(await cards.count(), 6);
    for (const text of await cards.allTextContents()) assert.match(text, /done · step 24 \/ 24/);
    assert.equal(await p.locator('#c-runs .run-column').count(), 3);
    assert.match(await p.locator('#c-status').textContent(), /^Done: 6 runs in \d+\.\d s of wall time, \d+ at a time\.$/);
    // the budget line: the same comparison again would keep every run; with other seeds (the same sizes) it times
    // the comparison at this browser's own speed
    assert.equal(await p.locator('#c-budget-help').textContent(),
      'All 6 runs of 24 steps are kept from the comparison before: nothing to train.');
    await p.fill('#c-seed', '3');
    assert.match(await p.locator('#c-budget-help').textContent(),
      /^6 runs of 24 steps: about \d+ s here \([\d,]+ tokens\/s per worker, this browser's median over its finished runs; \d at a time\)\.$/);
    await p.fill('#c-seed', '1');

    // the chart: one legend entry per H and the baseline (band edges and training lines are left out of it)
    const legend = p.locator('#c-chart .u-legend .u-series');
    const shown = await legend.evaluateAll((rows) => rows.filter((r) => getComputedStyle(r).display !== 'none')
      .map((r) => r.querySelector('.u-label').textContent));
    assert.deepEqual(shown, ['step', 'H = 1, mean of 2 seeds', 'H = 4, mean of 2 seeds', 'H = 8, mean of 2 seeds', 'unigram baseline']);
    const hidden = await legend.evaluateAll((rows) => rows.filter((r) => getComputedStyle(r).display === 'none')
      .map((r) => r.querySelector('.u-label').textContent));
    assert.deepEqual(hidden, HEADS.flatMap((H) => [`H = ${H} highest seed`, `H = ${H} lowest seed`, `H = ${H} training`]));
    assert.ok(await paintedPixels(p.locator('#c-chart canvas')) > 5000);
    // at the last step the band runs from the lowest to the highest seed's final loss, around their mean
    const over = p.locator('#c-chart .u-over');
    const box = await over.boundingBox();
    await over.hover({ position: { x: box.width - 1, y: box.height / 2 } });
    const values = await legend.evaluateAll((rows) => Object.fromEntries(rows.map((r) =>
      [r.querySelector('.u-label').textContent, r.querySelector('.u-value').textContent])));
    HEADS.forEach((H, g) => {
      const v = runs[g].map((r) => r.val);
      const [lo, hi, mean] = [Math.min(...v), Math.max(...v), (v[0] + v[1]) / 2];
      assert.equal(values[`H = ${H} highest seed`], hi.toFixed(3));
      assert.equal(values[`H = ${H} lowest seed`], lo.toFixed(3));
      assert.equal(values[`H = ${H}, mean of 2 seeds`], `${mean.toFixed(3)} (${lo.toFixed(3)}–${hi.toFixed(3)})`);
    });
    assert.match(await p.locator('#c-chart').getAttribute('aria-label'),
      /H = 8: mean validation loss \d\.\d{3} over 2 seeds \(\d\.\d{3} to \d\.\d{3}\) at step 24/);

    // the differences chart: each H minus H = 1 on the same seed, their mean and range over the seeds at the last step
    assert.ok(await p.locator('#c-diff-box').isVisible());
    const diffLegend = p.locator('#c-diff .u-legend .u-series');
    const diffOver = p.locator('#c-diff .u-over');
    const diffBox = await diffOver.boundingBox();
    await diffOver.hover({ position: { x: diffBox.width - 1, y: diffBox.height / 2 } });
    const diffValues = await diffLegend.evaluateAll((rows) => Object.fromEntries(rows.map((r) =>
      [r.querySelector('.u-label').textContent, r.querySelector('.u-value').textContent])));
    const signed = (v) => `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(3)}`;
    for (const g of [1, 2]) {
      const d = runs[g].map((r, k) => r.val - runs[0][k].val);
      assert.equal(diffValues[`H = ${HEADS[g]} − H = 1, mean of 2 seeds`],
        `${signed((d[0] + d[1]) / 2)} (${signed(Math.min(...d))} to ${signed(Math.max(...d))})`);
    }
    assert.equal(diffValues['H = 1 (the reference)'], '0');
    assert.match(await p.locator('#c-diff').getAttribute('aria-label'),
      /^Differences in validation loss to H = 1, seed by seed\. H = 4 − H = 1: [+−]\d\.\d{3} on average over 2 seeds \([+−]\d\.\d{3} to [+−]\d\.\d{3}\) at step 24; H = 8 − H = 1: /);

    // the table: per H the parameters, mean ± half-range, min–max, the paired difference to H = 1, time per run
    const core = await coreVerdicts(p, runs.map((rs) => rs.map((r) => r.val)));
    assert.equal(core.ok, true);
    const rows = await tableRows(p);
    assert.deepEqual(rows.map((r) => r[0]), ['H = 1', 'H = 4', 'H = 8']);
    assert.equal(new Set(rows.map((r) => r[1])).size, 1, `parameter counts differ: ${JSON.stringify(rows)}`);
    rows.forEach((r, g) => {
      const s = core.settings[g];
      assert.equal(r[2], `${s.mean.toFixed(3)} ± ${s.spread.toFixed(3)}`);
      assert.equal(r[3], `${s.min.toFixed(3)}–${s.max.toFixed(3)}`);
      assert.match(r[6], /^\d+\.\d s$/);
    });
    assert.equal(rows[0][4], 'reference');
    for (const g of [1, 2]) {
      assert.match(rows[g][4], /^[+−]?\d\.\d{3} \([+−]?\d\.\d{3} to [+−]?\d\.\d{3}\)$/);
      const d = core.toReference[g];
      assert.equal(rows[g][5], { effect: 'an effect', equivalent: 'no effect over 0.020', undecided: 'cannot tell yet' }[d.outcome]);
    }
    assert.match(await p.locator('#c-final .table-caption').first().textContent(), /over 2 seeds \(1, 2\).*parameter counts are equal/);

    // the verdicts: the core's sentences, word for word, for H = 4 and H = 8 (none for the reference)
    assert.equal(await p.locator('#c-final .seed-verdicts li').count(), 2);
    for (const [g, H] of [[1, 4], [2, 8]]) {
      const text = await p.locator(`#c-final .seed-verdicts li[data-heads="${H}"]`).textContent();
      assert.equal(text, core.verdicts[g]);
      assert.match(text, new RegExp(`^H = ${H} (− H = 1: |is (higher|lower) than H = 1 by ).*\\(95% t-interval over 2 paired seeds: `));
    }

    // one sample per H (its first seed's)
    assert.deepEqual(await p.locator('#c-samples figcaption').allTextContents(),
      HEADS.map((H) => `Sample from H = ${H} (seed 1) after 24 steps`));
    // ... and only the first seeds' runs made one: a later seed's sample is never shown, so it is not made
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.runs().map((r) => [r.key, r.sample.length > 0]).sort()),
      [['H1', true], ['H1-seed2', false], ['H4', true], ['H4-seed2', false], ['H8', true], ['H8-seed2', false]]);

    // the CSV: one row per run and step, with its H and seed
    const [csv] = await Promise.all([p.waitForEvent('download'), p.click('#c-csv')]);
    const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
    assert.equal(lines[0], 'run,heads,seed,step,train_loss,val_loss');
    assert.equal(lines.length, 1 + 6 * 25);  // steps 0..24 of each run
    const pairs = new Set(lines.slice(1).map((l) => l.split(',').slice(-5, -3).join(':')));
    assert.deepEqual([...pairs].sort(), ['1:1', '1:2', '4:1', '4:2', '8:1', '8:2']);

    // look inside takes irun = H's first seed
    await p.click('button[data-panel="inside"]');
    await p.waitForSelector('#i-grid .thumb-button');
    assert.equal(await p.locator('#i-runs input[value="H4"]').isChecked(), true);
  } finally {
    await p.close();
  }
});

test('seeds=1: the one-seed verdict, from the core', async () => {
  const p = await openPage(`#${TINY}&seeds=1`);
  try {
    await trainAll(p);
    const runs = await finals(p);
    assert.deepEqual(runs.map((rs) => rs.length), [1, 1, 1]);
    const core = await coreVerdicts(p, runs.map((rs) => rs.map((r) => r.val)));
    const rows = await tableRows(p);
    rows.forEach((r, g) => {
      assert.equal(r[2], core.settings[g].mean.toFixed(3));
      assert.equal(r[3], '–');
    });
    for (const [g, H] of [[1, 4], [2, 8]]) {
      const text = await p.locator(`#c-final .seed-verdicts li[data-heads="${H}"]`).textContent();
      assert.equal(text, core.verdicts[g]);
      assert.match(text, /\(one seed: no interval\): cannot tell yet; with one seed the spread between seeds is unknown/);
    }
  } finally {
    await p.close();
  }
});

test('one more seed trains only the new seed: the finished runs are kept, and equal to runs trained afresh', async () => {
  const p = await openPage(`#${TINY}&seeds=1`);
  const fresh = await openPage(`#${TINY}&seeds=2`);
  try {
    await trainAll(p);
    await p.evaluate(() => { window.firstRuns = globalThis.mhaDebug.runs(); });
    await p.fill('#c-seeds', '2');
    // the estimate counts the runs Train would start: the second seeds only
    assert.match(await p.textContent('#c-budget-help'), /^3 runs of 24 steps, and 3 kept from the comparison before: about /);
    await p.fill('#c-steps', '25');  // another budget: nothing can be kept
    assert.match(await p.textContent('#c-budget-help'), /^6 runs of 25 steps: about /);
    await p.fill('#c-steps', '24');
    await trainAll(p);
    const kept = await p.evaluate(() => globalThis.mhaDebug.runs().filter((r) => window.firstRuns.includes(r)).map((r) => r.key));
    assert.deepEqual(kept.sort(), ['H1', 'H4', 'H8']);
    assert.match(await p.textContent('#c-status'), /^Done: 6 runs in [\d.]+ s of wall time, \d at a time\. 3 of the runs were kept from the comparison before, not trained again: the same settings, seed and text train to the same numbers\.$/);
    // the same comparison again: nothing trains
    assert.match(await p.textContent('#c-budget-help'), /^All 6 runs of 24 steps are kept from the comparison before: nothing to train\.$/);
    await trainAll(p);
    assert.equal(await p.textContent('#c-status'), 'Done: 6 runs. All 6 runs were kept from the comparison before, not trained ' +
      'again: the same settings, seed and text train to the same numbers.');
    // what "the same numbers" means: every run, kept or new, has the curves of the same run trained afresh in another
    // tab, to the bit
    await trainAll(fresh);
    const curves = (q) => q.evaluate(() => Object.fromEntries(globalThis.mhaDebug.runs().map((r) => [r.key,
      { val: r.val, train: r.train, evalEvery: r.settings.evalEvery }])));
    const [here, there] = [await curves(p), await curves(fresh)];
    assert.deepEqual(Object.keys(here).sort(), ['H1', 'H1-seed2', 'H4', 'H4-seed2', 'H8', 'H8-seed2']);
    assert.deepEqual(here, there);
    // every measurement on the schedule's grid (every evalEvery steps, and the end), not where a chunk of training
    // happened to end (the worker measured at 3, 5, 7 … instead of 2, 4, 6 … before it cut its chunks there)
    for (const [key, c] of Object.entries(here)) assert.deepEqual(c.val.step, evalGrid(24, c.evalEvery), key);
  } finally {
    await p.close();
    await fresh.close();
  }
});

test('Pause holds the queue, Resume goes on, Stop ends the runs and drops the waiting ones', async () => {
  const p = await openPage('#panel=heads&steps=4000&batch=4&layers=2&seeds=3');
  try {
    const runs = () => p.evaluate(() => globalThis.mhaDebug.runs().map((r) => r.status));
    await p.click('#c-start');
    await p.click('#c-confirm-go');  // long enough to be asked about (5 rounds × 4,000 steps × 256 tokens: 154 s)
    await p.waitForFunction(() => globalThis.mhaDebug.runs().some((r) => r.status === 'running' && r.stepsDone > 0), null, { timeout: 60_000 });
    await p.click('#c-pause');
    // held: the runs that were still setting up stay ready, and no waiting run gets a worker
    await p.waitForFunction(() => globalThis.mhaDebug.runs().every((r) => r.status === 'paused' || r.status === 'ready'), null, { timeout: 60_000 });
    // the panel draws a state change at the next animation frame (runs.js, drawScheduler): the status says paused
    // (run_state.js), also for a run that was set up after the click, once the cards and buttons are drawn too
    await p.waitForFunction(() => document.getElementById('c-status').dataset.state === 'paused');
    const created = (await runs()).length;
    const cores = await p.evaluate(() => navigator.hardwareConcurrency);
    // a worker per core, and one run set up ahead (comparison.js)
    assert.ok(created >= 1 && created <= Math.max(1, cores) + 1, `${created} runs on ${cores} cores`);
    assert.ok((await runs()).filter((s) => s === 'paused').length <= Math.max(1, cores));
    assert.equal(await p.locator('#c-runs .run-card.status-queued').count(), 9 - created);
    assert.equal(await p.textContent('#c-pause'), 'Resume');
    assert.equal(await p.textContent('#c-status'), `Paused; ${9 - created} runs waiting. Resume goes on from here.`);
    await p.click('#c-pause');
    await p.waitForFunction(() => globalThis.mhaDebug.runs().some((r) => r.status === 'running'));
    await p.waitForFunction(() => document.getElementById('c-status').dataset.state !== 'paused');  // drawn, as above
    assert.equal(await p.textContent('#c-pause'), 'Pause');
    await p.click('#c-stop');
    await p.waitForSelector('html[data-comparison="done"]', { timeout: 60_000 });
    const statuses = await runs();
    assert.ok(statuses.every((s) => s === 'done'), JSON.stringify(statuses));
    const waiting = await p.locator('#c-runs .run-card.status-queued').allTextContents();
    assert.equal(waiting.length, 9 - statuses.length);
    for (const t of waiting) assert.match(t, /not run: stopped before it started/);
    assert.match(await p.textContent('#c-status'), new RegExp(`^Done: ${statuses.length} runs? in `));
    // stopped early, no seed reached the end of the schedule for every H: no final numbers, no verdict
    assert.match(await p.textContent('#c-final'), /No seed was trained to the end of the schedule for every H/);
    assert.equal(await p.locator('#c-final .seed-verdicts li').count(), 0);
  } finally {
    await p.close();
  }
});

test('screenshots of a finished seeds=3 comparison at 1280 and 390 px, no sideways scrolling at 390 px', async () => {
  mkdirSync(OUTPUT, { recursive: true });
  const p = await openPage(`#${TINY}&seeds=3`);
  try {
    await trainAll(p);
    assert.equal(await p.locator('#c-runs .run-card').count(), 9);
    assert.equal(await p.locator('#c-final .seed-verdicts li').count(), 2);
    await p.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
    // the whole panel, settled (the chart follows its container's width)
    await p.waitForTimeout(300);
    await p.locator('#panel-heads').screenshot({ path: join(OUTPUT, 'seeds-heads-1280.png') });
    await p.setViewportSize({ width: 390, height: 844 });
    await p.waitForTimeout(400);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the 390 px viewport`);
    await p.locator('#panel-heads').screenshot({ path: join(OUTPUT, 'seeds-heads-390.png') });
  } finally {
    await p.close();
  }
});

test('the head-size test: one click sets D = 128, H = 1 and 8, 4 seeds at 300 steps and trains; 1,000 steps asks first', async () => {
  const p = await openPage('#panel=heads&steps=70&layers=1');
  try {
    assert.equal(await p.locator('#c-why').isVisible(), true);
    await p.click('#c-why-early');
    await p.waitForSelector('#c-runs .run-card');
    assert.equal(await p.inputValue('#c-heads'), '1,8');
    assert.equal(await p.inputValue('#c-D'), '128');
    assert.equal(await p.inputValue('#c-steps'), '300');
    assert.equal(await p.inputValue('#c-layers'), '2');  // the text's default model, as measured natively
    assert.equal(await p.inputValue('#c-seeds'), '4');
    assert.match(await settledHash(p), /heads=1%2C8|heads=1,8/);
    assert.equal(await p.locator('#c-runs .run-card').count(), 8);
    await p.click('#c-stop');
    // the later budget: 8 runs of 1,000 steps at D = 128, over two minutes here, so the page asks first
    await p.click('#c-why-later');
    assert.equal(await p.inputValue('#c-steps'), '1000');
    assert.equal(await p.locator('#c-confirm').isVisible(), true);
    await p.click('#c-confirm-cancel');
    // the offsets task has no such question
    await p.check('input[name="ctask"][value="offsets"]');
    assert.equal(await p.locator('#c-why').isVisible(), false);
  } finally {
    await p.close();
  }
});

test('the budget presets: short is the core\'s default, longer sets 2,000 steps, and the time waits for a speed', async () => {
  const p = await openPage('#panel=heads');
  try {
    const [short, longer, help] = ['#c-budget-short', '#c-budget-longer', '#c-budget-help'].map((s) => p.locator(s));
    assert.equal(await short.textContent(), 'Short: 300 steps');
    assert.equal(await short.getAttribute('aria-pressed'), 'true');
    assert.equal(await longer.getAttribute('aria-pressed'), 'false');
    // no run yet: the speed measured on an idle machine, and the line says where it comes from
    // (36 runs: 3 head counts × 12 seeds, 2 at a time: 18 rounds of 300 steps × 16 × 64 tokens at 33,300 tokens/s
    // = 166 s; the default took 156 s and 161 s there)
    assert.equal(await help.textContent(), '36 runs of 300 steps: about 2.8 min here (33,300 tokens/s per worker, measured ' +
      'on an idle 2-core machine in headless Chromium; this browser\'s own speed replaces it after a first run; 2 at a time).');
    await longer.click();
    assert.equal(await p.inputValue('#c-steps'), '2000');
    assert.equal(await longer.getAttribute('aria-pressed'), 'true');
    assert.equal(await short.getAttribute('aria-pressed'), 'false');
    assert.match(await settledHash(p), /steps=2000/);
    assert.match(await help.textContent(), /^36 runs of 2,000 steps: about 18 min here/);  // 18 × 2000 × 1024 / 33300 = 1,107 s
    // over two minutes: Train asks first, in the page (a sandboxed frame may forbid dialogs); Cancel starts nothing
    await p.click('#c-start');
    assert.match(await p.locator('#c-confirm-text').textContent(), /^This comparison will take about 18 min here: 36 runs of 2,000 steps \(33,300 tokens\/s per worker/);
    assert.equal(await p.evaluate(() => document.activeElement.id), 'c-confirm-go');
    await p.click('#c-confirm-cancel');
    assert.equal(await p.locator('#c-confirm').isHidden(), true);
    assert.equal(await p.evaluate(() => globalThis.mhaDebug.runs().length), 0);
    // three runs of 2,000 steps (two rounds, 152 s at that speed) ask too; "Train anyway" starts them
    await p.fill('#c-heads', '4');
    await p.fill('#c-seeds', '3');
    await p.click('#c-start');
    await p.click('#c-confirm-go');
    await p.waitForFunction(() => globalThis.mhaDebug.runs().length >= 1);
    await p.click('#c-stop');
    // typing another budget leaves both presets unpressed
    await p.fill('#c-steps', '500');
    assert.equal(await longer.getAttribute('aria-pressed'), 'false');
    assert.equal(await short.getAttribute('aria-pressed'), 'false');
    await short.click();
    assert.equal(await p.inputValue('#c-steps'), '300');
    assert.doesNotMatch(await settledHash(p), /steps=/);
  } finally {
    await p.close();
  }
});

test('a page holding trained runs asks before it is left; a page without runs does not', async () => {
  // what leaving the page brings: the browser's dialog (dismissed: the page stays), or the page closes ('none')
  const ask = async (p) => {
    const dialog = new Promise((ok) => p.once('dialog', async (d) => { ok(d.type()); await d.dismiss(); }));
    const closed = new Promise((ok) => p.once('close', () => ok('none')));
    await p.close({ runBeforeUnload: true });
    return Promise.race([dialog, closed]);
  };
  const empty = await openPage('#panel=heads');
  await empty.click('#c-budget-longer');  // a user gesture, which the browser needs before it may ask
  assert.equal(await ask(empty), 'none');
  assert.equal(empty.isClosed(), true);
  const p = await openPage(`#${TINY}&heads=1&seeds=1`);
  await trainAll(p);
  assert.equal(await ask(p), 'beforeunload');
  assert.equal(p.isClosed(), false);  // dismissed: the page and its runs stay
  await p.close();
});

test('no request left 127.0.0.1, no console errors', () => {
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
});
