// The set-up most browser test files share (not a test itself: scripts/test runs *.test.mjs): the static server on a
// free port and one headless Chromium, started in node:test's before() and closed in after(), and openPage(hash), a
// new tab at base + hash, watched for console errors and requests that leave the machine, resolved once the page
// says it is ready.
//   const { openPage, consoleErrors, foreignRequests } = pageSession();
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, watchPage } from '../../scripts/chromium.mjs';
import { startServer } from '../../scripts/serve.mjs';

/**
 * @param {{downloads?: boolean, timeout?: number}} [options] downloads: accept them into a temporary folder (removed
 *   in after()); timeout: playwright's default per action, ms
 * @returns {{base: string, context: import('playwright-core').BrowserContext|null, consoleErrors: string[],
 *            foreignRequests: string[], openPage: (hash: string) => Promise<import('playwright-core').Page>}}
 *   base and context are set once before() has run
 */
export function pageSession({ downloads = false, timeout = 20_000 } = {}) {
  const session = { base: '', context: null, consoleErrors: [], foreignRequests: [] };
  let server, browser, downloadDir = '';
  before(async () => {
    ({ server, url: session.base } = await startServer({ port: 0 }));
    if (downloads) downloadDir = mkdtempSync(join(tmpdir(), 'mha-downloads-'));
    browser = await launchChromium({ viewport: { width: 1280, height: 800 },
      ...(downloads ? { acceptDownloads: true, downloadsPath: downloadDir } : {}) });
    session.context = browser.context;
    session.context.setDefaultTimeout(timeout);
  });
  after(async () => {
    await browser?.close();
    server?.close();
    if (downloadDir) rmSync(downloadDir, { recursive: true, force: true });
  });
  session.openPage = async (hash) => {
    const p = await session.context.newPage();
    watchPage(p, { errors: session.consoleErrors, foreign: session.foreignRequests });
    // a new page starts as in a fresh browser: without the runs earlier pages kept in IndexedDB (web/js/run_store.js;
    // a reload of the same page keeps them)
    const cdp = await session.context.newCDPSession(p);
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(session.base).origin, storageTypes: 'indexeddb' });
    await cdp.detach();
    await p.goto(session.base + hash);
    await p.waitForSelector('html[data-ready="true"]');
    return p;
  };
  return session;
}
