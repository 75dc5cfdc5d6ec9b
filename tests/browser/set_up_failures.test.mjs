// A run whose worker fails while it sets the run up (web/js/runs.js #spawn, web/js/worker.js init), in headless
// Chromium against the built site (scripts/build page):
//   node --test --test-reporter=spec tests/browser/set_up_failures.test.mjs
// Once a worker has said it began the set-up (FROM_WORKER.settingUp), the page no longer times the start. So the
// set-up must end either way: an exception inside it (a bug of ours, a trap of the core) answers the set-up with the
// reason, and the run fails at once with it instead of waiting for ever; a worker that dies inside it has started,
// so it is a crash, not a browser without module workers, and is not tried again as a classic worker.
// The failures are made by a test hook, mhaDebug.breakSetUps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSession } from './page_session.mjs';

const ONE_RUN = '#panel=heads&heads=4&steps=24&batch=4&context=32&seeds=1';
const { openPage, consoleErrors } = pageSession({ timeout: 60_000 });

// the heads panel's one run with every set-up broken as kind says; returns the run and the panel's status line when
// the comparison has ended, or the run as it was after 15 s (well short of the start's 30 s timeout) if it has not
async function brokenRun(kind) {
  const p = await openPage(ONE_RUN);
  try {
    await p.evaluate((k) => globalThis.mhaDebug.breakSetUps(k), kind);
    await p.click('#c-start');
    const ended = await p.waitForSelector('html[data-comparison="done"]', { timeout: 15_000 }).then(() => true, () => false);
    const run = await p.evaluate(() => {
      const r = globalThis.mhaDebug.runs()[0];
      return { status: r.status, error: r.error, classic: r.classic };
    });
    return { ended, run, status: await p.textContent('#c-status') };
  } finally {
    await p.close();
  }
}

test('a set-up that throws ends its run at once, with the reason', async () => {
  const { ended, run, status } = await brokenRun('throw');
  assert.ok(ended, `the comparison did not end: ${JSON.stringify(run)}`);
  assert.equal(run.status, 'failed');
  assert.match(run.error, /the set-up threw/);
  assert.match(status, /fail/i);
});

test('a worker that dies in the set-up it began is a crash, not a start to try again as a classic worker', async () => {
  const { ended, run, status } = await brokenRun('die');
  assert.ok(ended, `the comparison did not end: ${JSON.stringify(run)}`);
  assert.equal(run.status, 'failed');
  assert.match(run.error, /stopped/);
  assert.equal(run.classic, false);
  assert.match(status, /fail/i);
});

test('no console errors besides the deliberate ones', () => {
  assert.deepEqual(consoleErrors.filter((m) => !m.includes('mha-test-crash')), []);
});
