// The induction panel, "Induction heads": a 2-layer attention-only model and a 1-layer control trained on the
// shifted repeated-random-segment task (core/induction_task.hpp), each in its own worker. Live, from the core:
// per-head previous-token scores (layer 0) and induction scores (last layer), the first-copy and repeated-copy
// losses, and the attention of the best last-layer head on the probe [BOS, r, r]. The summary says what was measured
// against the threshold, whatever it is. "Switch layer 0 off" asks the 2-layer model's worker for the core's
// measurement with every layer-0 head switched off (for that measurement only) beside the one as it is. Wiring only.
import { checkRun, constants } from '../engine.js';
import { drawScheduler, Run, RUN_EVENT, sideBySideHandler, statusWord, stepsBetween } from '../runs.js';
import { HeatmapView } from '../views/heatmap_view.js';
import { LinesView } from '../views/lines_view.js';
import { el, showAlert, table } from '../views/dom.js';
import { numberFields } from '../views/number_fields.js';
import { restoredMark } from '../views/saved_runs_view.js';

// The task's settings (context, segments, batch, steps), its vocabulary and warm-up come from the core
// (constants().inductionSettings and .induction); the learning rate, steps and seed from the form.
const SETTINGS = {
  model: { dModel: 64, nHeads: 4, mlp: false },  // attention-only, as the core's induction lab (run_settings.hpp)
  weightDecay: 0,
  evalPoints: 25,     // measurements per run (plus step 0)
  drawMs: 300,
};

const $ = (id) => document.getElementById(id);

/**
 * @param {object} app shared page state: { state, save(), readable(msg) }
 */
export function setupInduction(app) {
  const ui = {
    task: [...document.querySelectorAll('input[name="ntask"]')],
    steps: $('n-steps'), lr: $('n-lr'), seed: $('n-seed'), start: $('n-start'), stop: $('n-stop'),
    error: $('n-error'), status: $('n-status'), runs: $('n-runs'), summary: $('n-summary'), scores: $('n-scores'),
    layer0: $('n-layer0'), layer0Result: $('n-layer0-result'),
  };
  const form = numberFields([[ui.steps, 'nsteps', 'Steps'], [ui.seed, 'nseed', 'The seed'], [ui.lr, 'nlr', 'The learning rate']]);
  const charts = {
    loss: new LinesView($('n-loss'), { yLabel: 'loss (nats)', describe: 'Copy losses' }),
    ind: new LinesView($('n-ind'), { yLabel: 'induction score', yRange: [0, 1], describe: 'Induction scores' }),
    prev: new LinesView($('n-prev'), { yLabel: 'previous-token score', yRange: [0, 1], describe: 'Previous-token scores' }),
  };
  const maps = { L2: new HeatmapView($('n-map2'), { head: 0, title: '2 layers: best last-layer head' }),
    L1: new HeatmapView($('n-map1'), { head: 1, title: '1-layer control: best head' }) };
  /** @type {Map<string, Run>} L2 (the model) and L1 (the control) */
  const runs = new Map();
  // "switch layer 0 off": off (pressed), the last reply ({ok, step, full, without}), a request under way
  const layer0 = { off: false, result: null, asking: false };

  function show() {
    const s = app.state;
    for (const r of ui.task) r.checked = r.value === s.ntask;
    form.show(s);
  }

  function read() {
    const s = app.state;
    form.read(s);
    app.save();
  }

  function runSettings() {
    const s = app.state;
    const err = form.error(s);
    if (err) return { error: err };
    const c = constants();
    const { context, segMin, segMax, batch } = c.inductionSettings[s.ntask];
    const settings = {
      ...SETTINGS.model, context, task: 'induction', vocab: c.induction.vocab, segMin, segMax, batch,
      weightDecay: SETTINGS.weightDecay, steps: s.nsteps, warmup: Math.min(c.induction.warmup, s.nsteps), lr: s.nlr, minLr: s.nlr,
      seed: s.nseed, evalEvery: stepsBetween(s.nsteps, SETTINGS.evalPoints), snapshotEvery: stepsBetween(s.nsteps, 5),
    };
    const verdict = checkRun(settings);
    return verdict.ok ? settings : { error: verdict.error };
  }

  function startAll() {
    showError('');
    const settings = runSettings();
    if (settings.error) return showError(settings.error);
    const old = [...runs.values()];
    for (const r of old) r.dispose();
    runs.clear();
    app.keeper.replace('induction', old, null);
    Object.assign(layer0, { off: false, result: null });
    delete document.documentElement.dataset.induction;
    for (const [key, layers, label] of [['L2', 2, '2 layers'], ['L1', 1, '1-layer control']]) {
      runs.set(key, new Run({ key, label, settings: { ...settings, nLayers: layers }, text: '', onEvent: keptEvent }));
    }
    ui.status.textContent = 'Setting up the workers…';
    draw();
  }

  // schedule is looked up when an event arrives: it is defined below, with the drawing
  const panelEvent = sideBySideHandler({ runs, showError, status: ui.status,
    schedule: (now) => schedule(now), streaming: [RUN_EVENT.progress, RUN_EVENT.val, RUN_EVENT.snapshot, RUN_EVENT.induction, RUN_EVENT.trace] });
  // "Look inside" lists these runs too: it hears their events as it hears panel 4's
  const onEvent = (e) => { panelEvent(e); app.runsChanged?.(e); };
  // the runs' events, seen by the page's keeper too (saved in this browser: run_store.js)
  const keptEvent = app.keeper.watch('induction', onEvent);
  // runs restored after a reload that were training: they wait for this button
  ui.resume = el('button', { type: 'button', class: 'button', id: 'n-resume', hidden: '' }, 'Continue the restored runs');
  ui.stop.after(ui.resume);

  // the two runs this panel had before the reload, back (a finished one as it ended, a training one paused at its
  // last full snapshot)
  function restore(records) {
    const kept = records.filter((r) => r.kind === 'run' && ['L2', 'L1'].includes(r.key));
    if (runs.size || kept.length !== 2) return;
    for (const r of kept.sort((a, b) => (a.key < b.key ? 1 : -1))) runs.set(r.key, Run.restore(r.run, keptEvent));
    draw();
  }


  // redraws at most every SETTINGS.drawMs, in an animation frame (see drawScheduler)
  const schedule = drawScheduler(() => draw(), SETTINGS.drawMs);

  // ---------------------------------------------------------------- drawing
  const threshold = () => constants().thresholds.induction;
  const prevThreshold = () => constants().thresholds.previous;
  const H = SETTINGS.model.nHeads;

  function series(run, pick) {
    return { step: run.induction.map((m) => m.step), value: run.induction.map((m) => pick(m.measurement)) };
  }

  function draw() {
    const model = runs.get('L2'), control = runs.get('L1');
    ui.stop.disabled = ![...runs.values()].some((r) => ['running', 'paused', 'ready'].includes(r.status));
    ui.start.textContent = runs.size ? 'Train again' : 'Train';
    ui.resume.hidden = ![...runs.values()].some((r) => r.restoredAt && r.status === 'paused');
    ui.runs.replaceChildren(...[...runs.values()].map((r) => el('p', { class: 'run-facts', 'data-run': r.key },
      el('strong', {}, r.label), r.restoredAt ? ` · ${restoredMark(r)}` : '', ` · ${statusWord(r)} · step ${r.stepsDone} / ${r.settings.steps}`,
      Number.isFinite(r.msPerStep()) ? ` · ${r.msPerStep().toFixed(1)} ms per step` : '')));
    if (!model || !control) return;
    const base = model.facts?.baselineLoss;
    charts.loss.update({
      lines: [
        { label: '2 layers, first copy', ...series(model, (m) => m.lossFirst), style: 0 },
        { label: '2 layers, repeat', ...series(model, (m) => m.lossRepeat), style: 1 },
        { label: 'control, first copy', ...series(control, (m) => m.lossFirst), style: 2 },
        { label: 'control, repeat', ...series(control, (m) => m.lossRepeat), style: 3 },
      ],
      // the baseline is ln(V − 1), a uniform guess over the symbols that can follow BOS: name V − 1 from it
      guides: base ? [{ label: `uniform guess ln ${Math.round(Math.exp(base))}`, value: base }] : [],
    });
    const ind = [];
    for (let h = 0; h < H; ++h) ind.push({ label: `layer 1 head ${h}`, ...series(model, (m) => m.induction[(m.L - 1) * m.H + h]), style: h });
    ind.push({ label: 'control: best head', ...series(control, (m) => m.bestInduction), style: 6 });
    charts.ind.update({ lines: ind, guides: [{ label: 'threshold', value: threshold() }] });
    const prev = [];
    for (let h = 0; h < H; ++h) prev.push({ label: `layer 0 head ${h}`, ...series(model, (m) => m.previous[h]), style: h });
    charts.prev.update({ lines: prev, guides: [{ label: 'threshold', value: prevThreshold() }] });
    drawProbe(maps.L2, model);
    drawProbe(maps.L1, control);
    drawScores(model, control);
    drawLayer0(model);
    summarise(model, control);
    if ([model, control].every((r) => ['done', 'failed'].includes(r.status))) {
      const wall = Math.max(model.wallSeconds, control.wallSeconds);
      ui.status.textContent = `Done in ${wall.toFixed(1)} s of wall time.`;
      document.documentElement.dataset.induction = 'done';
    } else if (model.status === 'running' || control.status === 'running') ui.status.textContent = 'Training…';
    else if (!ui.resume.hidden) ui.status.textContent = 'Restored from this browser, paused: "Continue the restored runs" trains on.';
  }

  // the best last-layer head's attention on the probe, the repeat's start and the induction targets marked
  function drawProbe(view, run) {
    const p = run.probe, last = run.induction.at(-1);
    if (!p || !last) return;
    const m = last.measurement, h = m.bestHead, l = p.L - 1, T = p.T, L = p.segment;
    const marks = [];
    for (let t = L + 1; t <= 2 * L; ++t) marks.push([t, t - L + 1]);
    view.update({
      tokens: p.tokens, T, unit: 'token', weights: p.att.subarray(((l * p.H) + h) * T * T, ((l * p.H) + h + 1) * T * T),
      title: `${run.key === 'L2' ? '2 layers' : '1-layer control'}: layer ${l}, head ${h} (induction score ${m.bestInduction.toFixed(2)}, step ${last.step})`,
      marks, markLabel: 'where an induction head looks', dividers: [L + 1],
    });
  }

  function drawScores(model, control) {
    const rows = [];
    for (const run of [model, control]) {
      const last = run.induction.at(-1);
      if (!last) continue;
      const m = last.measurement;
      for (let l = 0; l < m.L; ++l)
        for (let h = 0; h < m.H; ++h) {
          const p = m.previous[l * m.H + h], i = m.induction[l * m.H + h];
          rows.push([`${run.label}, layer ${l} head ${h}`, p.toFixed(3), i.toFixed(3),
            i >= threshold() ? 'induction head' : p >= prevThreshold() ? 'previous-token head' : '–']);
        }
    }
    ui.scores.replaceChildren(rows.length ? table(
      `Scores at the latest measurement, averaged over ${constants().induction.probes} sequences of the task (a segment of each trained length at a random place). A head counts as an induction head at an induction score of ${threshold()} or more, as a previous-token head at a previous-token score of ${prevThreshold()} or more (core/metrics.hpp).`,
      ['head', 'previous-token score', 'induction score', 'label'], rows, { class: 'scores-table', stack: true }) : '');
  }

  // ---------------------------------------------------------------- layer 0 switched off
  // the core's measurement of the 2-layer model now, with and without layer 0; asked again at every new
  // measurement while the switch is off (the model trains on)
  const layer0Heads = (H) => Array.from({ length: H }, (_, h) => [0, h]);
  const canAsk = (model) => model && model.induction.length > 0 && ['running', 'paused', 'done'].includes(model.status);

  async function askLayer0(model) {
    layer0.asking = true;
    const r = await model.measureInductionWithout(layer0Heads(model.induction.at(-1).measurement.H));
    layer0.asking = false;
    if (runs.get('L2') !== model || !layer0.off) return;  // trained again, or switched back on, meanwhile
    if (!r.ok) {
      layer0.off = false;
      showError(r.error);
    }
    layer0.result = r.ok ? r : null;
    schedule(performance.now());
  }

  function toggleLayer0() {
    const model = runs.get('L2');
    layer0.off = !layer0.off && canAsk(model);
    layer0.result = null;
    if (layer0.off) askLayer0(model);
    draw();
  }

  function drawLayer0(model) {
    ui.layer0.disabled = !canAsk(model);
    ui.layer0.setAttribute('aria-pressed', String(layer0.off));
    ui.layer0.textContent = layer0.off ? 'Switch layer 0 back on' : 'Switch layer 0 off';
    const r = layer0.off ? layer0.result : null;
    if (layer0.off && !layer0.asking && (!r || r.step < model.induction.at(-1).step)) askLayer0(model);
    if (!r) {
      ui.layer0Result.replaceChildren(layer0.off ? el('p', { class: 'muted' }, 'Measuring with layer 0 switched off…') : '');
      return;
    }
    const { full: on, without: off } = r;
    const rows = [
      ['best layer-1 induction score', `${on.bestInduction.toFixed(3)} (head ${on.bestHead})`, `${off.bestInduction.toFixed(3)} (head ${off.bestHead})`],
      ['loss on the repeat, nats', on.lossRepeat.toFixed(3), off.lossRepeat.toFixed(3)],
      ['loss on the first copy, nats', on.lossFirst.toFixed(3), off.lossFirst.toFixed(3)],
    ];
    ui.layer0Result.replaceChildren(table(
      `The 2-layer model at step ${r.step}, measured by the core on the same ${constants().induction.probes} sequences as it is and with its ${on.H} layer-0 heads switched off for this measurement only (the model itself is unchanged).`,
      ['measurement', 'layer 0 on', 'layer 0 off'], rows, { class: 'scores-table layer0-table', label: 'The 2-layer model with and without layer 0', stack: true }));
  }

  // what was measured, in plain words: steps to the threshold (or that it was not reached), the copy losses
  function summarise(model, control) {
    const last = model.induction.at(-1), lastC = control.induction.at(-1);
    if (!last || !lastC) return;
    const t = threshold();
    const m = last.measurement, c = lastC.measurement;
    const crossed = model.induction.find((x) => x.measurement.bestInduction >= t);
    const bestPrev = Math.max(...m.previous.slice(0, m.H));
    const first = model.induction[0].measurement;
    const parts = [
      crossed ? `A layer-1 head crossed the induction threshold ${t} at step ${crossed.step}; now head ${m.bestHead} scores ${m.bestInduction.toFixed(2)}.`
        : `No layer-1 head has reached the induction threshold ${t}: the best is head ${m.bestHead} at ${m.bestInduction.toFixed(2)} (step ${last.step}).`,
      `The best layer-0 previous-token score is ${bestPrev.toFixed(2)} (threshold ${prevThreshold()}).`,
      `Loss on the repeat: ${first.lossRepeat.toFixed(2)} → ${m.lossRepeat.toFixed(2)} nats, against ${m.lossFirst.toFixed(2)} on the first copy.`,
      `The 1-layer control: repeat ${c.lossRepeat.toFixed(2)}, first copy ${c.lossFirst.toFixed(2)}, best induction score ${c.bestInduction.toFixed(2)}.`,
    ];
    if (c.lossRepeat < m.lossRepeat - 0.1) {
      parts.push(`The control, which cannot compose two layers into an induction head, predicts the repeat better than the 2-layer model so far (${c.lossRepeat.toFixed(2)} against ${m.lossRepeat.toFixed(2)} nats).`);
    }
    if (!crossed && m.lossRepeat < m.lossFirst - 0.5) {
      parts.push('The repeat got easier without an induction head forming: the model found another way (for example positional shortcuts), which these scores do not credit.');
    }
    if (['done', 'failed'].includes(model.status) && !crossed) parts.push('At this budget the phase change did not happen in this run; try more steps or another seed.');
    ui.summary.textContent = parts.join(' ');
  }


  function showError(message) { showAlert(ui.error, message ? app.readable(message) : ''); }

  for (const inp of form.inputs) inp.addEventListener('input', read);
  // a new setting brings the steps it needs (the user can still change them)
  for (const r of ui.task) {
    r.addEventListener('change', () => {
      app.state.ntask = r.value;
      app.state.nsteps = constants().inductionSettings[r.value].steps;
      app.save();
      show();
    });
  }
  ui.start.addEventListener('click', startAll);
  ui.layer0.addEventListener('click', toggleLayer0);
  ui.stop.addEventListener('click', () => { for (const r of runs.values()) r.stop(); });
  ui.resume.addEventListener('click', () => {
    for (const r of runs.values()) r.start();
    draw();
  });

  return { show, restore, runs: () => [...runs.values()] };
}
