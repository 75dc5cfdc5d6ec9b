// Panels embedded on their own and together, each in <iframe sandbox="allow-scripts"> on a course page of another
// origin (an opaque origin inside: the classic-script build, blob workers), as an instructor puts them:
//   node --test --test-reporter=spec tests/browser/embed_panels.test.mjs
// "Look inside" alone loads a model in place (made here by the core under node: a Run's weights snapshot); a bad file
// gets its sentence beside the control; panel=heads,inside trains and looks in one frame. Screenshots go to
// tests/browser/output/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveOnePage, watchPage } from '../../scripts/chromium.mjs';
import { startServer } from '../../scripts/serve.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const BUILD = new URL('../../public/build/', import.meta.url);

let server, base, host, hostBase, browser, context, model;
const consoleErrors = [];
const foreignRequests = [];

// a model as a student would have saved it: 2 layers, H = 4, trained 5 steps on a scrap of text, weights only
async function makeModel() {
  const { default: createMha } = await import(new URL('mha.js', BUILD).href);
  const mod = await createMha({ wasmBinary: readFileSync(new URL('mha.wasm', BUILD)) });
  const run = new mod.Run();
  try {
    const text = 'In the beginning God created the heaven and the earth. '.repeat(40);
    const facts = run._init({ ...mod._constants().defaults, context: 32, batch: 4, steps: 5, warmup: 1, nHeads: 4 }, text, null);
    assert.equal(facts.ok, true, facts.error);
    assert.equal(run._train(5).ok, true);
    const snap = run._snapshot(false);
    assert.equal(snap.ok, true);
    return Buffer.from(snap.bytes);
  } finally {
    run.delete();
  }
}

before(async () => {
  ({ server, url: base } = await startServer({ port: 0 }));
  // the course page: its frame's address comes after the '#' of the course page's own address
  ({ server: host, url: hostBase } = await serveOnePage(`<!doctype html><html><head><title>course page</title></head><body>
      <h1>A course page</h1>
      <iframe id="lab" title="mha-sandbox" sandbox="allow-scripts" style="width: 100%; height: 1400px; border: 0"></iframe>
      <script>document.getElementById('lab').src = decodeURIComponent(location.hash.slice(1));</script>
      </body></html>`));
  model = await makeModel();
  browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
  ({ context } = browser);
  context.setDefaultTimeout(20_000);
});

after(async () => {
  await browser?.close();
  server?.close();
  host?.close();
});

async function openFramed(src) {
  const p = await context.newPage();
  watchPage(p, { errors: consoleErrors, foreign: foreignRequests });
  await p.goto(`${hostBase}#${encodeURIComponent(base + src)}`);
  const frame = p.frameLocator('#lab');
  await frame.locator('html[data-ready="true"]').waitFor();
  return { p, frame };
}

test('look inside, embedded alone: it says how to get a model, loads one in place, and shows its heads', async () => {
  const { p, frame } = await openFramed('?embed=1&panel=inside');
  try {
    assert.equal(await frame.locator('#panel-heads').isHidden(), true);
    assert.match(await frame.locator('#i-empty-text').textContent(), /^No model to look inside yet: load a \.safetensors model here/);
    // a picture picked by mistake: the sentence beside this panel's own control
    await frame.locator('#i-upload').setInputFiles({ name: 'photo.png', mimeType: 'image/png',
      buffer: readFileSync(new URL('../../public/img/screenshot.png', import.meta.url)) });
    await frame.locator('#i-upload-error:not([hidden])').waitFor();
    assert.match(await frame.locator('#i-upload-error').textContent(), /this file is a PNG image, not a \.safetensors model/i);
    // the model: its 2 × 4 heads, drawn
    await frame.locator('#i-upload').setInputFiles({ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: model });
    await frame.locator('#i-body:not([hidden])').waitFor();
    await frame.locator('#i-grid canvas').nth(7).waitFor();
    assert.equal(await frame.locator('#i-grid canvas').count(), 8);
    assert.equal(await frame.locator('#i-upload-error').isHidden(), true);
    mkdirSync(OUTPUT, { recursive: true });
    await p.screenshot({ path: join(OUTPUT, 'embed-inside-1280.png') });
  } finally {
    await p.close();
  }
});

test('panel=heads,inside: two panels in one frame, train and then look', async () => {
  const { p, frame } = await openFramed('?embed=1&panel=heads,inside#heads=1,2&steps=6&batch=2&context=16&seeds=1');
  try {
    for (const id of ['#panel-heads', '#panel-inside']) assert.equal(await frame.locator(id).isVisible(), true, id);
    for (const id of ['#panel-reshape', '#panel-break', '#panel-induction', '#panel-params']) assert.equal(await frame.locator(id).isHidden(), true, id);
    assert.match(await frame.locator('#i-empty-text').textContent(), /^Train the models in panel 4/);
    await frame.locator('#c-start').click();
    await frame.locator('html[data-comparison="done"]').waitFor({ timeout: 90_000 });
    await frame.locator('#i-body:not([hidden])').waitFor();
    await frame.locator('#panel-inside').scrollIntoViewIfNeeded();  // the panel asks for maps once it is seen
    await frame.locator('#i-grid canvas').nth(1).waitFor();  // the first run's maps: H = 1, two layers at least
    // the frame keeps the list in its address
    assert.match(await frame.locator('html').evaluate(() => location.search + location.hash), /panel=heads%2Cinside|panel=heads,inside/);
  } finally {
    await p.close();
  }
});

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(foreignRequests, []);
  assert.deepEqual(consoleErrors, []);
});
