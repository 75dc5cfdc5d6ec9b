// Where downloads work, by the frame the page runs in (web/js/frame_downloads.js), with stand-in windows: the rule
// needs only window.parent, window.frameElement and window.origin. The page itself is checked in a sandboxed frame by
// lab.test.mjs ("embed mode").
//   node --test tests/browser/frame_downloads.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { downloadsOffReason } from '../../web/js/frame_downloads.js';

// a window in a frame: frame is the <iframe> as a same-origin frame sees it (null across origins)
/** @param {{sandbox?: string|null, sameOrigin: boolean, origin?: string}} frame */
function framed({ sandbox, sameOrigin, origin = 'http://127.0.0.1:8000' }) {
  const frameElement = sameOrigin ? { getAttribute: (name) => (name === 'sandbox' ? sandbox : null) } : null;
  return { parent: {}, frameElement, origin };
}
const off = { downloads: '0' }, on = { downloads: '1' };

test('a top-level page downloads', () => {
  const win = { parent: null, frameElement: null, origin: 'http://127.0.0.1:8000' };
  win.parent = win;
  assert.equal(downloadsOffReason(off, win), null);
});

test('a same-origin frame reads its own sandbox attribute', () => {
  assert.equal(downloadsOffReason(off, framed({ sandbox: null, sameOrigin: true })), null);
  assert.equal(downloadsOffReason(off, framed({ sandbox: 'allow-scripts allow-same-origin allow-downloads', sameOrigin: true })), null);
  assert.match(downloadsOffReason(on, framed({ sandbox: 'allow-scripts allow-same-origin', sameOrigin: true })),
    /without allow-downloads/);
});

test('an opaque-origin frame cannot read its flags: off unless the address says downloads=1', () => {
  const sandboxed = framed({ sameOrigin: false, origin: 'null' });
  assert.match(downloadsOffReason(off, sandboxed), /add downloads=1 to its address/);
  assert.equal(downloadsOffReason(on, sandboxed), null);
});

test('a cross-origin frame with a real origin is not sandboxed as far as it can tell', () => {
  assert.equal(downloadsOffReason(off, framed({ sameOrigin: false })), null);
});
