// Wiring: lays the page out from the URL, loads the core, completes the settings table from the core's constants,
// reads the settings from the URL, binds the controls of the reshape and attention panels, sets up the other panels
// (panels/*.js), and keeps the URL hash equal to the current settings. Embedding: ?embed=1 drops the page chrome,
// hide=… removes controls, and a framed page reports its height to the parent with postMessage.
import { pageCosts } from './costs.js';
import { attentionDemo, attentionParams, constants, headLayout, loadEngine, ORDERS } from './engine.js';
import { downloadsOffReason, switchDownloadsOff } from './frame_downloads.js';
import { latestFinding } from './findings.js';
import { setupBreak } from './panels/break.js';
import { setupHeads } from './panels/heads.js';
import { setupInduction } from './panels/induction.js';
import { setupLesson } from './lesson/lesson.js';
import { setupInside } from './panels/inside.js';
import { setupParams } from './panels/params.js';
import { setupWorked } from './panels/worked.js';
import { RUN_EVENT } from './protocol.js';
import { openRunStore, RunKeeper } from './run_store.js';
import { breakSetUps, setHelpers, setWorkerKernels, setWorkerReuse, slowSetUps } from './runs.js';
import { completeProps, defaultState, HIDEABLE, propRange, rangeError, readHash, readLayout, writeHash } from './state.js';
import { AttentionView } from './views/attention_view.js';
import { inputById as input, numberIn, showAlert } from './views/dom.js';
import { ReshapeView } from './views/reshape_view.js';
import { SavedRunsView } from './views/saved_runs_view.js';
/** @typedef {import('./engine.js').HeadOrder} HeadOrder */

const $ = (id) => document.getElementById(id);

// loader.js (the page's first script) owns the loading line: ready() hides it, failed(error) says why the core did
// not load. Without it (this module loaded on its own), the line just goes, or shows the error.
const loader = globalThis.mhaLoader ?? {
  ready: () => { $('load-status').hidden = true; },
  failed: (err) => {
    $('load-status').textContent = `The WebAssembly core could not be loaded (${err?.message ?? err}).`;
  },
};

const ui = {
  D: input('in-D'), H: input('in-H'), text: input('in-text'), seed: input('in-seed'),
  order: [.../** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="order"]'))],
  panels: [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-panel]'))],
  nextSeed: $('next-seed'),
  dh: $('out-dh'), params: $('out-params'), tokens: $('out-tokens'),
  sizesError: $('sizes-error'), attentionError: $('attention-error'),
  notice: $('link-notice'), noticeText: $('link-notice-text'), noticeClose: $('link-notice-close'),
  simdArch: $('simd-arch'), sizesBoth: $('sizes-both'),
  panelBox: $('intro'), reshapePanel: $('panel-reshape'), attentionPanel: $('panel-attention'), sizes: $('card-sizes'),
  workedPanel: $('panel-worked'), headsPanel: $('panel-heads'), insidePanel: $('panel-inside'), paramsPanel: $('panel-params'),
  breakPanel: $('panel-break'), inductionPanel: $('panel-induction'),
};

const views = {
  reshape: Object.fromEntries(ORDERS.map((order) => [order, new ReshapeView($(`reshape-${order}`), { order })])),
  attention: new AttentionView($('attention-heads'), { legendRoot: $('attention-legend') }),
};

// the core's messages end with the C++ source location, "(demo.cpp:71)": useful in a log, noise on the page
function readable(message) {
  return message.replace(/\s*\([\w./-]+\.(?:cpp|hpp):\d+\)\s*$/, '');
}

// an alert with one of the core's messages, or hidden when there is none
function showError(node, message) {
  showAlert(node, message ? readable(message) : '');
}

// ---------------------------------------------------------------- state <-> controls
/** @type {import('./state.js').State} */
let state;

// the boxes of the reshape and attention panels take their bounds from the settings table, as numberFields does
// for the other panels
function showBounds() {
  for (const [field, name] of /** @type {Array<[HTMLInputElement, string]>} */ ([[ui.D, 'D'], [ui.H, 'H'], [ui.seed, 'seed']])) {
    const { min, max } = propRange(name);
    field.min = String(min);
    field.max = String(max);
  }
}

function showState() {
  ui.D.value = Number.isFinite(state.D) ? String(state.D) : '';
  ui.H.value = Number.isFinite(state.H) ? String(state.H) : '';
  ui.seed.value = Number.isFinite(state.seed) ? String(state.seed) : '';
  ui.text.value = state.text;
  for (const r of ui.order) r.checked = r.value === state.order;
}


/**
 * @param {import('./state.js').Rejected[]} rejected
 * @param {import('./state.js').State} used the settings read, where each rejected one holds the default it fell back to
 */
function showNotice(rejected, used) {
  if (rejected.length === 0) {
    ui.notice.hidden = true;
    return;
  }
  // one sentence per setting, in the user's terms: "H must be a whole number from 1 to 64, not “-3”: using 4."
  const shown = (/** @type {import('./state.js').Value} */ v) => (Array.isArray(v) ? v.join(',') : String(v));
  const parts = rejected.map((r) => (Object.hasOwn(used, r.name)
    ? `${r.name} ${r.reason}, not “${clip(r.value)}”: using ${clip(shown(used[r.name]))}.`
    : `“${clip(r.name)}” is ${r.reason}.`));
  ui.noticeText.textContent = `Some settings in the link were not used. ${parts.join(' ')}`;
  ui.notice.hidden = false;
}

function clip(s) {
  return s.length > 40 ? s.slice(0, 39) + '…' : s;
}

// ---------------------------------------------------------------- drawing
function render() {
  const { D, H, order, text, seed } = state;

  showPanels();

  // sizes and reshape
  // a box that holds no whole number in range (H = 2.5, −3, empty) is named before the core sees it: the core takes
  // whole numbers, and 2.5 would reach it as 2
  const typed = rangeError('D', D, 'D') ?? rangeError('H', H, 'H');
  /** @type {(o: HeadOrder) => ReturnType<typeof headLayout>} */
  const layout = (o) => (typed ? { ok: false, error: typed } : headLayout(D, H, o));
  const canonical = layout('canonical'), swapped = layout('swapped');
  // (ok === false, not !ok: without strictNullChecks the type check narrows a result to its failure only so)
  const fit = canonical.ok === true && swapped.ok === true ? { canonical, swapped } : null;  // both orders' layouts
  const sizesOk = fit !== null;
  showError(ui.sizesError, canonical.ok === false ? canonical.error : swapped.ok === false ? swapped.error : '');
  ui.D.setAttribute('aria-invalid', String(!sizesOk && !(typed && rangeError('D', D, 'D') === null)));
  ui.H.setAttribute('aria-invalid', String(!sizesOk && !(typed && rangeError('H', H, 'H') === null)));
  // the badge names panel 2 only where panel 2 is in the page (an embedded reshape panel may be alone)
  const badge = app.shows('attention') ? 'used in panel 2' : 'the order chosen above';
  for (const o of ORDERS) views.reshape[o].update(fit ? { layout: fit[o], active: o === order, badge } : null);
  ui.dh.textContent = fit ? String(fit.canonical.headSize) : '–';
  const params = attentionParams(D);
  ui.params.textContent = params.ok ? params.params.toLocaleString('en-US') : '–';

  // attention heads
  if (!sizesOk) {
    showError(ui.attentionError, '');
    ui.tokens.textContent = '';
    views.attention.update(null, 'No heatmaps until D and H fit together: see the message under Sizes.');
  } else {
    const demo = attentionDemo(text, D, H, seed, order);
    showError(ui.attentionError, demo.ok === false ? demo.error : '');
    ui.seed.setAttribute('aria-invalid', String(demo.ok === false && /seed/i.test(demo.error)));
    const most = demo.ok && demo.T >= constants().limits.demoMaxTokens ? ', the most it reads' : '';
    ui.tokens.textContent = demo.ok ? `${demo.T} word${demo.T === 1 ? '' : 's'}${most}` : '';
    views.attention.update(demo.ok ? demo : null);
  }

  save();
}

// which panels are shown: all of them, or one (the sizes card goes with the reshape and attention panels); layout:
// the settings, or before the core has loaded, readLayout's
/** @param {{panel: string[], embed: string, hide: string[]}} [layout] */
function showPanels(layout = state) {
  const { panel } = layout;  // ['all'], one panel, or several (panel=heads,inside)
  for (const b of ui.panels) b.setAttribute('aria-pressed', String(panel.length === 1 && panel[0] === b.dataset.panel));
  const on = (name) => panel.includes('all') || panel.includes(name);
  ui.reshapePanel.hidden = !on('reshape');
  ui.attentionPanel.hidden = !on('attention');
  ui.sizes.hidden = !(on('reshape') || on('attention'));
  ui.panelBox.hidden = ui.sizes.hidden;
  ui.panelBox.classList.toggle('both', on('reshape') && on('attention'));
  ui.sizesBoth.hidden = !(on('reshape') && on('attention'));
  ui.workedPanel.hidden = !on('worked');
  ui.headsPanel.hidden = !on('heads');
  ui.breakPanel.hidden = !on('break');
  ui.inductionPanel.hidden = !on('induction');
  ui.insidePanel.hidden = !on('inside');
  if (!ui.insidePanel.hidden) panels.inside?.onShow();
  ui.paramsPanel.hidden = !on('params');
  if (!ui.paramsPanel.hidden) panels.params?.drawLedger();  // its caption names panel 4 only when panel 4 is shown
  document.documentElement.classList.toggle('embed', layout.embed === '1');
  // hide=…: one CSS rule per hideable control, so controls that views create later are hidden too
  if (!document.getElementById('hide-rules')) {
    const rules = HIDEABLE.map((n) => `html[data-hide~="${n}"] [data-control="${n}"] { display: none !important; }`);
    document.head.append(Object.assign(document.createElement('style'), { id: 'hide-rules', textContent: rules.join('\n') }));
  }
  document.documentElement.dataset.hide = layout.hide.join(' ');
}

// the URL hash follows the settings (replaceState: no history entry per keystroke), at most once per frame.
// hashSynced is the hash the settings were last read from or written to. A hash that differs from it when the frame
// comes was navigated to (a link, a course page, the address bar) and its hashchange has not run yet: writing the
// settings then would replace the new hash with the old settings before they are read (seen in a browser test that
// set the hash right after typing in a box), so the frame leaves it for the hashchange handler.
let saving = 0;
let hashSynced = '';
function save() {
  if (saving) return;
  saving = requestAnimationFrame(() => {
    saving = 0;
    if (location.hash !== hashSynced) return;
    const hash = writeHash(state);
    if (location.hash !== hash && !(hash === '#' && !location.hash)) history.replaceState(null, '', hash === '#' ? location.pathname + location.search : hash);
    hashSynced = location.hash;
  });
}

// ---------------------------------------------------------------- embedding: the height for the parent page
// { type: 'mha-sandbox:height', height, frame }: frame is the frame= setting of this page's address ('' without
// one), so that a course page with several frames can tell them apart by name as well as by event.source
function reportHeight() {
  if (window.parent === window) return;
  const { frame } = readLayout(location.hash, location.search);
  let last = 0;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'mha-sandbox:height', height, frame }, '*');
  };
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

// at most one render per frame, however fast the user types
let frame = 0;
function scheduleRender() {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(render);
}

// ---------------------------------------------------------------- events
function bindControls() {
  ui.D.addEventListener('input', () => { state.D = numberIn(ui.D); scheduleRender(); });
  ui.H.addEventListener('input', () => { state.H = numberIn(ui.H); scheduleRender(); });
  ui.seed.addEventListener('input', () => { state.seed = numberIn(ui.seed); scheduleRender(); });
  ui.text.addEventListener('input', () => { state.text = ui.text.value; scheduleRender(); });
  // index.html's two radio buttons carry the two orders
  for (const r of ui.order) r.addEventListener('change', () => { state.order = /** @type {HeadOrder} */ (r.value); scheduleRender(); });
  for (const b of ui.panels) b.addEventListener('click', () => { state.panel = [b.dataset.panel]; render(); });
  ui.nextSeed.addEventListener('click', () => {
    state.seed = Number.isInteger(state.seed) ? (state.seed + 1) % (propRange('seed').max + 1) : 1;
    ui.seed.value = String(state.seed);
    render();
  });
  ui.noticeClose.addEventListener('click', () => { ui.notice.hidden = true; });
  // a link pasted into this tab, or the hash edited by hand
  window.addEventListener('hashchange', () => {
    hashSynced = location.hash;
    const { state: s, rejected } = readHash(location.hash, location.search);
    for (const key of Object.keys(state)) delete state[key];
    Object.assign(state, s);
    showState();
    showNotice(rejected, s);
    showAll();
    render();
  });
}

// ---------------------------------------------------------------- the other panels
/**
 * shared by the panel modules: the settings, saving them, the runs, readable messages
 * @typedef {typeof app} App
 */
const app = {
  get state() { return state; },
  save: () => save(),
  get defaults() { return defaultState(); },
  readable,
  runs: new Map(),
  // a .safetensors file loaded as a run from any panel (heads.js owns the runs); report says what went wrong there
  loadModel: (file, report) => panels.heads.loadFile(file, report),
  runsChanged: (e) => {
    if (e.type === RUN_EVENT.reset) panels.inside?.onReset();
    else panels.inside?.onRunEvent(e);
    if (e.type === RUN_EVENT.ready || e.type === RUN_EVENT.reset) panels.params?.drawLedger();
  },
  vocabSize: () => panels.heads?.vocabSize(),
  // whether a panel is on the page: an embedded frame may hold one panel or a few, and no sentence may send the
  // reader to a panel that is not there
  shows: (name) => { const { panel } = state ?? readLayout(location.hash, location.search); return panel.includes('all') || panel.includes(name); },
  // the induction panel's runs, which "Look inside" lists beside panel 4's
  inductionRuns: () => panels.induction?.runs() ?? [],
  paramsChanged: () => panels.params?.drawLedger(),
  // the lesson sets a step's settings and panels, as a link pasted in would (partial: settings by name)
  setSettings: (partial) => {
    Object.assign(state, partial);
    showState();
    showAll();
    render();
  },
};
const panels = {};

function showAll() {
  panels.worked.show();
  panels.heads.show();
  panels.break.show();
  panels.induction.show();
  panels.params.show();
  panels.lesson?.show();
}

// test and debugging hooks: the runs, the panels' last findings, and a way to make a worker die as a crash would
globalThis.mhaDebug = {
  finding: (kind) => latestFinding(kind),
  runs: () => [...app.runs.values()],
  breakRuns: () => panels.break?.runs() ?? [],
  inductionRuns: () => panels.induction?.runs() ?? [],
  crash: (key) => app.runs.get(key)?.crash(),
  /** the main thread's milliseconds by part so far (costs.js), for scripts/bench_page.mjs */
  costs: () => pageCosts.totals(),
  /** which build of the core later workers load: 'simd128' (mha.wasm), or null (the best this browser runs) */
  kernels: (k) => setWorkerKernels(k),
  /** whether later runs may be lent helpers on idle cores (runs.js setHelpers): false to compare */
  helpers: (on) => setHelpers(on),
  /** whether later runs may take the workers of finished runs (runs.js setWorkerReuse): false to compare */
  reuseWorkers: (on) => setWorkerReuse(on),
  /** every later set-up that many ms slower, in its worker (runs.js slowSetUps): a test of the start's timeout */
  slowSetUps: (ms) => slowSetUps(ms),
  /** every later set-up fails in its worker after it began (runs.js breakSetUps): 'throw', 'die', or null for none */
  breakSetUps: (kind) => breakSetUps(kind),
};

// Runs live only in this page: a reload or a link away would lose every trained model, so a page holding any asks
// first (the browser's own "leave site?" dialog; it shows only after the user has interacted with the page)
function guardRuns() {
  window.addEventListener('beforeunload', (e) => {
    if (!runsAtStake()) return;
    e.preventDefault();
    e.returnValue = '';  // older browsers need it set
  });
  // a link that leaves this document (another query, another page) opens in a new tab while runs are at stake: the
  // runs train on here (and where the browser refuses the tab, the beforeunload guard above asks)
  document.addEventListener('click', (e) => {
    const a = e.target instanceof Element ? /** @type {HTMLAnchorElement | null} */ (e.target.closest('a[href]')) : null;
    if (!a || e.defaultPrevented || a.target || a.hasAttribute('download') || !runsAtStake()) return;
    const to = new URL(a.href, location.href);
    const here = new URL(location.href);
    if (to.origin === here.origin && to.pathname === here.pathname && to.search === here.search) return;  // a hash: no reload
    const tab = window.open(to.href, '_blank');  // null where the frame forbids popups: then it goes as clicked
    if (!tab) return;
    tab.opener = null;
    e.preventDefault();
  });
}

// any run trained or training on this page (not only failed ones)
function runsAtStake() {
  const all = [...app.runs.values(), ...(panels.break?.runs() ?? []), ...(panels.induction?.runs() ?? [])];
  return all.some((r) => r.status !== 'failed' && (r.stepsDone > 0 || ['starting', 'ready', 'running', 'restarting'].includes(r.status)));
}

// ---------------------------------------------------------------- runs kept in the browser (run_store.js)
// the line under each training panel's status, and the runs each panel gets back after a reload
function keepRuns(store) {
  const lines = ['c-status', 'b-status', 'n-status'].map((id) => new SavedRunsView($(id), {
    onForget: () => app.keeper.forgetAll([...app.runs.values(), ...panels.break.runs(), ...panels.induction.runs()]),
  }));
  const show = () => {
    const s = { ok: store.ok, reason: store.reason, ...store.summary() };
    for (const l of lines) l.update(s);
  };
  store.onChange = show;
  show();
  const back = ['heads', 'break', 'induction'].map((name) => store.load(name).then((records) => panels[name].restore(records))
    .catch((err) => console.warn(`The ${name} panel could not take back its kept runs:`, err)));
  // for tests: every panel has taken back what the store kept
  Promise.all(back).then(() => {
    store.kept = [];  // the records read at start-up: the panels hold what they took back
    document.documentElement.dataset.runsRestored = 'true';
  });
}

async function start() {
  showPanels(readLayout(location.hash, location.search));
  reportHeight();
  const storing = openRunStore();  // meanwhile: IndexedDB, and the index of what it keeps
  try {
    const { simdArch } = await loadEngine();
    ui.simdArch.textContent = simdArch;
    loader.ready();
  } catch (err) {
    loader.failed(err);
    return;
  }
  // the settings' bounds, lists and defaults are partly the core's: the URL is read once they are known
  completeProps(constants());
  const parsed = readHash(location.hash, location.search);
  hashSynced = location.hash;
  state = parsed.state;
  showBounds();
  showState();
  showNotice(parsed.rejected, parsed.state);
  bindControls();
  const store = await storing;
  app.keeper = new RunKeeper(store);
  panels.worked = setupWorked(app);
  panels.heads = setupHeads(app);
  panels.break = setupBreak(app);
  panels.induction = setupInduction(app);
  panels.inside = setupInside(app);
  panels.params = setupParams(app);
  panels.lesson = setupLesson(app, store);
  showAll();
  guardRuns();
  keepRuns(store);
  const downloadsOff = downloadsOffReason(readLayout(location.hash, location.search));
  if (downloadsOff) switchDownloadsOff(document, downloadsOff);
  render();
  performance.mark('mha-first-heatmap');  // the attention panel's heatmaps are on the page now
  document.documentElement.dataset.ready = 'true';
}

start();
