// The charts' series styles (no browser): every head of a model has a look of its own in the head-trace charts.
//   node --test tests/browser/series_style.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headSeriesStyle, seriesStyle } from '../../web/js/views/series_style.js';

const look = (s) => `${s.stroke} ${s.dash.join(',')}`;

test('heads: a colour per head of a layer, a dash per layer, every series distinct', () => {
  for (const [L, H] of [[2, 4], [2, 8], [1, 1], [3, 16], [3, 12], [7, 8]]) {  // L · ⌈H / 8⌉ ≤ 7
    const looks = [];
    for (let l = 0; l < L; ++l) for (let h = 0; h < H; ++h) looks.push(look(headSeriesStyle(l, h, H)));
    assert.equal(new Set(looks).size, L * H, `L = ${L}, H = ${H}: ${looks}`);
  }
  // up to 8 heads, the heads of one layer differ in colour (the L0 H0 and L1 H3 are no longer both blue)
  const colours = Array.from({ length: 8 }, (_, h) => headSeriesStyle(0, h, 8).stroke);
  assert.equal(new Set(colours).size, 8);
  assert.notEqual(headSeriesStyle(0, 0, 4).stroke, headSeriesStyle(1, 3, 4).stroke);
  assert.notEqual(look(headSeriesStyle(0, 0, 4)), look(headSeriesStyle(1, 0, 4)));  // the same head, another layer
});

test('settings: colour and dash cycle together', () => {
  assert.deepEqual(seriesStyle(0), { stroke: '#0072B2', dash: [] });
  assert.notEqual(look(seriesStyle(1)), look(seriesStyle(0)));
});
