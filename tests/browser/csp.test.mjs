// The page under the strict Content-Security-Policy many course hosts send (scripts/serve.mjs STRICT_CSP), in
// headless Chromium against the real built module and real workers (scripts/build wasm first):
//   node --test --test-reporter=spec tests/browser/csp.test.mjs
// The main flows — load, one training run in each of the heads, break and induction panels, look inside, export,
// upload — at the top level and inside a sandboxed <iframe> of a course page from another origin, with no console
// error and no violation: none in the documents (securitypolicyviolation events, reportViolations) and none in the
// workers (the policy's report-uri, whose reports this file's server sees). Tiny budgets keep it quick.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, reportViolations, serveOnePage, watchPage } from '../../scripts/chromium.mjs';
import { startServer, STRICT_CSP } from '../../scripts/serve.mjs';

// the policy of the issue, written out here so that a change to STRICT_CSP has to change this test too
const POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'";
const REPORTS = '/csp-report';
// every panel shown (an embedded page has no panel switch), a run of each kind kept tiny
const FLOWS = 'panel=all&heads=4&seeds=1&steps=6&batch=2&context=16&variants=no_transpose_merge&bsteps=4&bbatch=2&nsteps=16';

let server, base, host, hostBase, browser, context, downloadDir;
const record = { errors: [], foreign: [], violations: [] };
const reports = [];  // report-uri bodies: violations anywhere, workers included

before(async () => {
  // the same policy, plus where to report a violation (reporting changes nothing of what is allowed)
  ({ server, url: base } = await startServer({ port: 0, csp: `${STRICT_CSP}; report-uri ${REPORTS}` }));
  server.on('request', (req) => {
    if (!req.url.startsWith(REPORTS)) return;
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => reports.push(body));
  });
  // the course page: another origin, embedding every panel in a sandboxed frame (allow-downloads and downloads=1 for
  // the exports, as the README says)
  ({ server: host, url: hostBase } = await serveOnePage(`<!doctype html><html><head><title>course page</title></head><body>
      <iframe id="lab" title="mha-sandbox" sandbox="allow-scripts allow-downloads" style="width: 100%; height: 900px; border: 0"
        src="${base}?embed=1&downloads=1#${FLOWS}"></iframe></body></html>`));
  downloadDir = mkdtempSync(join(tmpdir(), 'mha-csp-downloads-'));
  browser = await launchChromium({ viewport: { width: 1280, height: 800 }, acceptDownloads: true, downloadsPath: downloadDir });
  ({ context } = browser);
  context.setDefaultTimeout(20_000);
  await reportViolations(context);
});

after(async () => {
  await browser?.close();
  server?.close();
  host?.close();
  if (downloadDir) rmSync(downloadDir, { recursive: true, force: true });
});

async function newPage() {
  const p = await context.newPage();
  watchPage(p, record);
  return p;
}

function assertClean(where) {
  assert.deepEqual(record.violations, [], `${where}: violations`);
  assert.deepEqual(reports, [], `${where}: reports`);
  assert.deepEqual(record.errors, [], `${where}: console errors`);
}

// every flow, in the frame f of page p (its main frame, or the sandboxed one); returns after the last one
async function mainFlows(p, f) {
  await f.waitForSelector('html[data-ready="true"]');
  assert.equal(await f.locator('#load-status').isHidden(), true);
  assert.match(await f.locator('#simd-arch').textContent(), /wasm/);
  assert.equal(await f.locator('#attention-heads canvas').count(), 4);

  // heads: one run of H = 4
  await f.click('#c-start');
  await f.waitForSelector('html[data-comparison="done"]', { timeout: 90_000 });
  // 6 steps do not beat the unigram guess: the card's state word says so (run_state.js)
  assert.match(await f.locator('#c-runs .run-card').textContent(), /done, no better than the baseline · step 6 \/ 6/);

  // look inside it (the panel asks its worker once it is in view)
  await f.locator('#panel-inside').scrollIntoViewIfNeeded();
  await f.locator('#i-grid .thumb-button[data-layer="1"][data-head="2"]').click();
  assert.equal(await f.locator('#i-detail .heatmap-title').textContent(), 'layer 1, head 2');
  await f.waitForFunction(() => /Validation loss of this model: \d\.\d{3}/.test(document.getElementById('i-loss').textContent));

  // export: the curves as CSV, and the model
  const [csv] = await Promise.all([p.waitForEvent('download'), f.click('#c-csv')]);
  const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
  assert.equal(lines[0], 'run,heads,seed,step,train_loss,val_loss');
  assert.equal(lines.length, 1 + 7);  // steps 0..6
  const [model] = await Promise.all([p.waitForEvent('download'), f.click('#i-model')]);
  assert.match(model.suggestedFilename(), /^mha-sandbox-H4-step6\.safetensors$/);

  // upload it back: a run to inspect or continue
  await f.setInputFiles('#c-upload', await model.path());
  await f.waitForFunction(() => [...document.querySelectorAll('#c-runs .run-card h3')].some((h) => /file \(H = 4\)/.test(h.textContent)));

  // break it: canonical and one variant
  await f.click('#b-start');
  await f.waitForSelector('html[data-breakit="done"]', { timeout: 90_000 });
  assert.match(await f.locator('#b-runs [data-run="canonical"] [data-causality="trained"]').textContent(), /^causal/);
  assert.match(await f.locator('#b-runs [data-run="no_transpose_merge"] [data-causality="trained"]').textContent(), /^LEAKS/);

  // induction heads: the 2-layer model and the control
  await f.click('#n-start');
  await f.waitForSelector('html[data-induction="done"]', { timeout: 90_000 });
  assert.match(await f.locator('#n-summary').textContent(), /Loss on the repeat: \d\.\d\d → \d\.\d\d nats/);
}

test('scripts/serve.mjs --csp sends exactly the policy', async () => {
  const { server: s, url } = await startServer({ port: 0, csp: true });
  try {
    for (const path of ['', 'build/js/loader.js', 'build/mha.wasm', 'no-such-file']) {
      const r = await fetch(url + path);
      assert.equal(r.headers.get('content-security-policy'), POLICY, path);
    }
  } finally {
    s.close();
  }
});

test('top level: load, train in the heads, break and induction panels, look inside, export, upload', async () => {
  const p = await newPage();
  try {
    await p.goto(`${base}#${FLOWS}`);
    assert.equal(await p.evaluate(() => document.querySelectorAll('script:not([src])').length), 0);
    await mainFlows(p, p.mainFrame());
    assert.equal(await p.evaluate(() => self.origin), new URL(base).origin);
    // nor in the markup the page built along the way: no inline event handler
    const handlers = await p.evaluate(() => [...document.querySelectorAll('*')].flatMap((e) =>
      [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${e.tagName}.${a.name}`)));
    assert.deepEqual(handlers, []);
    assertClean('top level');
  } finally {
    await p.close();
  }
});

test('in <iframe sandbox> on a course page of another origin: the same flows', async () => {
  const p = await newPage();
  try {
    await p.goto(hostBase);
    const f = await (await p.locator('#lab').elementHandle()).contentFrame();
    await mainFlows(p, f);
    assert.equal(await f.evaluate(() => self.origin), 'null');  // really sandboxed: the classic-script build ran
    assertClean('sandboxed frame');
  } finally {
    await p.close();
  }
});

test('no request left 127.0.0.1, no violation, no console error', () => {
  assert.deepEqual(record.foreign, []);
  assertClean('the whole file');
});
