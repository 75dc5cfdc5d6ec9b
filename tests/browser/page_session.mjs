// The set-up most browser test files share (not a test itself: scripts/test runs *.test.mjs): the static server on a
// free port and one headless Chromium, started in node:test's before() and closed in after(), and openPage(hash), a
// new tab at base + hash, watched for console errors and requests that leave the machine, resolved once the page
// says it is ready. With course: a course page of another origin as well, which embeds the sandbox in
// <iframe sandbox="allow-scripts"> as an instructor does; openFramed(src) opens it with the frame at base + src.
//   const { openPage, consoleErrors, foreignRequests } = pageSession();
//   const { openFramed } = pageSession({ course: { height: 1400 } });
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, serveOnePage, watchPage } from '../../scripts/chromium.mjs';
import { startServer } from '../../scripts/serve.mjs';

/**
 * @typedef {{base: string, context: import('playwright-core').BrowserContext|null, consoleErrors: string[],
 *            foreignRequests: string[],
 *            openPage: (hash: string, o?: {init?: () => void}) => Promise<import('playwright-core').Page>,
 *            openFramed: (src: string) => Promise<{p: import('playwright-core').Page,
 *                                                  frame: import('playwright-core').FrameLocator}>}} Session
 *   what pageSession() gives a test file
 */

/**
 * A course page that embeds the sandbox: its frame's address is what comes after the '#' of its own address.
 * @param {number} height the frame's height, px (the page fits it to the sandbox's reported height after that)
 * @returns {string} the HTML
 */
export function coursePage(height) {
  return `<!doctype html><html><head><title>course page</title></head><body>
    <h1>A course page</h1>
    <iframe id="lab" title="mha-sandbox" sandbox="allow-scripts" style="width: 100%; height: ${height}px; border: 0"></iframe>
    <script>
      document.getElementById('lab').src = decodeURIComponent(location.hash.slice(1));
      window.addEventListener('message', (e) => {
        if (e.data && e.data.type === 'mha-sandbox:height') document.getElementById('lab').style.height = e.data.height + 'px';
      });
    </script>
    </body></html>`;
}

/**
 * @param {{downloads?: boolean, timeout?: number, viewport?: {width: number, height: number},
 *          course?: {height: number}}} [options] downloads: accept them into a temporary folder (removed in
 *   after()); timeout: playwright's default per action, ms; viewport: default 1280 × 800; course: serve a course page
 *   (coursePage) too, with a frame this high at first
 * @returns {Session} base and context are set once before() has run
 */
export function pageSession({ downloads = false, timeout = 20_000, viewport = { width: 1280, height: 800 }, course = null } = {}) {
  /** @type {Session} */
  const session = { base: '', context: null, consoleErrors: [], foreignRequests: [], openPage: null, openFramed: null };
  let server, host, hostBase = '', browser, downloadDir = '';
  before(async () => {
    ({ server, url: session.base } = await startServer({ port: 0 }));
    if (course) ({ server: host, url: hostBase } = await serveOnePage(coursePage(course.height)));
    if (downloads) downloadDir = mkdtempSync(join(tmpdir(), 'mha-downloads-'));
    browser = await launchChromium({ viewport,
      ...(downloads ? { acceptDownloads: true, downloadsPath: downloadDir } : {}) });
    session.context = browser.context;
    session.context.setDefaultTimeout(timeout);
  });
  after(async () => {
    await browser?.close();
    server?.close();
    host?.close();
    if (downloadDir) rmSync(downloadDir, { recursive: true, force: true });
  });
  // src: what follows the sandbox's address, e.g. '?embed=1&panel=heads#steps=6'; resolved once the frame is ready
  session.openFramed = async (src) => {
    if (!course) throw new Error('openFramed needs pageSession({ course })');
    const p = await session.context.newPage();
    watchPage(p, { errors: session.consoleErrors, foreign: session.foreignRequests });
    await p.goto(`${hostBase}#${encodeURIComponent(session.base + src)}`);
    const frame = p.frameLocator('#lab');
    await frame.locator('html[data-ready="true"]').waitFor();
    return { p, frame };
  };
  // init: a script run in the page before its own (page.addInitScript), e.g. a slower browser's timing
  session.openPage = async (hash, { init = null } = {}) => {
    const p = await session.context.newPage();
    if (init) await p.addInitScript(init);
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
