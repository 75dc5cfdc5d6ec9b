// The break panel, "Break it": the lesson's attention bugs (core/config.hpp, AttentionVariant), each trained beside
// the canonical layer at the same budget in its own worker. Per variant: the core's causality check on the random
// and the trained weights (with the leaking pairs on demand), the parameter difference, time per step, a sample, and
// what the lesson predicts against what this run measured. Plus the canonical weights read in the swapped order.
// Wiring only: every number comes from the core in the workers.
import { loadCorpus } from '../data.js';
import { checkRun, constants } from '../engine.js';
import { drawScheduler, Run, RUN_EVENT, sideBySideHandler, statusWord, stepsBetween } from '../runs.js';
import { CurvesView } from '../views/curves_view.js';
import { count, el, showAlert } from '../views/dom.js';
import { numberFields } from '../views/number_fields.js';

const SETTINGS = {
  modelKeys: ['dModel', 'nHeads', 'nLayers', 'context', 'mlp'],  // tiny-char: the core's default model (constants().defaults)
  evalPoints: 10,          // validation measurements per run (plus step 0)
  warmupFraction: 0.1,
  minLrFraction: 0.1,
  drawMs: 300,
  sameLoss: 0.03,          // nats: closer than this to canonical counts as "about the same"
  leaksListed: 200,        // leaking pairs written out on demand (the rest are counted)
};

// what the lesson (DESIGN.md §4) predicts for each variant, and the claim this run can check
const LESSON = {
  swapped_order: {
    title: 'view(B,T,d_h,H), used to split and to merge',
    prediction: 'the canonical model with its weights permuted: trained from scratch it learns as well as canonical; only weights trained in the canonical layout break it (see the box below the cards).',
    check: (m) => ({ held: Math.abs(m.dLoss) < SETTINGS.sameLoss, what: 'learns as well as canonical' }),
  },
  no_transpose_split: {
    title: 'transpose missing when splitting into heads',
    prediction: 'outputs depend on future tokens; the loss looks too good and generation is bad. The causality check flags it.',
    check: (m) => [{ held: m.leaks > 0, what: 'it leaks the future' }, { held: m.dLoss < -SETTINGS.sameLoss, what: 'a loss that looks too good' }],
  },
  no_transpose_merge: {
    title: 'transpose missing when merging the heads',
    prediction: 'outputs depend on future tokens; the loss looks too good and generation is bad. The causality check flags it.',
    check: (m) => [{ held: m.leaks > 0, what: 'it leaks the future' }, { held: m.dLoss < -SETTINGS.sameLoss, what: 'a loss that looks too good' }],
  },
  no_transpose_both: {
    title: 'transpose missing on both sides',
    prediction: 'no leak, but each position attends only within its block of T/H positions: a worse loss.',
    check: (m) => [{ held: m.leaks === 0, what: 'no leak' }, { held: m.dLoss > SETTINGS.sameLoss, what: 'a worse loss' }],
  },
  scale_sqrt_d: {
    title: 'scores scaled by 1/√D instead of 1/√d_h',
    prediction: 'logits √H times too small, flatter attention, slower learning: a higher loss at the same budget.',
    check: (m) => ({ held: m.dLoss > SETTINGS.sameLoss, what: 'a higher loss' }),
  },
  no_wo: {
    title: 'no output projection W_O',
    prediction: 'each head writes a fixed slice of the residual stream; D² + D fewer parameters per layer.',
    check: (m) => ({ held: m.dParams === -(m.D * m.D + m.D) * m.layers, what: `D² + D = ${count(m.D * m.D + m.D)} fewer parameters per layer` }),
  },
  per_head_proj: {
    title: 'H separate (d_h × D) projections per head',
    prediction: 'the same function class and parameter count as one D × D projection, but H small matmuls: slower per step.',
    check: (m) => ({ held: m.dParams === 0 && m.msRatio > 1, what: 'same parameters, slower per step' }),
  },
  split_input: {
    title: 'input cut into H slices first, then d_h × d_h projections',
    prediction: 'projection weights fall to 3D²/H + D² per layer, and the model is weaker.',
    check: (m) => ({ held: m.dParams < 0 && m.dLoss > SETTINGS.sameLoss, what: 'fewer parameters and a higher loss' }),
  },
  tied_heads: {
    title: 'all heads share one Q/K/V projection',
    prediction: 'the same as one head of size d_h repeated: multi-head diversity collapses, a weaker model.',
    check: (m) => ({ held: m.dLoss > SETTINGS.sameLoss, what: 'a higher loss' }),
  },
};

// the lesson of a variant; the list of variants is the core's, so one the lesson does not cover yet still trains
const lesson = (variant) => LESSON[variant]
  ?? { title: '', prediction: 'nothing yet: the lesson does not cover this variant.', check: () => [] };

const $ = (id) => document.getElementById(id);

/**
 * @param {object} app shared page state: { state, save(), readable(msg) }
 */
export function setupBreak(app) {
  const ui = {
    variants: $('b-variants'), steps: $('b-steps'), batch: $('b-batch'), lr: $('b-lr'), seed: $('b-seed'),
    start: $('b-start'), stop: $('b-stop'), error: $('b-error'), status: $('b-status'), runs: $('b-runs'),
    swapText: $('b-swap-text'),
  };
  const form = numberFields([[ui.steps, 'bsteps', 'Steps'], [ui.batch, 'bbatch', 'The batch B'], [ui.seed, 'bseed', 'The seed'],
    [ui.lr, 'blr', 'The learning rate']]);
  const curves = new CurvesView($('b-chart'), { valuesRoot: $('b-values') });
  /** @type {Map<string, Run>} canonical first, then the variants in lesson order */
  const runs = new Map();
  // the core's variants besides canonical, in its order (the lesson's)
  const variants = constants().variants.filter((v) => v !== 'canonical');
  const checks = new Map();
  for (const v of variants) {
    const box = el('input', { type: 'checkbox', value: v, 'data-variant': v });
    checks.set(v, box);
    ui.variants.append(el('label', { class: 'check' }, box, el('span', {}, el('code', {}, v), ' ', el('span', { class: 'muted' }, lesson(v).title))));
    box.addEventListener('change', read);
  }

  // ---------------------------------------------------------------- settings <-> controls
  function show() {
    const s = app.state;
    for (const [v, box] of checks) box.checked = s.variants.includes(v);
    form.show(s);
  }

  function read() {
    const s = app.state;
    s.variants = variants.filter((v) => checks.get(v).checked);
    form.read(s);
    app.save();
  }

  function runSettings() {
    const s = app.state;
    const err = form.error(s)
      ?? (s.variants.length >= 1 ? null : 'Pick at least one variant to train beside the canonical model.');
    if (err) return { error: err };
    const defaults = constants().defaults;
    const settings = {
      ...Object.fromEntries(SETTINGS.modelKeys.map((k) => [k, defaults[k]])), batch: s.bbatch, steps: s.bsteps,
      warmup: Math.round(s.bsteps * SETTINGS.warmupFraction), lr: s.blr, minLr: s.blr * SETTINGS.minLrFraction,
      seed: s.bseed, causality: true,
      evalEvery: stepsBetween(s.bsteps, SETTINGS.evalPoints), snapshotEvery: stepsBetween(s.bsteps, 5),
    };
    const bad = ['canonical', ...s.variants].map((variant) => checkRun({ ...settings, variant })).find((r) => !r.ok);
    return bad ? { error: bad.error } : settings;
  }

  // ---------------------------------------------------------------- runs
  async function startAll() {
    showError('');
    const settings = runSettings();
    if (settings.error) return showError(settings.error);
    let text;
    try {
      text = await loadCorpus();
    } catch (e) {
      return showError(String(e.message ?? e));
    }
    for (const r of runs.values()) r.dispose();
    runs.clear();
    cards.clear();
    delete document.documentElement.dataset.breakit;
    for (const v of ['canonical', ...app.state.variants]) {
      const run = new Run({ key: v, label: v, settings: { ...settings, variant: v, swapCheck: v === 'canonical' }, text, onEvent });
      runs.set(v, run);
    }
    ui.status.textContent = 'Setting up the workers…';
    draw();
  }

  // schedule is looked up when an event arrives: it is defined below, with the drawing
  const onEvent = sideBySideHandler({ runs, showError, status: ui.status,
    schedule: (now) => schedule(now), streaming: [RUN_EVENT.progress, RUN_EVENT.val, RUN_EVENT.snapshot, RUN_EVENT.trace] });


  // redraws at most every SETTINGS.drawMs, in an animation frame (see drawScheduler)
  const schedule = drawScheduler(() => draw(), SETTINGS.drawMs);

  // ---------------------------------------------------------------- drawing
  function draw() {
    const all = [...runs.values()];
    const baseline = all.find((r) => r.facts)?.facts.baselineLoss ?? null;
    curves.update({ runs: all.map((r) => ({ label: r.label, train: r.train, val: r.val })), baseline });
    ui.stop.disabled = !all.some((r) => ['running', 'paused', 'ready'].includes(r.status));
    ui.start.textContent = all.length ? 'Train again' : 'Train';
    const nodes = all.map(card);
    if (nodes.length !== ui.runs.children.length || nodes.some((n, i) => ui.runs.children[i] !== n)) ui.runs.replaceChildren(...nodes);
    drawSwap();
    // the worker sends the causality report and the swap check before 'done', so a done run has them
    const finished = all.length && all.every((r) => ['done', 'failed'].includes(r.status));
    if (!all.length) ui.status.textContent = '';
    else if (finished) {
      const wall = Math.max(...all.map((r) => r.wallSeconds));
      ui.status.textContent = `Done: canonical and ${all.length - 1} variant${all.length === 2 ? '' : 's'} in ${wall.toFixed(1)} s of wall time.`;
      document.documentElement.dataset.breakit = 'done';
    } else if (all.some((r) => r.status === 'running')) ui.status.textContent = 'Training…';
  }

  const canonical = () => runs.get('canonical');

  const cards = new Map();
  function card(run) {
    let c = cards.get(run);
    if (!c) {
      c = {
        title: el('h3', {}), badges: el('p', { class: 'badges' }), progress: el('progress', {}), facts: el('p', { class: 'run-facts' }),
        lesson: el('p', { class: 'lesson' }), measured: el('p', { class: 'measured' }), leaks: el('div', {}), sample: el('div', {}), shown: '',
      };
      c.card = el('article', { class: 'run-card variant-card', 'data-run': run.key }, c.title, c.badges, c.progress, c.facts,
        c.lesson, c.measured, c.leaks, c.sample);
      cards.set(run, c);
    }
    const steps = run.settings.steps;
    c.card.className = `run-card variant-card status-${run.status}`;
    c.title.replaceChildren(el('code', {}, run.key), ' ', el('span', { class: 'muted' }, run.key === 'canonical'
      ? 'view(B,T,H,d_h).transpose(1,2), scores / √d_h' : lesson(run.key).title));
    c.progress.max = steps;
    c.progress.value = run.stepsDone;
    c.progress.setAttribute('aria-label', `${run.label}: ${Math.round((100 * run.stepsDone) / steps)}% of the steps done`);
    const ms = run.msPerStep();
    const val = run.val.loss.at(-1);
    c.facts.textContent = [
      statusWord(run),
      `step ${run.stepsDone} / ${steps}`,
      Number.isFinite(ms) ? `${ms.toFixed(1)} ms per step` : '',
      val !== undefined ? `val ${val.toFixed(3)}` : '',
    ].filter(Boolean).join(' · ');
    c.badges.replaceChildren(...badges(run));
    const key = `${run.status}|${!!run.causality.init}|${!!run.causality.trained}|${run.error}|${canonical()?.status}|${run.sample.length}`;
    if (c.shown !== key) {
      c.shown = key;
      c.lesson.replaceChildren(...(run.key === 'canonical' ? ['The reference every variant is measured against.']
        : [el('strong', {}, 'The lesson predicts: '), lesson(run.key).prediction]));
      c.measured.replaceChildren(...measured(run));
      c.leaks.replaceChildren(...leakList(run));
      c.sample.replaceChildren(...(run.sample ? [el('figure', { class: 'sample' },
        el('figcaption', {}, `Generated by ${run.key} after ${run.stepsDone} steps (it sees only what it has written so far)`),
        el('pre', {}, run.sample))] : run.status === 'failed' ? [el('p', { class: 'alert', role: 'alert' }, app.readable(run.error))] : []));
    }
    return c.card;
  }

  // causality badges (random weights, trained weights) and the parameter difference
  function badges(run) {
    const out = [];
    for (const [when, name] of [['init', 'random weights'], ['trained', 'trained']]) {
      const r = run.causality[when];
      if (!r) continue;
      out.push(el('span', { class: `badge ${r.causal ? 'ok' : 'leak'}`, 'data-causality': when },
        r.causal ? `causal (${name})` : `LEAKS: ${count(r.nLeaks)} pairs (${name})`));
    }
    const base = canonical()?.facts?.params;
    if (run.facts) {
      const d = base !== undefined ? run.facts.params - base : null;
      out.push(el('span', { class: 'badge params' }, `${count(run.facts.params)} parameters` +
        (run.key === 'canonical' || d === null ? '' : d === 0 ? ' (same as canonical)' : ` (${d > 0 ? '+' : '−'}${count(Math.abs(d))} vs canonical)`)));
    }
    return out;
  }

  // what this run measured, against canonical, once both are done
  function measured(run) {
    const can = canonical();
    if (run.status !== 'done' || !run.val.loss.length) return [];
    const val = run.val.loss.at(-1), r = run.causality.trained;
    if (run.key === 'canonical') {
      return [el('strong', {}, 'Measured: '), `validation loss ${val.toFixed(3)}; ${r ? (r.causal ? 'no output depends on a later token' : `${count(r.nLeaks)} leaking pairs`) : ''}; ${run.msPerStep().toFixed(1)} ms per step.`];
    }
    if (!can || can.status !== 'done' || !can.val.loss.length) return [el('span', { class: 'muted' }, 'Waiting for the canonical run to compare.')];
    const cv = can.val.loss.at(-1);
    const m = {
      dLoss: val - cv, leaks: r ? r.nLeaks : NaN, dParams: run.facts.params - can.facts.params,
      msRatio: run.msPerStep() / can.msPerStep(), D: run.facts.dModel, layers: run.facts.nLayers,
    };
    const rel = Math.abs(m.dLoss) < SETTINGS.sameLoss ? 'about the same as' : m.dLoss < 0 ? 'lower than' : 'higher than';
    const parts = [
      `validation loss ${val.toFixed(3)}, ${rel} canonical's ${cv.toFixed(3)} (${m.dLoss >= 0 ? '+' : '−'}${Math.abs(m.dLoss).toFixed(3)})`,
      r ? (r.causal ? 'no output depends on a later token' : `${count(r.nLeaks)} (output, later input) pairs leak`) : 'causality not checked',
      m.dParams === 0 ? 'the same parameter count' : `${m.dParams > 0 ? '+' : '−'}${count(Math.abs(m.dParams))} parameters`,
      `${run.msPerStep().toFixed(1)} ms per step (${m.msRatio.toFixed(2)}× canonical's, measured in the worker; the runs share the cores)`,
    ];
    const verdicts = [lesson(run.key).check(m)].flat();
    const out = [el('strong', {}, 'This run measured: '), `${parts.join('; ')}.`];
    for (const v of verdicts) {
      out.push(' ', el('span', { class: `verdict ${v.held ? 'held' : 'not-held'}` },
        v.held ? `Predicted ${v.what}: held here.` : `Predicted ${v.what}: not seen at this budget.`));
    }
    if (r && !r.causal && m.dLoss < -SETTINGS.sameLoss) {
      out.push(' Its loss is lower because it reads the characters it is asked to predict; the sample below is what it writes when the future is not there to read.');
    }
    return out;
  }

  // the leaking pairs, on demand
  function leakList(run) {
    const r = run.causality.trained ?? run.causality.init;
    if (!r || r.causal) return [];
    const pairs = [];
    for (let i = 0; i < Math.min(r.nLeaks, SETTINGS.leaksListed); ++i) pairs.push(`${r.leaks[2 * i]}←${r.leaks[2 * i + 1]}`);
    const more = r.nLeaks > SETTINGS.leaksListed ? `, and ${count(r.nLeaks - SETTINGS.leaksListed)} more` : '';
    const earliest = Math.min(...Array.from({ length: r.nLeaks }, (_, i) => r.leaks[2 * i]));
    return [el('details', { class: 'leaks' },
      el('summary', {}, `Show the ${count(r.nLeaks)} leaking pairs`),
      el('p', { class: 'muted' }, `Output position t ← later input position s, on one validation sequence of T = ${r.T}; the earliest output that reads the future is position ${earliest}.`),
      el('p', { class: 'pairs' }, pairs.join(', ') + more))];
  }

  function drawSwap() {
    const can = canonical();
    if (!can) return;
    const sw = can.swap;
    if (!sw) {
      ui.swapText.textContent = can.status === 'done' ? 'Measuring…' : 'After training, the canonical model\'s weights are evaluated by a view(B,T,d_h,H) model on the same validation batches.';
      return;
    }
    const d = sw.swapped - sw.own;
    const scratch = runs.get('swapped_order');
    const scratchVal = scratch?.status === 'done' ? scratch.val.loss.at(-1) : null;
    ui.swapText.replaceChildren(
      `The trained canonical model: validation loss ${sw.own.toFixed(3)}. The very same weights read by the swapped-order model (`,
      el('code', {}, 'view(B,T,d_h,H)'), `): ${sw.swapped.toFixed(3)} (${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(3)}). `,
      scratchVal !== null ? `Trained from scratch, the swapped order reached ${scratchVal.toFixed(3)}: the layout is harmless until weights cross between layouts. `
        : 'Tick swapped_order to see it trained from scratch as well. ',
      Math.abs(d) < SETTINGS.sameLoss
        ? 'Here the difference is small: after this short training the heads are not yet specialised enough for the re-cut to matter much (on a task where they are, tests/test_variants.cpp measures 6.5e-5 → 0.50).'
        : 'Same numbers, cut into heads differently: silently a different model.');
    ui.swapText.classList.remove('muted');
  }

  function showError(message) { showAlert(ui.error, message ? app.readable(message) : ''); }

  // ---------------------------------------------------------------- events
  for (const inp of form.inputs) inp.addEventListener('input', read);
  ui.start.addEventListener('click', startAll);
  ui.stop.addEventListener('click', () => { for (const r of runs.values()) r.stop(); });

  return { show, runs: () => [...runs.values()] };
}
