// "Break it" over paired seeds in headless Chromium, against the real built module and real workers
// (scripts/build page):
//   node --test --test-reporter=spec tests/browser/break_seeds.test.mjs
// Canonical and each chosen variant train with the same seeds, as many runs at once as the machine has cores; one
// small chart per variant shows its band over the seeds beside canonical's, the table the mean ± half-range and
// min–max and the paired difference, and each variant's verdict is the core's (compareVariants), printed as it is.
// Screenshots go to tests/browser/output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paintedPixels } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const VARIANTS = ['no_transpose_split', 'scale_sqrt_d'];
const TINY = `panel=break&variants=${VARIANTS.join('%2C')}&bsteps=20&bbatch=4&bseeds=2`;

const { openPage, consoleErrors, foreignRequests } = pageSession();

// the runs' final validation losses per setting (canonical first), in seed order, read from the page's runs
const finals = (p) => p.evaluate((names) => {
  const runs = globalThis.mhaDebug.breakRuns();
  return names.map((v) => runs.filter((r) => r.settings.variant === v).sort((a, b) => a.settings.seed - b.settings.seed)
    .map((r) => ({ key: r.key, seed: r.settings.seed, status: r.status, steps: r.stepsDone, val: r.val.loss.at(-1), ms: r.msPerStep() })));
}, ['canonical', ...VARIANTS]);

// the core's comparison of those losses, asked in the page (the module the page loaded)
const coreVerdicts = (p, values, steps) => p.evaluate(async ([names, v, s]) => {
  const { compareVariants } = await import(new URL('build/js/engine.js', location.href).href);
  return compareVariants(names, v, s);
}, [['canonical', ...VARIANTS], values, steps]);

test('2 variants × 2 seeds: paired runs, a band per variant beside canonical, the table and the core\'s verdicts', async () => {
  mkdirSync(OUTPUT, { recursive: true });
  const p = await openPage(`#${TINY}`);
  try {
    assert.equal(await p.inputValue('#b-seeds'), '2');
    // the plan is stated before training: 3 settings × 2 seeds
    assert.match(await p.textContent('#b-plan'), /3 settings × 2 seeds = 6 runs of 20 steps, \d+ at a time .*: about \d+ s/);
    const t0 = Date.now();
    await p.click('#b-start');
    await p.waitForSelector('html[data-breakit="done"]', { timeout: 180_000 });
    const wall = (Date.now() - t0) / 1000;
    const runs = await finals(p);
    const ms = runs.flat().map((r) => r.ms);
    console.log(`# break it, 6 runs × 20 steps (B = 4): ${wall.toFixed(1)} s; ms per step in the workers ${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)}`);

    // six runs, every one to the end; seed s is the same seed for every setting (paired)
    assert.deepEqual(runs.map((rs) => rs.map((r) => r.seed)), [[1, 2], [1, 2], [1, 2]]);
    assert.deepEqual(runs[1].map((r) => r.key), ['no_transpose_split', 'no_transpose_split-seed2']);
    for (const r of runs.flat()) {
      assert.equal(r.status, 'done');
      assert.equal(r.steps, 20);
    }
    // one card per setting (its first seed), with the seeds' progress
    assert.equal(await p.locator('#b-runs .variant-card').count(), 3);
    // the cards show the first seed's sample; a later seed's run makes none
    assert.equal(await p.locator('#b-runs .variant-card figure.sample').count(), 3);
    assert.deepEqual(await p.evaluate(() => globalThis.mhaDebug.breakRuns().filter((r) => r.key.endsWith('-seed2')).map((r) => r.sample)),
      ['', '', '']);
    assert.match(await p.textContent('#b-runs [data-run="scale_sqrt_d"] .seed-line'), /^seeds 1–2: 2 done$/);
    assert.match(await p.textContent('#b-status'), /^Done: 6 runs \(canonical and 2 variants, 2 seeds each\) in \d+\.\d s of wall time, \d+ at a time\.$/);

    // small multiples: one chart per variant, canonical's band in each; the legend names the two means and the baseline
    const charts = p.locator('#b-charts figure');
    assert.equal(await charts.count(), 2);
    for (const [i, v] of VARIANTS.entries()) {
      const chart = charts.nth(i);
      assert.equal(await chart.getAttribute('data-variant'), v);
      const shown = await chart.locator('.u-legend .u-series').evaluateAll((rows) => rows
        .filter((r) => getComputedStyle(r).display !== 'none').map((r) => r.querySelector('.u-label').textContent));
      assert.deepEqual(shown, ['step', 'canonical, mean of 2 seeds', `${v}, mean of 2 seeds`, 'unigram baseline']);
      assert.ok(await paintedPixels(chart.locator('canvas')) > 3000);
      assert.match(await chart.locator('.chart').getAttribute('aria-label'),
        new RegExp(`${v}: mean validation loss \\d\\.\\d{3} over 2 seeds \\(\\d\\.\\d{3} to \\d\\.\\d{3}\\) at step 20`));
    }

    // the table: the core's summaries, word for word
    const core = await coreVerdicts(p, runs.map((rs) => rs.map((r) => r.val)), 20);
    assert.equal(core.ok, true);
    const rows = await p.locator('#b-final table.final-table tbody tr').evaluateAll((/** @type {HTMLTableRowElement[]} */ trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.deepEqual(rows.map((r) => r[0]), ['canonical', ...VARIANTS]);
    rows.forEach((r, g) => {
      const s = core.settings[g], d = core.toReference[g];
      assert.equal(r[2], `${s.mean.toFixed(3)} ± ${s.spread.toFixed(3)}`);
      assert.equal(r[3], `${s.min.toFixed(3)}–${s.max.toFixed(3)}`);
      if (g > 0) assert.equal(r[5], { effect: 'an effect', equivalent: 'no effect over 0.020', undecided: 'cannot tell yet' }[d.outcome]);
    });
    assert.equal(rows[0][4], 'reference');
    assert.match(await p.textContent('#b-final .table-caption'), /after 20 steps over 2 seeds \(1, 2\)/);

    // a verdict per variant: the core's sentence in the lesson's terms, as it is, and the same in the variant's card
    assert.equal(await p.locator('#b-final .seed-verdicts li').count(), 2);
    for (const [i, v] of VARIANTS.entries()) {
      const li = p.locator(`#b-final .seed-verdicts li[data-variant="${v}"]`);
      const text = await li.locator('.lesson-verdict').textContent();
      assert.equal(text, core.lessons[i + 1]);
      assert.match(text, new RegExp(`^${v}: \\d\\.\\d{3} nats (below|above|from) canonical.* at 20 steps`));
      // where the symptom does not show, the page names the budget at which it was measured natively
      if (/does not show at this budget|no difference detected at this budget/.test(text)) assert.match(await li.textContent(), /scripts\/break_seeds \d+ 6 all 101/);
      assert.match(await p.textContent(`#b-runs [data-run="${v}"] .seed-verdict`), new RegExp(`^Over the seeds: ${v}: `));
    }

    await p.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
    await p.waitForTimeout(300);
    await p.locator('#panel-break').screenshot({ path: join(OUTPUT, 'break-seeds-1280.png') });
    await p.setViewportSize({ width: 390, height: 844 });
    await p.waitForTimeout(400);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the 390 px viewport`);
    await p.locator('#panel-break').screenshot({ path: join(OUTPUT, 'break-seeds-390.png') });
  } finally {
    await p.close();
  }
});

test('the seeds and the budget round-trip through the URL; a bad seed count is a sentence', async () => {
  const p = await openPage('#panel=break');
  try {
    assert.equal(await p.inputValue('#b-seeds'), '3');  // the default
    assert.equal(await p.locator('#b-budget input[data-budget="default"]').isChecked(), true);
    assert.match(await p.textContent('#b-plan'), /4 settings × 3 seeds = 12 runs of 200 steps/);
    // the lesson's budget sets the steps, and says how long it takes here
    await p.check('#b-budget input[data-budget="lesson"]');
    const lessonSteps = await p.inputValue('#b-steps');
    assert.notEqual(lessonSteps, '200');
    await p.waitForFunction((s) => location.hash.includes(`bsteps=${s}`), lessonSteps);
    assert.match(await p.textContent('#b-budget'), /where both leaking variants were measured to read the future: [\d,]+ steps \(about \d+ (s|min) here\)/);
    await p.fill('#b-seeds', '2');
    await p.waitForFunction(() => location.hash.includes('bseeds=2'));
    const q = await openPage(await p.evaluate(() => location.hash));
    assert.equal(await q.inputValue('#b-seeds'), '2');
    assert.equal(await q.inputValue('#b-steps'), lessonSteps);
    assert.equal(await q.locator('#b-budget input[data-budget="lesson"]').isChecked(), true);
    await q.close();
    await p.fill('#b-seeds', '0');
    await p.click('#b-start');
    await p.waitForFunction(() => /Seeds per variant/.test(document.getElementById('b-error').textContent));
    assert.equal(await p.evaluate(() => globalThis.mhaDebug.breakRuns().length), 0);
  } finally {
    await p.close();
  }
});

test('Stop ends the runs and drops the waiting ones; no seed finished for every setting: no verdict', async () => {
  const p = await openPage('#panel=break&variants=scale_sqrt_d&bsteps=3000&bbatch=4&bseeds=3');
  try {
    await p.click('#b-start');
    await p.waitForFunction(() => globalThis.mhaDebug.breakRuns().some((r) => r.status === 'running' && r.stepsDone > 0), null, { timeout: 60_000 });
    const cores = await p.evaluate(() => navigator.hardwareConcurrency);
    const created = await p.evaluate(() => globalThis.mhaDebug.breakRuns().length);
    // a worker per core, and one run set up ahead (comparison.js)
    assert.ok(created >= 1 && created <= Math.max(1, cores) + 1, `${created} runs on ${cores} cores`);
    await p.click('#b-stop');
    await p.waitForSelector('html[data-breakit="done"]', { timeout: 60_000 });
    const statuses = await p.evaluate(() => globalThis.mhaDebug.breakRuns().map((r) => r.status));
    assert.ok(statuses.every((s) => s === 'done'), JSON.stringify(statuses));
    // the cards are the first seeds' (2 settings); the later seeds never started
    assert.equal(await p.locator('#b-runs .variant-card').count(), 2);
    assert.match(await p.textContent('#b-final'), /No seed was trained to the end of the schedule for canonical and every variant/);
    assert.equal(await p.locator('#b-final .seed-verdicts li').count(), 0);
  } finally {
    await p.close();
  }
});

test('no request left 127.0.0.1, no console errors', () => {
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
});
