// The break ("Break it") and induction ("Induction heads") panels in headless Chromium, against the real built
// module and real workers (scripts/build wasm):
//   node --test --test-reporter=spec tests/browser/experiments.test.mjs
// Short budgets, far below the panels' defaults, keep the file quick; it logs how long each training took (the
// timings: docs/experiments.md). Screenshots go to tests/browser/output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paintedPixels, settledHash } from '../../scripts/chromium.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const BREAK = 'panel=break&variants=no_transpose_split,no_transpose_merge&bsteps=16&bbatch=4&bseeds=1';
const INDUCTION = 'panel=induction&nsteps=80';

const session = pageSession({ course: { height: 900 } });
const { consoleErrors, foreignRequests } = session;
let breakPage, inductionPage;

const openPage = (hash) => session.openPage('#' + hash);


// ------------------------------------------------------------------------------------------ break it
test('break it: canonical and two variants train to completion, with causality badges, samples and the swap check', async () => {
  breakPage = await openPage(BREAK);
  const p = breakPage;
  assert.equal(await p.locator('#panel-break').isVisible(), true);
  assert.equal(await p.locator('#panel-heads').isHidden(), true);
  assert.equal(await p.locator('#b-variants input[data-variant="no_transpose_merge"]').isChecked(), true);
  assert.equal(await p.locator('#b-variants input[data-variant="swapped_order"]').isChecked(), false);
  const t0 = Date.now();
  await p.click('#b-start');
  await p.waitForSelector('html[data-breakit="done"]', { timeout: 90_000 });
  console.log(`# break it, 3 runs × 16 steps (B=4): ${Date.now() - t0} ms`);
  const cards = p.locator('#b-runs .variant-card');
  assert.equal(await cards.count(), 3);
  const badge = (run, when) => p.locator(`#b-runs [data-run="${run}"] [data-causality="${when}"]`).textContent();
  for (const when of ['init', 'trained']) {
    assert.match(await badge('canonical', when), /^causal/);
    assert.match(await badge('no_transpose_split', when), /^LEAKS: [\d,]+ pairs/);
    assert.match(await badge('no_transpose_merge', when), /^LEAKS: [\d,]+ pairs/);
  }
  for (const run of ['no_transpose_split', 'no_transpose_merge']) {
    const card = p.locator(`#b-runs [data-run="${run}"]`);
    assert.match(await card.textContent(), /\(same as canonical\)/);
    assert.match(await card.textContent(), /ms per step/);
    assert.match(await card.locator('.measured').textContent(), /This run measured: validation loss \d\.\d{3}, .* canonical's \d\.\d{3}/);
    assert.match(await card.locator('.lesson').textContent(), /The lesson predicts: outputs depend on future tokens/);
    // the leaking pairs, on demand
    await card.locator('.leaks summary').click();
    assert.match(await card.locator('.leaks .pairs').textContent(), /^\d+←\d+, /);
  }
  assert.equal(await p.locator('#b-runs .leaks').count(), 2);  // none for canonical
  assert.equal(await p.locator('#b-runs .sample pre').count(), 3);
  assert.match(await p.locator('#b-swap-text').textContent(),
    /trained canonical model: validation loss \d\.\d{3}\. The very same weights read by the swapped-order model .*: \d\.\d{3}/);
  // one small chart per variant, canonical in each: step, per setting its mean, band edges and training, the baseline
  assert.equal(await p.locator('#b-charts figure').count(), 2);
  assert.equal(await p.locator('#b-charts figure').first().locator('.u-legend .u-series').count(), 1 + 2 * 4 + 1);
  assert.ok(await paintedPixels(p.locator('#b-charts figure').first().locator('canvas')) > 3000);
  // the settings are in the URL
  assert.match(await settledHash(p), /variants=no_transpose_split%2Cno_transpose_merge/);
});

test('break it: no variant picked is a sentence, and the choice round-trips through the URL', async () => {
  const p = await openPage('panel=break');
  try {
    const checked = await p.locator('#b-variants input:checked').evaluateAll((/** @type {HTMLInputElement[]} */ xs) => xs.map((x) => x.value));
    assert.deepEqual(checked, ['swapped_order', 'no_transpose_split', 'no_transpose_merge']);  // the defaults
    for (const v of checked) await p.uncheck(`#b-variants input[data-variant="${v}"]`);
    await p.click('#b-start');
    await p.waitForFunction(() => /at least one variant/.test(document.getElementById('b-error').textContent));
    await p.check('#b-variants input[data-variant="no_wo"]');
    await p.waitForFunction(() => location.hash.includes('variants=no_wo'));
    const q = await openPage((await p.evaluate(() => location.hash)).slice(1));
    assert.deepEqual(await q.locator('#b-variants input:checked').evaluateAll((/** @type {HTMLInputElement[]} */ xs) => xs.map((x) => x.value)), ['no_wo']);
    await q.close();
  } finally {
    await p.close();
  }
});

// ------------------------------------------------------------------------------------------ induction heads
test('induction heads: the 2-layer model and the 1-layer control train, with live scores, losses and the probe map', async () => {
  inductionPage = await openPage(INDUCTION);
  const p = inductionPage;
  assert.equal(await p.locator('#panel-induction').isVisible(), true);
  // the setting: short by default; choosing one brings the steps it needs, and the URL remembers it
  assert.equal(await p.locator('input[name="ntask"][value="short"]').isChecked(), true);
  assert.equal(await p.inputValue('#n-steps'), '80');
  await p.check('input[name="ntask"][value="long"]');
  assert.equal(await p.inputValue('#n-steps'), '16000');
  assert.equal(Number(await p.inputValue('#n-lr')), 2e-3);  // each setting has its rate (run_settings.hpp)
  // the URL keeps the setting alone: its steps and rate are that setting's defaults (state.js defaultIn)
  await p.waitForFunction(() => /ntask=long/.test(location.hash) && !/nsteps|nlr/.test(location.hash));
  await p.check('input[name="ntask"][value="short"]');
  assert.equal(await p.inputValue('#n-steps'), '3500');
  assert.equal(Number(await p.inputValue('#n-lr')), 1.5e-3);
  await p.fill('#n-steps', '80');
  const t0 = Date.now();
  await p.click('#n-start');
  // live: measurements arrive while training
  await p.waitForFunction(() => /induction threshold 0\.4/.test(document.getElementById('n-summary').textContent));
  await p.waitForSelector('html[data-induction="done"]', { timeout: 90_000 });
  console.log(`# induction, 2 runs × 80 steps: ${Date.now() - t0} ms`);
  const summary = await p.locator('#n-summary').textContent();
  assert.match(summary, /(No layer-1 head has reached the induction threshold 0\.4|crossed the induction threshold 0\.4 at step \d+)/);
  assert.match(summary, /Loss on the repeat: \d\.\d\d → \d\.\d\d nats, against \d\.\d\d on the first copy/);
  assert.match(summary, /The 1-layer control: repeat \d\.\d\d/);
  const runs = await p.evaluate(() => mhaDebug.inductionRuns().map((r) => ({ key: r.key, status: r.status, n: r.induction.length,
    L: r.induction.at(-1).measurement.L, steps: r.induction.map((m) => m.step) })));
  assert.deepEqual(runs.map((r) => [r.key, r.status, r.L]), [['L2', 'done', 2], ['L1', 'done', 1]]);
  for (const r of runs) {
    assert.ok(r.n >= 10, `only ${r.n} measurements`);
    assert.equal(r.steps[0], 0);
    assert.equal(r.steps.at(-1), 80);
  }
  // three charts (4 copy-loss lines + the uniform guess; 4 heads + control + threshold; 4 heads + threshold)
  assert.equal(await p.locator('#n-loss .u-legend .u-series').count(), 1 + 4 + 1);
  assert.equal(await p.locator('#n-ind .u-legend .u-series').count(), 1 + 5 + 1);
  assert.equal(await p.locator('#n-prev .u-legend .u-series').count(), 1 + 4 + 1);
  for (const id of ['#n-loss', '#n-ind', '#n-prev']) assert.ok(await paintedPixels(p.locator(`${id} canvas`)) > 3000, id);
  // the probe maps: [BOS, r, r] with the longest segment (7 in the short setting), the best head named, and drawn
  assert.match(await p.locator('#n-map2 .heatmap-title').textContent(), /^2 layers: layer 1, head \d \(induction score \d\.\d\d, step 80\)/);
  assert.match(await p.locator('#n-map1 .heatmap-title').textContent(), /^1-layer control: layer 0, head \d/);
  assert.ok(await paintedPixels(p.locator('#n-map2 canvas')) > 3000);
  await p.locator('#n-map2 canvas').focus();
  for (let i = 0; i < 12; ++i) await p.keyboard.press('ArrowDown');
  // query 12 is in the repeat (positions 8..14): an induction head looks at 12 - 7 + 1 = 6
  for (let i = 0; i < 6; ++i) await p.keyboard.press('ArrowRight');
  assert.match(await p.locator('#n-map2 .readout').textContent(), /\(12\) → key “.*” \(6\): \d\.\d{3} \(where an induction head looks\)/);
  assert.equal(await p.locator('#n-scores tbody tr').count(), 8 + 4);
  assert.match(await p.locator('#n-scores .table-caption').textContent(), /induction score of 0\.4 or more/);
});

test('induction heads: "switch layer 0 off" shows the core\'s measurement without layer 0 beside the one with it', async () => {
  const p = inductionPage;
  const button = p.locator('#n-layer0');
  assert.equal(await button.isEnabled(), true);
  assert.equal(await button.getAttribute('aria-pressed'), 'false');
  await button.click();
  await p.waitForSelector('#n-layer0-result .layer0-table tbody tr');
  assert.equal(await button.getAttribute('aria-pressed'), 'true');
  assert.equal(await button.textContent(), 'Switch layer 0 back on');
  const shown = await p.locator('#n-layer0-result tbody tr').evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  // the same question to the core again, through the page's own run: the numbers shown; and with layer 0 on, the
  // finished run's last measurement
  const core = await p.evaluate(async () => {
    const model = mhaDebug.inductionRuns().find((r) => r.key === 'L2');
    const r = await model.measureInductionWithout([[0, 0], [0, 1], [0, 2], [0, 3]]);
    const pick = (m) => ({ best: m.bestInduction, head: m.bestHead, repeat: m.lossRepeat, first: m.lossFirst });
    const last = model.induction.at(-1);
    return { ok: r.ok, step: r.step, on: pick(r.full), off: pick(r.without), last: pick(last.measurement), lastStep: last.step };
  });
  assert.equal(core.ok, true);
  assert.equal(core.step, 80);
  assert.deepEqual(core.on, core.last);
  const fmt = (m) => [`${m.best.toFixed(3)} (head ${m.head})`, m.repeat.toFixed(3), m.first.toFixed(3)];
  assert.deepEqual(shown.map((row) => row[1]), fmt(core.on));
  assert.deepEqual(shown.map((row) => row[2]), fmt(core.off));
  // switching layer 0 off changes what the last layer reads: the repeat's loss moves
  assert.notEqual(core.off.repeat, core.on.repeat);
  assert.match(await p.locator('#n-layer0-result .table-caption').textContent(), /at step 80, .* 4 layer-0 heads switched off/);
  // a head that does not exist: a sentence, and the run is unchanged
  const wrong = await p.evaluate(() => mhaDebug.inductionRuns()[0].measureInductionWithout([[5, 0]]));
  assert.deepEqual(wrong, { ok: false, error: 'there is no head 0 in layer 5: this model has layers 0 to 1 with heads 0 to 3 in each.' });
  // back on: the table goes
  await button.click();
  assert.equal(await button.getAttribute('aria-pressed'), 'false');
  assert.equal(await p.locator('#n-layer0-result table').count(), 0);
});

// ------------------------------------------------------------------------------------------ embedding, screenshots
test('break it inside <iframe sandbox="allow-scripts">: the classic-script build runs it to completion', async () => {
  const { p, frame } = await session.openFramed('?embed=1&panel=break#variants=no_transpose_merge&bsteps=6&bbatch=2');
  try {
    assert.equal(await frame.locator('html').evaluate(() => self.origin), 'null');
    assert.equal(await frame.locator('#panel-break').isVisible(), true);
    await frame.locator('#b-start').click();
    await frame.locator('html[data-breakit="done"]').waitFor({ timeout: 60_000 });
    assert.match(await frame.locator('#b-runs [data-run="no_transpose_merge"] [data-causality="trained"]').textContent(), /^LEAKS/);
  } finally {
    await p.close();
  }
});

test('screenshots of both panels at 1280x800 and 390x844, no sideways scrolling at 390 px', async () => {
  mkdirSync(OUTPUT, { recursive: true });
  for (const [name, p, anchors] of [['break', breakPage, ['#panel-break', '#b-runs', '#b-swap']],
    ['induction', inductionPage, ['#panel-induction', '#n-summary', '#n-map2']]]) {
    await p.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.waitForTimeout(300);
    for (const [i, a] of anchors.entries()) {
      await p.locator(a).evaluate((n) => n.scrollIntoView({ block: 'start' }));
      await p.waitForTimeout(200);
      await p.screenshot({ path: join(OUTPUT, `${name}-1280-${i + 1}.png`) });
    }
    await p.setViewportSize({ width: 390, height: 844 });
    await p.waitForTimeout(400);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${name}: page is ${overflow}px wider than the 390 px viewport`);
    for (const [i, a] of anchors.entries()) {
      await p.locator(a).evaluate((n) => n.scrollIntoView({ block: 'start' }));
      await p.waitForTimeout(200);
      await p.screenshot({ path: join(OUTPUT, `${name}-390-${i + 1}.png`) });
    }
  }
});

test('no request left 127.0.0.1', () => {
  assert.deepEqual(foreignRequests, []);
});

test('no console errors or page errors', () => {
  assert.deepEqual(consoleErrors, []);
});
