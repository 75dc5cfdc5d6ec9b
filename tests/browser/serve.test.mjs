// scripts/serve.mjs as scripts/start runs it (no browser): a port already taken is a sentence that names PORT=, and
// exit code 1, not a stack.
//   node --test --test-reporter=spec tests/browser/serve.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';

test('a second server on a port in use says so and how to choose another', async () => {
  const { server, port } = await startServer({ port: 0 });
  try {
    const serve = fileURLToPath(new URL('../../scripts/serve.mjs', import.meta.url));
    const r = spawnSync(process.execPath, [serve, '--port', String(port)], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim(), `mha-sandbox: cannot serve: port ${port} on 127.0.0.1 is already in use (is the ` +
      'sandbox already served there?). Choose another port: PORT=8080 scripts/start, or node scripts/serve.mjs --port 8080.');
    assert.doesNotMatch(r.stderr, /EADDRINUSE|at .*\.js:\d+/);
  } finally {
    server.close();
  }
});
