// Reshape panel, one split: the D channels of one position coloured by the head that receives them, and
// below, the H heads with the channels each one gets (in lane order). One instance per head order.
import { headColour } from '../colormap.js';
import { el } from './dom.js';

const TEXT = {
  canonical: {
    title: 'view(B,T,H,d_h)',
    tag: 'canonical',
    rule: 'head h gets channels h·d_h … h·d_h+d_h−1, one contiguous block.',
  },
  swapped: {
    title: 'view(B,T,d_h,H)',
    tag: 'swapped',
    rule: 'head h gets channels h, h+H, h+2H, …, interleaved.',
  },
};

export class ReshapeView {
  /**
   * @param {HTMLElement} root an empty container; the view owns its content
   * @param {{order: 'canonical'|'swapped'}} settings
   */
  constructor(root, settings) {
    this.root = root;
    this.settings = settings;
    const t = TEXT[settings.order];
    this.badge = el('span', { class: 'badge', hidden: true }, 'used in panel 2');
    this.vector = el('ol', { class: 'vector', 'aria-label': 'embedding vector' });
    this.heads = el('ol', { class: 'heads', 'aria-label': 'heads' });
    this.rule = el('p', { class: 'rule' });
    this.empty = el('p', { class: 'placeholder', hidden: true },
      'The split appears once D and H fit together: see the message under Sizes.');
    root.append(
      el('h3', { class: 'reshape-title' }, el('code', {}, t.title), ' ', el('span', { class: 'muted' }, t.tag), ' ', this.badge),
      el('p', { class: 'row-label' }, 'embedding vector of one position'),
      this.vector,
      el('p', { class: 'row-label arrow' }, el('span', { 'aria-hidden': 'true' }, '↓ '), 'split into heads'),
      this.heads,
      this.rule,
      this.empty,
    );
  }

  /**
   * @param {{layout: {dModel: number, nHeads: number, headSize: number, head: Int32Array, lane: Int32Array},
   *          active: boolean, badge?: string} | null} data layout from engine.headLayout (ok); null clears the view;
   *   badge: what the active order's badge says (default: 'used in panel 2')
   */
  update(data) {
    this.vector.replaceChildren();
    this.heads.replaceChildren();
    this.root.classList.toggle('is-empty', !data);
    this.empty.hidden = !!data;
    this.rule.hidden = !data;
    if (!data) {
      this.badge.hidden = true;
      return;
    }
    const { dModel: D, nHeads: H, headSize: hs, head, lane } = data.layout;
    this.badge.hidden = !data.active;
    this.badge.textContent = data.badge ?? 'used in panel 2';
    this.root.classList.toggle('is-active', data.active);

    // the vector: channel c, coloured by its head, labelled with both
    for (let c = 0; c < D; ++c) this.vector.append(channelCell(c, head[c]));

    // the heads: members[h][i] is the channel in lane i of head h
    const members = Array.from({ length: H }, () => new Array(hs));
    for (let c = 0; c < D; ++c) members[head[c]][lane[c]] = c;
    for (let h = 0; h < H; ++h) {
      const { fill } = headColour(h);
      const chips = el('ol', { class: 'chips' });
      for (const c of members[h]) chips.append(channelCell(c, h, true));
      this.heads.append(
        el('li', { class: 'head-group', 'data-head': h, style: `--head: ${fill}` },
          el('span', { class: 'head-name' }, `head ${h}`), chips),
      );
    }
    const t = TEXT[this.settings.order];
    this.rule.replaceChildren(
      el('code', {}, t.title), `: ${t.rule} `,
      el('span', { class: 'muted' }, `Here head 1 gets ${H > 1 ? listChannels(members[1]) : '—'}.`),
    );
    if (H === 1) this.rule.lastChild.textContent = `With H = 1 the one head gets every channel.`;
  }
}

// one channel: "a3", with its head as a small label (and spelled out for screen readers)
function channelCell(c, h, inHead = false) {
  const { fill, ink } = headColour(h);
  return el('li', { class: inHead ? 'chip' : 'cell', 'data-channel': c, 'data-head': h, style: `background: ${fill}; color: ${ink}` },
    el('span', { class: 'ch' }, `a${c}`),
    inHead ? '' : el('span', { class: 'hd' }, el('span', { class: 'sr-only' }, 'to head '), el('span', { 'aria-hidden': 'true' }, 'h'), `${h}`));
}

function listChannels(cs) {
  const names = cs.map((c) => `a${c}`);
  return names.length <= 4 ? names.join(', ') : `${names.slice(0, 3).join(', ')}, …, ${names[names.length - 1]}`;
}
