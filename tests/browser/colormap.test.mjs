// The page's colours (web/js/colormap.js) in node: text on every viridis colour and every head colour meets WCAG 2's
// 4.5 : 1 contrast (the matrices of the worked example print their values on viridis cells).
//   node --test --test-reporter=spec tests/browser/colormap.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contrastRatio, headColour, inkOn, VIRIDIS_LUT } from '../../web/js/colormap.js';

const bytes = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

test('contrastRatio: black on white is 21, a colour on itself 1', () => {
  assert.ok(Math.abs(contrastRatio([0, 0, 0], [255, 255, 255]) - 21) < 1e-9);
  assert.equal(contrastRatio([33, 145, 140], [33, 145, 140]), 1);
});

test('the ink chosen for every viridis colour and every head colour reads at 4.5 : 1 at least', () => {
  let worst = 21;
  for (let i = 0; i < 256; ++i) {
    const fill = [VIRIDIS_LUT[3 * i], VIRIDIS_LUT[3 * i + 1], VIRIDIS_LUT[3 * i + 2]];
    worst = Math.min(worst, contrastRatio(fill, bytes(inkOn(...fill).replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3'))));
  }
  assert.ok(worst >= 4.5, `worst viridis contrast ${worst.toFixed(2)}`);
  for (let h = 0; h < 8; ++h) {
    const { fill, ink } = headColour(h);
    const r = contrastRatio(bytes(fill), bytes(ink.replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3')));
    assert.ok(r >= 4.5, `head ${h}: ${fill} with ${ink}: ${r.toFixed(2)}`);
  }
  // the cell axe-core flagged: white on #21918c was 3.82
  assert.equal(inkOn(0x21, 0x91, 0x8c), '#000');
});
