// The page's colours (web/js/colormap.js) in node: text on every viridis colour and every head colour meets WCAG 2's
// 4.5 : 1 contrast (the matrices of the worked example print their values on viridis cells).
//   node --test --test-reporter=spec tests/browser/colormap.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contrastRatio, headColour, inkOn, VIRIDIS_LUT } from '../../web/js/colormap.js';

/** @param {string} hex '#rrggbb' or '#rgb' @returns {[number, number, number]} */
const bytes = (hex) => {
  const h = hex.length === 4 ? hex.replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3') : hex;
  return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
};

test('contrastRatio: black on white is 21, a colour on itself 1', () => {
  assert.ok(Math.abs(contrastRatio([0, 0, 0], [255, 255, 255]) - 21) < 1e-9);
  assert.equal(contrastRatio([33, 145, 140], [33, 145, 140]), 1);
});

test('the ink chosen for every viridis colour and every head colour reads at 4.5 : 1 at least', () => {
  let worst = 21;
  for (let i = 0; i < 256; ++i) {
    /** @type {[number, number, number]} */
    const fill = [VIRIDIS_LUT[3 * i], VIRIDIS_LUT[3 * i + 1], VIRIDIS_LUT[3 * i + 2]];
    worst = Math.min(worst, contrastRatio(fill, bytes(inkOn(...fill))));
  }
  assert.ok(worst >= 4.5, `worst viridis contrast ${worst.toFixed(2)}`);
  for (let h = 0; h < 8; ++h) {
    const { fill, ink } = headColour(h);
    const r = contrastRatio(bytes(fill), bytes(ink));
    assert.ok(r >= 4.5, `head ${h}: ${fill} with ${ink}: ${r.toFixed(2)}`);
  }
  // the cell axe-core flagged: white on #21918c was 3.82
  assert.equal(inkOn(0x21, 0x91, 0x8c), '#000');
});
