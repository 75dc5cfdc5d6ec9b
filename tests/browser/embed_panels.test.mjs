// Every panel embedded on its own, and panels together, each in <iframe sandbox="allow-scripts"> on a course page
// of another origin (an opaque origin inside: the classic-script build, blob workers), as an instructor puts them:
//   node --test --test-reporter=spec tests/browser/embed_panels.test.mjs
// Each panel does its job there with short budgets: reshape and attention react to their controls, the worked
// example follows an edit, heads / break / induction train and report, the KV cache follows its fields, "Look inside"
// loads a model in place (made here by the core under node: a Run's weights snapshot; a bad file gets its sentence
// beside the control); panel=heads,inside and panel=induction,inside train and then look in one frame. No sentence in
// a frame sends the reader to a panel that is not in it. Screenshots go to tests/browser/output/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageModule } from './page_module.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const TRAINING = 90_000;  // ms a short run may take on a loaded machine (waited for, never judged)
// the panels' numbers, as the page's own headings and buttons give them
const NUMBER = { reshape: 1, attention: 2, worked: 3, heads: 4, break: 5, inside: 6, induction: 7, params: 8 };

const session = pageSession({ viewport: { width: 1280, height: 900 }, course: { height: 1400 } });
let model;

// a model trained 5 steps in the page's own module and saved as the page saves it: settings(constants) gives its
// settings, full whether the AdamW state goes with the weights
async function makeModel(settings, text, full) {
  const mod = await pageModule();
  const run = new mod.Run();
  try {
    const facts = run._init(settings(mod._constants()), text, null);
    assert.equal(facts.ok, true, facts.error);
    assert.equal(run._train(5).ok, true);
    const snap = run._snapshot(full);
    assert.equal(snap.ok, true);
    return Buffer.from(snap.bytes);
  } finally {
    run.delete();
  }
}

let offsetsModel;
before(async () => {
  // as a student would have saved it: 2 layers, H = 4, trained on a scrap of text, weights only
  model = await makeModel((c) => ({ ...c.defaults, context: 32, batch: 4, steps: 5, warmup: 1, nHeads: 4 }),
    'In the beginning God created the heaven and the earth. '.repeat(40), false);
  // a model of the offsets task as the heads panel saves it: one attention-only layer, H = 4, with its AdamW state
  // (its metadata names the task)
  offsetsModel = await makeModel((c) => ({ ...c.defaults, task: 'offsets', offsets: c.offsetsSetting.offsets,
    symbols: c.offsetsSetting.symbols, nLayers: c.offsetsSetting.nLayers, mlp: c.offsetsSetting.mlp,
    context: c.offsetsSetting.context, batch: 4, steps: 5, warmup: 0, nHeads: 4 }), '', true);
});

// loads a model file into Look inside's own control; checks that its heads' maps are drawn and no error is shown
async function loadInside(frame, name, buffer, heads) {
  await frame.locator('#i-upload').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
  await frame.locator('#i-body:not([hidden])').waitFor();
  await frame.locator('#i-grid canvas').nth(heads - 1).waitFor();
  assert.equal(await frame.locator('#i-grid canvas').count(), heads);
  assert.equal(await frame.locator('#i-upload-error').isHidden(), true);
}

// opens the frame; checks that exactly the named panels are shown
async function openPanels(src, names) {
  const { p, frame } = await session.openFramed(src);
  assert.equal(await frame.locator('html').evaluate(() => self.origin), 'null');  // sandboxed: an opaque origin
  for (const [name] of Object.entries(NUMBER)) {
    assert.equal(await frame.locator(`#panel-${name}`).isVisible(), names.includes(name), `#panel-${name}`);
  }
  return { p, frame };
}

// every "panel N" the frame's visible text mentions must be one of its own panels
async function pointsOnlyAtItself(frame, names) {
  const text = await frame.locator('body').evaluate((b) => b.innerText);
  const mentioned = [...text.matchAll(/\bpanels? (\d)/gi)].map((m) => Number(m[1]));
  const allowed = names.map((n) => NUMBER[n]);
  const foreign = mentioned.filter((n) => !allowed.includes(n));
  assert.deepEqual(foreign, [], `the frame (${names}) points at panel ${foreign.join(', ')}: ${
    [...text.matchAll(/[^.\n]*\bpanels? \d[^.\n]*/gi)].map((m) => m[0].trim()).join(' | ')}`);
}

async function shoot(p, name) {
  mkdirSync(OUTPUT, { recursive: true });
  await p.screenshot({ path: join(OUTPUT, `embed-${name}-1280.png`) });
}

test('reshape, embedded alone: the split follows D, H and the order chosen', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=reshape#D=8&H=2', ['reshape']);
  try {
    assert.equal(await frame.locator('#card-sizes').isVisible(), true);  // its controls come with it
    const groups = (order) => frame.locator(`#reshape-${order} .heads > li`).count();
    assert.equal(await groups('canonical'), 2);
    await frame.locator('#in-H').fill('4');
    await frame.locator('#reshape-canonical .heads > li').nth(3).waitFor();
    assert.equal(await groups('canonical'), 4);
    assert.equal(await groups('swapped'), 4);
    // canonical: head 0 holds channels 0 and 1; swapped: channels 0 and 4
    assert.deepEqual(await frame.locator('#reshape-canonical .heads > li').first().locator('[data-channel]')
      .evaluateAll((xs) => xs.map((x) => Number(x.dataset.channel))), [0, 1]);
    assert.deepEqual(await frame.locator('#reshape-swapped .heads > li').first().locator('[data-channel]')
      .evaluateAll((xs) => xs.map((x) => Number(x.dataset.channel))), [0, 4]);
    // the order chosen is marked, in words that do not point at panel 2 (not in this frame)
    await frame.locator('input[name="order"][value="swapped"]').check();
    await frame.locator('#reshape-swapped.is-active').waitFor();
    assert.equal(await frame.locator('#reshape-swapped .badge').textContent(), 'the order chosen above');
    assert.equal(await frame.locator('#sizes-both').isHidden(), true);
    await pointsOnlyAtItself(frame, ['reshape']);
    await shoot(p, 'reshape');
  } finally {
    await p.close();
  }
});

test('attention, embedded alone: one heatmap per head, following H and the sentence', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=attention#D=16&H=2&text=the%20cat%20sat', ['attention']);
  try {
    assert.equal(await frame.locator('#card-sizes').isVisible(), true);
    assert.equal(await frame.locator('#attention-heads canvas').count(), 2);
    assert.match(await frame.locator('#out-tokens').textContent(), /^3 words/);
    await frame.locator('#in-H').fill('4');
    await frame.locator('#attention-heads canvas').nth(3).waitFor();
    assert.equal(await frame.locator('#attention-heads canvas').count(), 4);
    await frame.locator('#in-text').fill('the cat sat on the mat');
    await frame.locator('#out-tokens').filter({ hasText: /^6 words/ }).waitFor();
    // a D that H does not divide: the sentence, and no maps
    await frame.locator('#in-H').fill('3');
    await frame.locator('#sizes-error:not([hidden])').waitFor();
    assert.equal(await frame.locator('#attention-heads canvas').count(), 0);
    await frame.locator('#in-H').fill('4');
    await frame.locator('#attention-heads canvas').nth(3).waitFor();
    await pointsOnlyAtItself(frame, ['attention']);
    await shoot(p, 'attention');
  } finally {
    await p.close();
  }
});

test('worked example, embedded alone: an edited input number changes every step after it', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=worked', ['worked']);
  try {
    const steps = frame.locator('#w-steps');
    const before = await steps.textContent();
    assert.ok(before.length > 100);
    await frame.locator('#w-x input').first().fill('2');
    await frame.locator('#w-steps').evaluate((n, b) => new Promise((ok) => {
      const check = () => (n.textContent !== b ? ok() : requestAnimationFrame(check));
      check();
    }), before);
    assert.notEqual(await steps.textContent(), before);
    await frame.locator('#w-reset').click();
    await frame.locator('#w-steps').evaluate((n, b) => new Promise((ok) => {
      const check = () => (n.textContent === b ? ok() : requestAnimationFrame(check));
      check();
    }), before);
    await pointsOnlyAtItself(frame, ['worked']);
    await shoot(p, 'worked');
  } finally {
    await p.close();
  }
});

test('heads, embedded alone: a short comparison trains and fills its table', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=heads#heads=1,2&steps=6&batch=2&context=16&seeds=1', ['heads']);
  try {
    await frame.locator('#c-start').click();
    await frame.locator('html[data-comparison="done"]').waitFor({ timeout: TRAINING });
    assert.equal(await frame.locator('#c-final tbody tr').count(), 2);  // one row per H
    // a sandboxed frame's classic workers import the relaxed-SIMD build where the browser has relaxed SIMD (Chromium)
    assert.deepEqual(await frame.locator('html').evaluate(() => globalThis.mhaDebug.runs().map((r) => r.facts.kernels)),
      ['relaxed-simd', 'relaxed-simd']);
    assert.match(await frame.locator('#c-final').textContent(), /H = 1[\s\S]*H = 2/);
    assert.equal(await frame.locator('#c-chart canvas').count() > 0, true);
    assert.match(await frame.locator('#c-values caption').textContent(), /^Validation loss \(nats per character\)/);
    await pointsOnlyAtItself(frame, ['heads']);
    await shoot(p, 'heads');
  } finally {
    await p.close();
  }
});

test('break it, embedded alone: canonical and a variant train, with the causality check and the table', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=break#variants=no_transpose_merge&bsteps=6&bbatch=2&bseeds=1', ['break']);
  try {
    await frame.locator('#b-start').click();
    await frame.locator('html[data-breakit="done"]').waitFor({ timeout: TRAINING });
    assert.match(await frame.locator('#b-runs [data-run="canonical"] [data-causality="trained"]').textContent(), /^causal/);
    assert.match(await frame.locator('#b-runs [data-run="no_transpose_merge"] [data-causality="trained"]').textContent(), /^LEAKS/);
    assert.equal(await frame.locator('#b-final tbody tr').count(), 2);
    await pointsOnlyAtItself(frame, ['break']);
    await shoot(p, 'break');
  } finally {
    await p.close();
  }
});

test('induction heads, embedded alone: both models train a short budget and the summary reports', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=induction#nsteps=30', ['induction']);
  try {
    await frame.locator('#n-start').click();
    await frame.locator('html[data-induction="done"]').waitFor({ timeout: TRAINING });
    assert.match(await frame.locator('#n-summary').textContent(), /induction threshold 0\.4[\s\S]*The 1-layer control: repeat \d\.\d\d/);
    assert.equal(await frame.locator('#n-scores tbody tr').count(), 8 + 4);
    await pointsOnlyAtItself(frame, ['induction']);
    await shoot(p, 'induction');
  } finally {
    await p.close();
  }
});

test('parameters and KV cache, embedded alone: the ledger, and the cache follows its fields', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=params', ['params']);
  try {
    assert.match(await frame.locator('#p-ledger .table-caption').textContent(), /^Every tensor of the character models this page trains/);
    const kv = frame.locator('#p-kv');
    const before = await kv.textContent();
    assert.match(before, /GiB/);
    // query heads 64, KV heads 8 → 1 (MQA): the GQA column's cache shrinks eightfold, and the preset no longer matches
    await frame.locator('#k-Kv').fill('1');
    await frame.locator('#k-source').filter({ hasText: /Your own shape/ }).waitFor();
    assert.notEqual(await kv.textContent(), before);
    await frame.locator('#k-Kv').fill('0');
    await frame.locator('#k-error:not([hidden])').waitFor();
    await pointsOnlyAtItself(frame, ['params']);
    await shoot(p, 'params');
  } finally {
    await p.close();
  }
});

test('look inside, embedded alone: it says how to get a model, loads one in place, and shows its heads', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=inside', ['inside']);
  try {
    assert.match(await frame.locator('#i-empty-text').textContent(), /^No model to look inside yet: load a \.safetensors model here/);
    await pointsOnlyAtItself(frame, ['inside']);
    // a picture picked by mistake: the sentence beside this panel's own control
    await frame.locator('#i-upload').setInputFiles({ name: 'photo.png', mimeType: 'image/png',
      buffer: readFileSync(new URL('../../public/img/screenshot.png', import.meta.url)) });
    await frame.locator('#i-upload-error:not([hidden])').waitFor();
    assert.match(await frame.locator('#i-upload-error').textContent(), /this file is a PNG image, not a \.safetensors model/i);
    // the model: its 2 × 4 heads, drawn
    await loadInside(frame, 'model.safetensors', model, 8);
    await frame.locator('#i-scores tbody tr').nth(7).waitFor();
    await pointsOnlyAtItself(frame, ['inside']);
    await shoot(p, 'inside');
  } finally {
    await p.close();
  }
});

test('look inside, embedded alone: a model of the offsets task opens as one, on its own probe sequence', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=inside', ['inside']);
  try {
    await loadInside(frame, 'offsets.safetensors', offsetsModel, 4);  // one layer × 4 heads
    // no sentence to type: the box is off, and says why
    assert.equal(await frame.locator('#i-text').isDisabled(), true);
    assert.match(await frame.locator('#i-text-info').textContent(), /^does not apply: this model reads task tokens, not text/);
    await frame.locator('#i-scores tbody tr').nth(3).waitFor();
    assert.match(await frame.locator('#i-scores-caption').textContent(), /measured on the model's probe sequence \(its task has no text\)/);
  } finally {
    await p.close();
  }
});

test('the heads panel, embedded alone: a model of the offsets task loads as a run of that task, at its step', async () => {
  const { p, frame } = await openPanels('?embed=1&panel=heads', ['heads']);
  try {
    await frame.locator('#c-upload').setInputFiles({ name: 'offsets.safetensors', mimeType: 'application/octet-stream', buffer: offsetsModel });
    const facts = frame.locator('#c-runs .run-card .run-facts', { hasText: 'Loaded at step' });
    await facts.waitFor();
    assert.equal(await facts.textContent(),
      'Loaded at step 5: train it further on its own task (offsets: symbols 3, offsets 1,3,5,7).');
    assert.equal(await frame.locator('#c-error').isHidden(), true);
  } finally {
    await p.close();
  }
});

test('panel=heads,inside: two panels in one frame, train and then look', async () => {
  const names = ['heads', 'inside'];
  const { p, frame } = await openPanels('?embed=1&panel=heads,inside#heads=1,2&steps=6&batch=2&context=16&seeds=1', names);
  try {
    assert.match(await frame.locator('#i-empty-text').textContent(), /^Train the models in panel 4, or load/);
    await frame.locator('#c-start').click();
    await frame.locator('html[data-comparison="done"]').waitFor({ timeout: TRAINING });
    await frame.locator('#i-body:not([hidden])').waitFor();
    await frame.locator('#panel-inside').scrollIntoViewIfNeeded();  // the panel asks for maps once it is seen
    await frame.locator('#i-grid canvas').nth(1).waitFor();  // the first run's maps: H = 1, two layers at least
    assert.deepEqual(await frame.locator('#i-runs label').allTextContents(), ['H = 1', 'H = 2']);
    await pointsOnlyAtItself(frame, names);
    // the frame keeps the list in its address
    assert.match(await frame.locator('html').evaluate(() => location.search + location.hash), /panel=heads%2Cinside|panel=heads,inside/);
  } finally {
    await p.close();
  }
});

test('panel=induction,inside: the induction models are listed in "Look inside", read on their probe sequence', async () => {
  const names = ['inside', 'induction'];
  const { p, frame } = await openPanels('?embed=1&panel=induction,inside#nsteps=30', names);
  try {
    assert.match(await frame.locator('#i-empty-text').textContent(), /^Train the models in panel 7, or load/);
    await frame.locator('#n-start').click();
    await frame.locator('html[data-induction="done"]').waitFor({ timeout: TRAINING });
    await frame.locator('#i-body:not([hidden])').waitFor();
    assert.deepEqual(await frame.locator('#i-runs label').allTextContents(), ['induction: 2 layers', 'induction: 1-layer control']);
    await frame.locator('#panel-inside').scrollIntoViewIfNeeded();
    // the 2-layer model: 2 × 4 heads, its maps of the probe sequence, the sentence box off
    await frame.locator('#i-grid canvas').nth(7).waitFor();
    assert.equal(await frame.locator('#i-text').isDisabled(), true);
    assert.match(await frame.locator('#i-text-info').textContent(), /reads task tokens, not text/);
    // the control: one layer
    await frame.locator('#i-runs label').nth(1).click();
    await frame.locator('#i-scores tbody tr').nth(4).waitFor({ state: 'detached' });
    assert.equal(await frame.locator('#i-scores tbody tr').count(), 4);
    await pointsOnlyAtItself(frame, names);
    await shoot(p, 'induction-inside');
  } finally {
    await p.close();
  }
});

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(session.foreignRequests, []);
  assert.deepEqual(session.consoleErrors, []);
});
