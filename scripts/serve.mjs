#!/usr/bin/env node
// A static file server for public/, on the loopback address only. Used by scripts/start and the browser tests.
//   node scripts/serve.mjs [--port 8000] [--root public] [--csp] [--no-isolation]      (--port 0 picks a free port)
// --csp sends STRICT_CSP with every response: the policy many course hosts send, under which the page must work.
// The page opened here is cross-origin isolated (ISOLATION), so its training workers can share memory: a run whose
// core-mate stands idle is lent a helper that takes half of each step (web/js/helper.js). A document asked for as
// an iframe is not isolated, as a course host's embedding would not be: there runs train alone, as they do from
// file://. --no-isolation sends none of it.
// Exported startServer() lets the tests run it in-process.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon',
  '.safetensors': 'application/octet-stream',
};

/** The Content-Security-Policy the site works under (README, "Embedding in a course page"). */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'";

/** The headers that make a page cross-origin isolated (SharedArrayBuffer, Atomics.wait in its workers): it loads
 *  nothing from another origin, so require-corp costs it nothing. */
export const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/**
 * Serves root on 127.0.0.1:port. Resolves to { server, port, url }.
 * @param {{root?: string, port?: number, csp?: boolean|string, isolate?: boolean}} options
 *   csp: true sends STRICT_CSP as a Content-Security-Policy header with every response, a string sends that policy;
 *   isolate (default true): ISOLATION with every response but a document asked for as an iframe
 */
export function startServer({ root = fileURLToPath(new URL('../public', import.meta.url)), port = 8000, csp = false,
  isolate = true } = {}) {
  const base = resolve(root);
  const policy = csp === true ? STRICT_CSP : csp || '';
  const server = createServer(async (req, res) => {
    const framed = req.headers['sec-fetch-dest'] === 'iframe';
    const security = { ...(policy ? { 'Content-Security-Policy': policy } : {}), ...(isolate && !framed ? ISOLATION : {}) };
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
      let file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) throw Object.assign(new Error('outside root'), { code: 'EACCES' });
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache', ...security });
      res.end(body);
    } catch (err) {
      const code = err.code === 'EACCES' ? 403 : 404;
      res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', ...security });
      res.end(code === 403 ? 'forbidden' : 'not found');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      const actual = /** @type {import('node:net').AddressInfo} */ (server.address()).port;  // TCP: not a pipe's name
      ok({ server, port: actual, url: `http://127.0.0.1:${actual}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const csp = process.argv.includes('--csp');
  const isolate = !process.argv.includes('--no-isolation');
  const port = Number(arg('--port', 8000));
  try {
    const { url } = await startServer({ root: arg('--root', undefined), port, csp, isolate });
    console.log(`mha-sandbox: ${url}${csp ? ' (with the strict Content-Security-Policy)' : ''}`);
  } catch (err) {
    // a second scripts/start, say: a sentence, not a stack
    const why = err.code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is already in use (is the sandbox already served there?)`
      : err.code === 'EACCES' ? `port ${port} needs more rights than this user has` : err.message;
    console.error(`mha-sandbox: cannot serve: ${why}. Choose another port: PORT=8080 scripts/start, or node scripts/serve.mjs --port 8080.`);
    process.exit(1);
  }
}
