// The attention-by-offset profile of every head side by side: one small bar chart per head, bar k the mean weight
// a position puts on the key k steps back (k = 0: itself), all heads on the same y scale, so a head that looks one
// step back and one that looks five back are told apart at a glance. Plain DOM bars (no canvas): they follow the
// width of the page, and their text alternative is a sentence per head.
import { el } from './dom.js';

const SETTINGS = {
  minScale: 0.1,   // the y scale reaches at least this, so near-zero profiles do not look tall
};

/**
 * @typedef {{L: number, H: number, K: number, profile: Float64Array}} Profiles  profile (L*H, K), layer-major
 */

export class OffsetProfilesView {
  /** @param {HTMLElement} root an empty container; the view owns its content */
  constructor(root) {
    this.root = root;
  }

  /**
   * @param {Profiles & {step: number}} data
   */
  update({ L, H, K, profile, step }) {
    let top = SETTINGS.minScale;
    for (const v of profile) top = Math.max(top, v);
    top = Math.ceil(top * 10 - 1e-9) / 10;  // a round top, the same for every head
    const heads = [];
    for (let l = 0; l < L; ++l)
      for (let h = 0; h < H; ++h) {
        const values = profile.subarray((l * H + h) * K, (l * H + h + 1) * K);
        heads.push(this.head(`L${l} H${h}`, values, top));
      }
    this.root.replaceChildren(
      el('p', { class: 'profiles-caption muted' }, `Mean attention on the key k positions back (k = 0 … ${K - 1}) at step ${step}; ` +
        `every head on the same scale, 0 to ${top.toFixed(1)}.`),
      el('div', { class: 'profiles-grid' }, ...heads));
  }

  head(label, values, top) {
    let peak = 0;
    for (let k = 1; k < values.length; ++k) if (values[k] > values[peak]) peak = k;
    const bars = el('div', { class: 'profile-bars', 'aria-hidden': 'true' });
    values.forEach((v, k) => {
      const bar = el('span', { class: k === peak ? 'profile-bar peak' : 'profile-bar', title: `offset ${k}: ${v.toFixed(3)}` });
      bar.style.height = `${Math.max(0, Math.min(1, v / top)) * 100}%`;
      bars.append(bar);
    });
    const text = `${label}: most weight ${values[peak].toFixed(2)} at offset ${peak}`;
    return el('figure', { class: 'profile', role: 'img', 'aria-label': `${text}; offsets 0 to ${values.length - 1}: ` +
        `${Array.from(values, (v) => v.toFixed(2)).join(', ')}.` },
      el('figcaption', {}, el('strong', {}, label), ` peak ${peak}`),
      bars,
      el('div', { class: 'profile-axis', 'aria-hidden': 'true' }, el('span', {}, '0'), el('span', {}, String(values.length - 1))));
  }
}
