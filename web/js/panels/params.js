// The params panel, "Parameters and the KV cache": the per-tensor ledger of the compared models (one column per head
// count: equal totals), and MHA/GQA/MQA parameter and KV-cache arithmetic for real models (kv_presets.js) or any shape.
import { kvArithmetic, parameterLedger } from '../engine.js';
import { count, el, inputById as input, plural, table } from '../views/dom.js';
import { textModel } from '../text_model.js';
import { KV_PRESETS, matchingPreset } from './kv_presets.js';

const $ = (id) => document.getElementById(id);
const SETTINGS = {
  phoneWidth: 480,  // px: at most this wide, the ledger's rows start folded (style.css stacks tables there)
};
const KV_FIELDS = [['kvL', 'k-L'], ['kvD', 'k-D'], ['kvH', 'k-H'], ['kvKv', 'k-Kv'], ['kvHs', 'k-Hs'], ['kvCtx', 'k-Ctx'],
  ['kvB', 'k-B'], ['kvBytes', 'k-Bytes']];
// the shape's fields in the sentence that refuses one
const KV_NAMES = { layers: 'The number of layers', dModel: 'D', nHeads: 'The number of query heads H',
  nKvHeads: 'The number of KV heads', headDim: 'The head size d_h', context: 'The context', batch: 'The batch',
  bytesPerValue: 'The bytes per value' };

/**
 * A size in bytes in the largest binary unit that keeps it at least 1: "256 bytes", "512 KiB", "288 MiB", "10 GiB".
 * @param {number} bytes
 * @returns {string}
 */
export function binaryBytes(bytes) {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let i = -1;
  while (i + 1 < units.length && bytes >= 2 ** (10 * (i + 2))) ++i;
  if (i < 0) return plural(bytes, 'byte');
  return `${(bytes / 2 ** (10 * (i + 1))).toLocaleString('en-US', { maximumFractionDigits: 3 })} ${units[i]}`;
}

/**
 * @param {import('../main.js').App} app shared page state: { state, save(), readable(msg), vocabSize() }
 */
export function setupParams(app) {
  const ledgerRoot = $('p-ledger'), kvRoot = $('p-kv'), kvError = $('k-error'), kvSource = $('k-source'), kvBias = input('k-bias');
  const presetButtons = KV_PRESETS.map((p) => el('button', { type: 'button', 'aria-pressed': 'false' }, p.name));
  $('k-presets').replaceChildren(...presetButtons);

  function drawLedger() {
    const s = app.state;
    const V = app.vocabSize();
    const heads = s.heads.filter((h) => Number.isInteger(h) && h >= 1);
    const ledgers = heads.map((H) => parameterLedger(textModel(s, V, H)));
    const bad = ledgers.find((l) => l.ok === false);
    if (!heads.length || bad) {
      ledgerRoot.replaceChildren(el('p', { class: 'alert', role: 'alert' }, bad ? app.readable(bad.error)
        : app.shows('heads') ? 'Choose the head counts in panel 4.' : 'No head counts to count: heads= in the address lists none.'));
      return;
    }
    const fit = /** @type {Array<Extract<ReturnType<typeof parameterLedger>, {ok: true}>>} */ (ledgers);  // no bad one
    const first = fit[0];
    /** @type {Array<Array<Node|string>>} */
    const rows = first.names.map((name, i) => [name, ...fit.map((l) => `${l.shapes[i]} = ${count(l.sizes[i])}`)]);
    const attn = (l) => l.names.reduce((sum, n, i) => sum + (n.includes('.attn.') ? l.sizes[i] : 0), 0);
    rows.push([el('strong', {}, 'attention (Q, K, V, O with biases)'), ...fit.map((l) => el('strong', {}, count(attn(l))))]);
    rows.push([el('strong', {}, 'total'), ...fit.map((l) => el('strong', {}, count(l.total)))]);
    const equal = new Set(fit.map((l) => l.total)).size === 1;
    const ledger = table(
      `Every tensor of ${app.shows('heads') ? 'the models in panel 4' : 'the character models this page trains'} (V = ${V}, D = ${s.cD}, ${s.layers} layers, T = ${s.context}). ` +
      (equal ? `The totals are the same for H = ${heads.join(', ')}: ${count(first.total)} parameters; per layer the attention holds ` +
        `4D² + 4D = ${count(4 * s.cD * s.cD + 4 * s.cD)}.` : 'The totals differ.'),
      ['tensor', ...heads.map((H) => `H = ${H}`)], rows, { class: 'ledger', stack: true });
    // the caption (which says the totals) stays in view; the tensors fold away, closed at first on a phone, where
    // each of the dozens of rows is a card of its own (style.css, table.stack)
    const [caption, tableEl] = [...ledger.childNodes];
    ledgerOpen ??= !globalThis.matchMedia?.(`(max-width: ${SETTINGS.phoneWidth}px)`).matches;
    const details = el('details', { class: 'ledger-all' }, el('summary', {}, `Every tensor, one row each (${first.names.length} tensors)`), tableEl);
    details.open = ledgerOpen;
    details.addEventListener('toggle', () => { ledgerOpen = details.open; });
    ledgerRoot.replaceChildren(caption, details);
  }
  let ledgerOpen = null;  // the user's choice once made, kept across redraws

  function drawKv() {
    const s = app.state;
    const preset = matchingPreset(s);
    KV_PRESETS.forEach((p, i) => presetButtons[i].setAttribute('aria-pressed', String(p === preset)));
    kvSource.replaceChildren(...(preset
      ? ['Shape of ', el('strong', {}, preset.name), `: ${preset.source} (`, el('a', { href: preset.url, target: '_blank', rel: 'noopener' }, 'source'), ').']
      : ['Your own shape (no preset matches it).']));
    const shape = { layers: s.kvL, dModel: s.kvD, nHeads: s.kvH, nKvHeads: s.kvKv, headDim: s.kvHs, bias: s.kvBias === '1',
      context: s.kvCtx, batch: s.kvB, bytesPerValue: s.kvBytes };
    const bad = Object.entries(shape).find(([k, v]) => k !== 'bias' && !(typeof v === 'number' && Number.isInteger(v) && v >= 1));
    /** @type {ReturnType<typeof kvArithmetic>} */
    const r = bad ? { ok: false, error: `${KV_NAMES[bad[0]]} must be a whole number of at least 1.` } : kvArithmetic(shape);
    // (=== false: without strictNullChecks the type check narrows a result to its failure only so)
    kvError.textContent = r.ok === false ? app.readable(r.error) : '';
    kvError.hidden = r.ok;
    if (r.ok === false) return kvRoot.replaceChildren();
    const gib = binaryBytes;
    const withBias = s.kvBias === '1';
    const col = (name, kv, c, frac) => [name, String(kv), count(c.q), count(c.k), count(c.v), count(c.o),
      ...(withBias ? [count(c.bias)] : []), count(c.perLayer), count(c.allLayers), el('span', {}, gib(c.kvCacheBytes), el('br'), el('span', { class: 'muted' }, `${count(c.kvCacheBytes)} bytes`)), frac];
    const rows = [
      col('MHA', s.kvH, r.mha, '1'),
      // the shape as given: GQA, unless its H_kv makes it one of the other two rows
      col(s.kvKv === s.kvH ? 'as given: MHA' : s.kvKv === 1 ? 'as given: MQA' : `GQA-${s.kvKv}`, s.kvKv, r.gqa, `${s.kvKv}/${s.kvH} = ${r.gqaFraction.toPrecision(3)}`),
      col('MQA', 1, r.mqa, `1/${s.kvH} = ${r.mqaFraction.toPrecision(3)}`),
    ];
    kvRoot.replaceChildren(table(
      `Attention parameters and KV cache for ${s.kvL} layers, D = ${count(s.kvD)}, H = ${s.kvH} query heads of d_h = ${s.kvHs}, ` +
      `${count(s.kvCtx)} ${s.kvCtx === 1 ? 'token' : 'tokens'} of context, batch ${s.kvB}, ${plural(s.kvBytes, 'byte')} per value` +
      `${s.kvBias === '1' ? ', with biases' : ''}${preset ? ` (${preset.name})` : ''}.`,
      ['variant', 'KV heads', 'W_Q', 'W_K', 'W_V', 'W_O', ...(withBias ? ['biases'] : []), 'per layer', 'all layers',
        'KV cache', 'cache vs MHA'], rows, { class: 'kv-table', stack: true }));
  }

  function show() {
    for (const [key, id] of KV_FIELDS) input(id).value = app.state[key];
    kvBias.checked = app.state.kvBias === '1';
    drawLedger();
    drawKv();
  }

  for (const [key, id] of KV_FIELDS) {
    $(id).addEventListener('input', () => {
      const v = input(id).value.trim();
      app.state[key] = v === '' ? NaN : Number(v);
      app.save();
      drawKv();
    });
  }
  kvBias.addEventListener('change', () => {
    app.state.kvBias = kvBias.checked ? '1' : '0';
    app.save();
    drawKv();
  });
  KV_PRESETS.forEach((p, i) => presetButtons[i].addEventListener('click', () => {
    Object.assign(app.state, p.values);
    app.save();
    show();
  }));
  return { show, drawLedger };
}
