// Debian's Chromium, headless, the way every browser script of the project starts it (the browser tests,
// scripts/screenshot.mjs, scripts/bench_chromium.mjs): as root, with a fresh profile, and without the background
// networking that this machine's closed network would refuse. Never downloads a browser of its own.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Launches Chromium with a new empty profile. options go to playwright's launchPersistentContext (viewport,
 * acceptDownloads, ...). close() closes the browser and removes the profile.
 * @returns {Promise<{context: import('playwright-core').BrowserContext, close: () => Promise<void>}>}
 */
export async function launchChromium(options = {}) {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} not found: run scripts/test once (it installs Debian's chromium)`);
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'mha-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, ...options,
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** True for a URL that leaves the machine: not 127.0.0.1, and not data: or blob: (those stay in the page). */
export function isForeign(url) {
  const u = new URL(url);
  return u.protocol !== 'data:' && u.protocol !== 'blob:' && u.hostname !== '127.0.0.1';
}

/**
 * Records a page's console errors and uncaught errors into record.errors, and every request that would leave
 * 127.0.0.1 into record.foreign; with record.violations, the violations that reportViolations prints go there.
 * @param {import('playwright-core').Page} page
 * @param {{errors: string[], foreign: string[], violations?: string[]}} record
 */
export function watchPage(page, record) {
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (record.violations && m.text().startsWith(VIOLATION_PREFIX)) record.violations.push(m.text());
    else record.errors.push(m.text());
  });
  page.on('pageerror', (e) => record.errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => { if (isForeign(r.url())) record.foreign.push(r.url()); });
}

/**
 * Resolves after a page's next two animation frames: after what an input or a resize scheduled for a frame (a
 * render, a ResizeObserver's redraw) has run.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<void>}
 */
export function afterNextFrame(page) {
  return page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok()))));
}

/**
 * The page's URL hash once the settings changed before this call are in it: the page writes them at most once per
 * animation frame (web/js/main.js save), so a hash read at once may still be the one before the change.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<string>}
 */
export async function settledHash(page) {
  await afterNextFrame(page);
  return page.evaluate(() => location.hash);
}

// the elements that say where the page's runs stand: each training panel's status, error and run list, "Look
// inside"'s pruning status and error and its trace's caption, and the lesson's judgement (what it waits for)
const RUN_STATE = ['c', 'b', 'n'].flatMap((k) => [`#${k}-status`, `#${k}-error`, `#${k}-runs`])
  .concat(['#i-prune-status', '#i-prune-error', '#i-trace-probe', '.lesson-judgement']);

/**
 * Waits for selector; on a timeout, throws with where the page's runs stood added to the message: the html data-
 * marks and the text (its first 300 characters) of every element in RUN_STATE, as last drawn, and every run of
 * the training panels as it is (mhaDebug: key, status, steps done, restarts, whether it has a worker), with the
 * page's visibility (a hidden page draws nothing). For the waits on runs to end, which timed out in two CI runs
 * of 2026-11-29 (an a11y and a lesson test).
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 * @param {number} [timeout] ms (the page's default when not given)
 */
export async function waitSayingRuns(page, selector, timeout) {
  try {
    await page.waitForSelector(selector, timeout ? { timeout } : undefined);
  } catch (err) {
    const said = await page.evaluate((selectors) => {
      const debug = /** @type {any} */ (globalThis).mhaDebug;
      const runs = (list) => list.map((r) => `${r.key} ${r.status} ${r.stepsDone}/${r.settings.steps} restarts ${r.restarts}` +
        `${r.awake ? '' : ' asleep'}`).join('; ') || '-';
      return [`html: ${JSON.stringify({ ...document.documentElement.dataset })}`, `visibility: ${document.visibilityState}`,
        ...selectors.map((s) => `${s}: ${(document.querySelector(s)?.textContent?.trim() || '-').slice(0, 300)}`),
        ...(debug ? [`runs: ${runs(debug.runs())}`, `break runs: ${runs(debug.breakRuns())}`,
          `induction runs: ${runs(debug.inductionRuns())}`] : [])].join('\n');
    }, RUN_STATE).catch((e) => `(the page could not be read: ${e})`);
    throw new Error(`${err instanceof Error ? err.message : err}\n${said}`);
  }
}

/**
 * How many pixels of a canvas are not fully transparent: a chart or heatmap that drew nothing counts about 0.
 * @param {import('playwright-core').Locator} canvas
 * @returns {Promise<number>}
 */
export function paintedPixels(canvas) {
  return canvas.evaluate((/** @type {HTMLCanvasElement} */ c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1;
    return n;
  });
}

/**
 * Serves one HTML page on a free loopback port: another origin on this machine, e.g. the course page that embeds
 * a panel in the embedding tests.
 * @returns {Promise<{server: import('node:http').Server, url: string}>}
 */
export async function serveOnePage(html) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());  // TCP: not a pipe's name
  return { server, url: `http://127.0.0.1:${port}/` };
}

/** What reportViolations prints: a console error that starts with this. */
export const VIOLATION_PREFIX = 'securitypolicyviolation:';

/**
 * Makes every Content-Security-Policy violation in the documents of context (pages and frames, sandboxed ones
 * too; a securitypolicyviolation event, caught from the document's creation on) a console error starting with
 * VIOLATION_PREFIX, which watchPage files under record.violations when the record has that list. Workers are not
 * covered: a policy's report-uri sees those.
 * @param {import('playwright-core').BrowserContext} context
 */
export function reportViolations(context) {
  return context.addInitScript((prefix) => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`${prefix} ${e.effectiveDirective} refused ${e.blockedURI || '(nothing named)'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  }, VIOLATION_PREFIX);
}
