// The parameter ledger (web/js/panels/params.js) on a phone and on a laptop: at 390 px its dozens of rows, each a
// card of its own there, start folded under the caption that gives the totals, and open on a tap; at 1280 px they
// are open. Screenshots of both go to tests/browser/output/.
//   node --test --test-reporter=spec tests/browser/ledger.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { predict } from '../../scripts/lesson_walk.mjs';
import { pageSession } from './page_session.mjs';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const phone = pageSession({ viewport: { width: 390, height: 844 } });

test('at 390 px the ledger\'s rows start folded under its caption, and a tap opens them; the KV part follows closely', async () => {
  const p = await phone.openPage('#panel=params&heads=1,4,8');
  try {
    const details = p.locator('#p-ledger details.ledger-all');
    assert.match(await p.locator('#p-ledger > .table-caption').textContent(), /The totals are the same for H = 1, 4, 8: [\d,]+ parameters/);
    assert.equal(await details.evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open), false);
    const rows = await p.locator('#p-ledger table.ledger tbody tr').count();
    assert.ok(rows > 30, `${rows} rows`);
    assert.match(await details.locator('summary').textContent(), new RegExp(`^Every tensor, one row each \\(${rows - 2} tensors\\)$`));
    // folded: from the ledger's caption to the KV heading is a screen, not thousands of pixels
    const gap = await p.evaluate(() => document.querySelector('#panel-params h3').getBoundingClientRect().top
      - document.getElementById('p-ledger').getBoundingClientRect().top);
    assert.ok(gap < 600, `${gap} px from the ledger to the KV part`);
    mkdirSync(OUTPUT, { recursive: true });
    await p.locator('#panel-params').screenshot({ path: join(OUTPUT, 'ledger-390-folded.png') });
    await details.locator('summary').click();
    assert.equal(await details.evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open), true);
    assert.ok(await p.locator('#p-ledger table.ledger').isVisible());
    // the choice holds when the ledger is drawn again (another head count)
    await p.evaluate(() => { location.hash = '#panel=params&heads=1,2'; });
    await p.locator('#p-ledger > .table-caption', { hasText: 'H = 1, 2' }).waitFor();
    assert.equal(await p.locator('#p-ledger details.ledger-all').evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open), true);
    // at a laptop's width the rows are open from the start
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.reload();
    await p.waitForSelector('html[data-ready="true"]');
    assert.equal(await p.locator('#p-ledger details.ledger-all').evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open), true);
  } finally {
    await p.close();
  }
});

test('before any run, the ledger and the lesson count the shipped text\'s vocabulary: the model a run then trains', async () => {
  // no run yet: the page knows V only from its own constant (panels/heads.js); the lesson's params step and the
  // ledger must both give the count of the model the heads panel trains, which the core builds from the text
  const p = await phone.openPage('#lesson=params&heads=1,8');
  let counted;
  try {
    await predict(p, 'params', 'same');  // the step shows its panel once a prediction is committed
    const ledger = (await p.locator('#p-ledger > .table-caption').textContent()).match(/: ([\d,]+) parameters/);
    const said = (await p.textContent('.lesson-evidence')).match(/([\d,]+) parameters at H = 1, ([\d,]+) at H = 8/);
    counted = [ledger?.[1], said?.[1], said?.[2]].map((n) => Number(n?.replace(/,/g, '')));
  } finally {
    await p.close();
  }
  const q = await phone.openPage('#panel=heads&heads=1,8&steps=2&seeds=1&batch=2');
  try {
    await q.click('#c-start');
    await q.waitForSelector('html[data-comparison="done"]', { timeout: 120_000 });
    const built = await q.evaluate(() => globalThis.mhaDebug.runs().map((r) => r.facts.params));
    assert.equal(built.length, 2);
    assert.deepEqual(counted, [built[0], built[0], built[1]]);
  } finally {
    await q.close();
  }
});

test('no console errors, no request leaves the machine', () => {
  assert.deepEqual(phone.consoleErrors, []);
  assert.deepEqual(phone.foreignRequests, []);
});
