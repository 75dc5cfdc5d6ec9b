// Wiring: loads the core, reads the settings from the URL, binds the controls, and on every change asks
// the engine for fresh numbers and hands them to the views. The URL hash always holds the current settings.
import { attentionDemo, attentionParams, headLayout, loadEngine, ORDERS } from './engine.js';
import { PROPS, readHash, writeHash } from './state.js';
import { AttentionView } from './views/attention_view.js';
import { ReshapeView } from './views/reshape_view.js';

const $ = (id) => document.getElementById(id);

const ui = {
  D: $('in-D'), H: $('in-H'), text: $('in-text'), seed: $('in-seed'),
  order: [...document.querySelectorAll('input[name="order"]')],
  panels: [...document.querySelectorAll('[data-panel]')],
  nextSeed: $('next-seed'),
  dh: $('out-dh'), params: $('out-params'), tokens: $('out-tokens'),
  sizesError: $('sizes-error'), attentionError: $('attention-error'),
  notice: $('link-notice'), noticeText: $('link-notice-text'), noticeClose: $('link-notice-close'),
  loadStatus: $('load-status'), simdArch: $('simd-arch'),
  panelBox: $('panels'), reshapePanel: $('panel-reshape'), attentionPanel: $('panel-attention'),
};

const views = {
  reshape: Object.fromEntries(ORDERS.map((order) => [order, new ReshapeView($(`reshape-${order}`), { order })])),
  attention: new AttentionView($('attention-heads'), { legendRoot: $('attention-legend') }),
};

// the core's messages end with the C++ source location, "(demo.cpp:71)": useful in a log, noise on the page
function readable(message) {
  return message.replace(/\s*\([\w./-]+\.(?:cpp|hpp):\d+\)\s*$/, '');
}

function showAlert(node, message) {
  node.textContent = message ? readable(message) : '';
  node.hidden = !message;
}

// ---------------------------------------------------------------- state <-> controls
/** @type {import('./state.js').State} */
let state;

function showState() {
  ui.D.value = Number.isFinite(state.D) ? String(state.D) : '';
  ui.H.value = Number.isFinite(state.H) ? String(state.H) : '';
  ui.seed.value = Number.isFinite(state.seed) ? String(state.seed) : '';
  ui.text.value = state.text;
  for (const r of ui.order) r.checked = r.value === state.order;
}

// a number input's value: a number when it holds one, NaN when it is empty or half typed
function numberOf(input) {
  return input.value.trim() === '' ? NaN : Number(input.value);
}

function showNotice(rejected) {
  if (rejected.length === 0) {
    ui.notice.hidden = true;
    return;
  }
  const defaults = Object.fromEntries(PROPS.map((p) => [p.name, p.default]));
  const parts = rejected.map((r) => (r.name in defaults
    ? `${r.name}=“${clip(r.value)}” (${r.reason}; using ${clip(String(defaults[r.name]))})`
    : `“${clip(r.name)}” (${r.reason})`));
  ui.noticeText.textContent = `Some settings in the link were not understood and were ignored: ${parts.join(', ')}.`;
  ui.notice.hidden = false;
}

function clip(s) {
  return s.length > 40 ? s.slice(0, 39) + '…' : s;
}

// ---------------------------------------------------------------- drawing
function render() {
  const { D, H, order, text, seed, panel } = state;

  for (const b of ui.panels) b.setAttribute('aria-pressed', String(b.dataset.panel === panel));
  ui.reshapePanel.hidden = panel === 'attention';
  ui.attentionPanel.hidden = panel === 'reshape';
  ui.panelBox.classList.toggle('both', panel === 'all');

  // sizes and reshape
  const layouts = Object.fromEntries(ORDERS.map((o) => [o, headLayout(D, H, o)]));
  const sizesOk = layouts.canonical.ok && layouts.swapped.ok;
  showAlert(ui.sizesError, sizesOk ? '' : (layouts.canonical.error ?? layouts.swapped.error));
  ui.D.setAttribute('aria-invalid', String(!sizesOk));
  ui.H.setAttribute('aria-invalid', String(!sizesOk));
  for (const o of ORDERS) views.reshape[o].update(sizesOk ? { layout: layouts[o], active: o === order } : null);
  ui.dh.textContent = sizesOk ? String(layouts.canonical.headSize) : '–';
  const params = attentionParams(D);
  ui.params.textContent = params.ok ? params.params.toLocaleString('en-US') : '–';

  // attention heads
  if (!sizesOk) {
    showAlert(ui.attentionError, '');
    ui.tokens.textContent = '';
    views.attention.update(null, 'No heatmaps until D and H fit together: see the message under Sizes.');
  } else {
    const demo = attentionDemo(text, D, H, seed, order);
    showAlert(ui.attentionError, demo.ok ? '' : demo.error);
    ui.seed.setAttribute('aria-invalid', String(!demo.ok && /seed/i.test(demo.error)));
    ui.tokens.textContent = demo.ok ? `${demo.T} word${demo.T === 1 ? '' : 's'}${demo.T >= 48 ? ', the most it reads' : ''}` : '';
    views.attention.update(demo.ok ? demo : null);
  }

  const hash = writeHash(state);
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

// at most one render per frame, however fast the user types
let frame = 0;
function scheduleRender() {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(render);
}

// ---------------------------------------------------------------- events
function bindControls() {
  ui.D.addEventListener('input', () => { state.D = numberOf(ui.D); scheduleRender(); });
  ui.H.addEventListener('input', () => { state.H = numberOf(ui.H); scheduleRender(); });
  ui.seed.addEventListener('input', () => { state.seed = numberOf(ui.seed); scheduleRender(); });
  ui.text.addEventListener('input', () => { state.text = ui.text.value; scheduleRender(); });
  for (const r of ui.order) r.addEventListener('change', () => { state.order = r.value; scheduleRender(); });
  for (const b of ui.panels) b.addEventListener('click', () => { state.panel = b.dataset.panel; render(); });
  ui.nextSeed.addEventListener('click', () => {
    state.seed = Number.isInteger(state.seed) ? (state.seed + 1) % 4294967296 : 1;
    ui.seed.value = String(state.seed);
    render();
  });
  ui.noticeClose.addEventListener('click', () => { ui.notice.hidden = true; });
  // a link pasted into this tab, or the hash edited by hand
  window.addEventListener('hashchange', () => {
    const { state: s, rejected } = readHash(location.hash);
    state = s;
    showState();
    showNotice(rejected);
    render();
  });
}

async function start() {
  const parsed = readHash(location.hash);
  state = parsed.state;
  showState();
  showNotice(parsed.rejected);
  bindControls();
  try {
    const { simdArch } = await loadEngine();
    ui.simdArch.textContent = simdArch;
    ui.loadStatus.hidden = true;
  } catch (err) {
    ui.loadStatus.textContent = `The WebAssembly core could not be loaded (${err?.message ?? err}). ` +
      'This page needs a browser with WebAssembly SIMD (Chrome 91+, Firefox 89+, Safari 16.4+).';
    ui.loadStatus.setAttribute('role', 'alert');
    ui.loadStatus.classList.add('alert');
    return;
  }
  render();
  document.documentElement.dataset.ready = 'true';
}

start();
