// Colours of the page: the viridis map for attention weights, and a palette for heads. Both are readable by
// people with the common colour-vision deficiencies; the views also print labels, so nothing is meant by
// colour alone. No DOM in this file.

// ---------------------------------------------------------------- viridis
// 17 stops of matplotlib's viridis (entries 0, 16, 32, …, 240 and 255 of its 256-entry table, CC0),
// interpolated linearly into a 256-entry lookup table.
const VIRIDIS_STOPS = [
  [0.267004, 0.004874, 0.329415], [0.282327, 0.094955, 0.417331], [0.278826, 0.175490, 0.483397],
  [0.258965, 0.251537, 0.524736], [0.229739, 0.322361, 0.545706], [0.199430, 0.387607, 0.554642],
  [0.172719, 0.448791, 0.557885], [0.149039, 0.508051, 0.557250], [0.127568, 0.566949, 0.550556],
  [0.120638, 0.625828, 0.533488], [0.157851, 0.683765, 0.501686], [0.246070, 0.738910, 0.452024],
  [0.369214, 0.788888, 0.382914], [0.515992, 0.831158, 0.294279], [0.678489, 0.863742, 0.189503],
  [0.845561, 0.887322, 0.099702], [0.993248, 0.906157, 0.143936],
];
// the stops' positions in the original table, 0..255
const STOP_INDEX = VIRIDIS_STOPS.map((_, k) => Math.min(16 * k, 255));

/** (256, 3) RGB bytes, row-major: entry i is the colour of the value i/255. */
export const VIRIDIS_LUT = (() => {
  const lut = new Uint8ClampedArray(256 * 3);
  let k = 0;
  for (let i = 0; i < 256; ++i) {
    while (k < STOP_INDEX.length - 2 && i > STOP_INDEX[k + 1]) ++k;
    const f = (i - STOP_INDEX[k]) / (STOP_INDEX[k + 1] - STOP_INDEX[k]);
    for (let c = 0; c < 3; ++c) {
      const v = VIRIDIS_STOPS[k][c] + f * (VIRIDIS_STOPS[k + 1][c] - VIRIDIS_STOPS[k][c]);
      lut[3 * i + c] = Math.round(255 * v);
    }
  }
  return lut;
})();

/**
 * Viridis colour of a value in [0, 1] (clamped; NaN counts as 0).
 * @param {number} v
 * @returns {[number, number, number]} r, g, b bytes
 */
export function viridis(v) {
  const i = 3 * Math.round(255 * Math.min(1, Math.max(0, v || 0)));
  return [VIRIDIS_LUT[i], VIRIDIS_LUT[i + 1], VIRIDIS_LUT[i + 2]];
}

/**
 * CSS linear-gradient stops for a legend bar, left (0) to right (1).
 * @returns {string} e.g. 'rgb(68,1,84) 0%, …, rgb(253,231,37) 100%'
 */
export function viridisGradient() {
  return VIRIDIS_STOPS.map((rgb, k) => {
    const [r, g, b] = rgb.map((x) => Math.round(255 * x));
    return `rgb(${r},${g},${b}) ${((100 * STOP_INDEX[k]) / 255).toFixed(1)}%`;
  }).join(', ');
}

// ---------------------------------------------------------------- heads
// Okabe & Ito's palette (2008), designed to stay distinct under colour-vision deficiencies. Beyond 8 heads the
// colours repeat; the head number printed beside every colour keeps them apart.
const HEAD_COLOURS = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#000000'];

/**
 * Fill colour of head h, and a text colour readable on it (contrast ≥ 4.5 : 1).
 * @param {number} h head index ≥ 0
 * @returns {{fill: string, ink: string}} CSS colours
 */
export function headColour(h) {
  const fill = HEAD_COLOURS[h % HEAD_COLOURS.length];
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(fill.slice(i, i + 2), 16));
  return { fill, ink: inkOn(r, g, b) };
}

/**
 * The text colour that reads best on a fill, black or white: the one with the higher WCAG 2 contrast ratio (on
 * every viridis colour and every head colour that is at least 4.5 : 1, 4.6 at worst; near-black would fall to 4.35
 * on viridis's middle: tests/browser/colormap.test.mjs).
 * @param {number} r
 * @param {number} g
 * @param {number} b bytes
 * @returns {'#000'|'#fff'}
 */
export function inkOn(r, g, b) {
  const L = luminance(r, g, b);
  return (L + 0.05) / 0.05 >= (1 + 0.05) / (L + 0.05) ? '#000' : '#fff';
}

/**
 * The WCAG 2 contrast ratio of two colours, from 1 to 21.
 * @param {[number, number, number]} a
 * @param {[number, number, number]} b bytes
 * @returns {number}
 */
export function contrastRatio(a, b) {
  const [x, y] = [luminance(...a), luminance(...b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

// relative luminance of a colour given as bytes (WCAG 2)
function luminance(r, g, b) {
  const lin = [r, g, b].map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}
