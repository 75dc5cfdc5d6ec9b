// The induction panel, "Induction heads": a 2-layer attention-only model and a 1-layer control trained on the
// shifted repeated-random-segment task (core/train/induction_task.hpp), each in its own worker. Live, from the core:
// per-head previous-token scores (layer 0) and induction scores (last layer), the first-copy and repeated-copy
// losses, and the attention of the best last-layer head on the probe [BOS, r, r]. The summary says what was measured
// against the threshold, whatever it is. "Switch layer 0 off" asks the 2-layer model's worker for the core's
// measurement with every layer-0 head switched off (for that measurement only) beside the one as it is. Wiring only.
import { checkRun, constants, phaseChange, refusal } from '../engine.js';
import { publishFinding } from '../findings.js';
import { Comparison } from '../comparison.js';
import { RUN_EVENT, streams } from '../protocol.js';
import { drawScheduler, stepsBetween } from '../runs.js';
import { failureSentence, panelStatus, runState, STATE_WORD } from '../run_state.js';
import { ASK_ABOVE_SECONDS, duration, estimate, measuredSpeed } from './heads_budget.js';
import { HeatmapView } from '../views/heatmap_view.js';
import { LinesView } from '../views/lines_view.js';
import { PhaseChangeView } from '../views/phase_change_view.js';
import { buttonById, count, el, inputById, inputsNamed, showAlert, showRejection, table } from '../views/dom.js';
import { numberFields } from '../views/number_fields.js';
import { restoredMark } from '../views/saved_runs_view.js';
import { liveToggle } from '../views/live_toggle.js';

// The model, the task and the schedule are the core's preset of the chosen setting (constants().presets
// 'induction-short', 'induction-long': a 2-layer attention-only model; its control has 1 layer); the steps, the
// learning rate (constant) and the seed are the form's.
const SETTINGS = {
  evalPoints: 25,     // measurements per run (plus step 0)
  // tokens/s of one worker before any run here, for the time estimate: the default (short: 3,500 steps of B = 64,
  // T = 16, 3,584,000 tokens per run) took 30.2 s and 32.5 s of wall time for both runs in headless Chromium on an
  // idle 2-core machine (`node scripts/bench_page.mjs --loads 0 --only induction`, 2026-11-27; docs/experiments.md,
  // "The budget across seeds"): 3,584,000 / 31.35 s. Wall time, so a run's start-up and measurements are in it.
  fallbackTokensPerSecond: 114000,
};

const $ = (id) => document.getElementById(id);

/**
 * What the panel publishes as its 'phase' finding (findings.js), from the core's phase change of the 2-layer model
 * (core/lab/phase_change.hpp), at every new measurement and when the run ends.
 * @typedef {{crossStep: number, dropStep: number, lag: number, evalEvery: number, threshold: number, happened: boolean,
 *   seed: number, lastStep: number, done: boolean, sentence: string}} PhaseFinding
 *   crossStep, dropStep: −1 when it did not happen (yet); lag: dropStep − crossStep when happened, else 0; done: the
 *   run ended (before that the steps are provisional)
 */

/**
 * @param {object} app shared page state: { state, save(), readable(msg) }
 */
export function setupInduction(app) {
  const ui = {
    task: inputsNamed('ntask'),
    steps: inputById('n-steps'), lr: inputById('n-lr'), seed: inputById('n-seed'), start: buttonById('n-start'), stop: buttonById('n-stop'), estimate: $('n-estimate'),
    confirm: $('n-confirm'), confirmText: $('n-confirm-text'), confirmGo: buttonById('n-confirm-go'), confirmCancel: buttonById('n-confirm-cancel'),
    error: $('n-error'), status: $('n-status'), runs: $('n-runs'), summary: $('n-summary'), scores: $('n-scores'),
    layer0: buttonById('n-layer0'), layer0Result: $('n-layer0-result'), phaseCommand: $('n-phase-command'),
  };
  const form = numberFields([[ui.steps, 'nsteps', 'Steps'], [ui.seed, 'nseed', 'The seed'], [ui.lr, 'nlr', 'The learning rate']]);
  const charts = {
    loss: new LinesView($('n-loss'), { yLabel: 'loss (nats)', describe: 'Copy losses' }),
    ind: new LinesView($('n-ind'), { yLabel: 'induction score', yRange: [0, 1], describe: 'Induction scores' }),
    prev: new LinesView($('n-prev'), { yLabel: 'previous-token score', yRange: [0, 1], describe: 'Previous-token scores' }),
    phase: new PhaseChangeView($('n-phase')),
  };
  const maps = { L2: new HeatmapView($('n-map2'), { head: 0, title: '2 layers: best last-layer head' }),
    L1: new HeatmapView($('n-map1'), { head: 1, title: '1-layer control: best head' }) };
  // the model (L2) and its control (L1), one comparison (comparison.js): both start together once both workers are
  // set up (they share the cores from their first step); its runs by key
  const comp = new Comparison({ panel: 'induction', keeper: app.keeper, slots: 2, together: true, onEvent: (e) => onEvent(e) });
  const { runs } = comp;
  // "switch layer 0 off": off (pressed), the last reply ({ok, step, full, without}), a request under way
  const layer0 = { off: false, result: null, asking: false };

  // the core's preset of the chosen setting: the model, the task and the schedule
  const preset = () => constants().presets[`induction-${app.state.ntask}`];

  function show() {
    const s = app.state;
    for (const r of ui.task) r.checked = r.value === s.ntask;
    form.show(s);
    showEstimate();
  }

  function read() {
    const s = app.state;
    form.read(s);
    app.save();
    showEstimate();
  }

  // ---------------------------------------------------------------- how long it will take here
  // the 2-layer model of the latest run that trained here (kept across Train again), the speed the estimate uses
  let timed = null;
  const slots = () => Math.max(1, navigator.hardwareConcurrency || 1);

  // the two runs (the model and its control) of these settings: how long here, from this browser's speed
  // (heads_budget.js: the median speed of its finished runs, else the measured fallback), or null while the form is
  // not valid
  function timeEstimate() {
    const s = app.state;
    if (form.error(s)) return null;
    const { context, batch, dModel } = preset().settings;
    const model = runs.get('L2');
    const speed = measuredSpeed(model?.trained ? [model] : timed ? [timed] : [], { cD: dModel, layers: 2, context, batch });
    const e = estimate({ steps: s.nsteps, batch, context, heads: [2, 1], seeds: 1 }, speed, slots(),
      { speed: SETTINGS.fallbackTokensPerSecond, source: 'measured in headless Chromium on an idle 2-core machine' });
    const how = `${count(Math.round(e.speed))} tokens/s per worker, ${e.source}; ${Math.min(2, slots())} at a time`;
    return { ...e, how, sentence: `2 runs of ${count(s.nsteps)} steps (the 2-layer model and its control): about ${duration(e.seconds)} here (${how}).` };
  }

  function showEstimate() {
    ui.estimate.textContent = timeEstimate()?.sentence ?? '';
  }

  function runSettings() {
    const s = app.state;
    const err = form.error(s);
    if (err) return { error: err };
    const p = preset().settings;
    const settings = {
      ...p, steps: s.nsteps, warmup: Math.min(p.warmup, s.nsteps), lr: s.nlr, minLr: s.nlr, seed: s.nseed,
      evalEvery: stepsBetween(s.nsteps, SETTINGS.evalPoints), snapshotEvery: stepsBetween(s.nsteps, 5),
    };
    const error = refusal([checkRun(settings)]);
    return error ? { error } : { settings };
  }

  // confirmed: the user said yes to a run longer than ASK_ABOVE_SECONDS (the question is asked in the page)
  function startAll(confirmed = false) {
    showError('');
    ui.confirm.hidden = true;
    const checked = runSettings();
    if ('error' in checked) return showRejection(ui.error, app.readable(checked.error), form.invalid(app.state) ?? ui.steps);
    const { settings } = checked;
    const e = timeEstimate();
    if (!confirmed && e && e.seconds > ASK_ABOVE_SECONDS) {
      ui.confirmText.textContent = `This will take about ${duration(e.seconds)} here: 2 runs of ${count(app.state.nsteps)} steps ` +
        `(${e.how}). Keep this tab open while it trains. Train anyway?`;
      ui.confirm.hidden = false;
      ui.confirmGo.focus();
      return;
    }
    const model = runs.get('L2');
    if (model?.trained) timed = model;
    Object.assign(layer0, { off: false, result: null });
    delete document.documentElement.dataset.induction;
    publishFinding('induction', null);  // the lesson waits for the new runs
    published = '';
    publishFinding('phase', null);  // the earlier run's finding no longer holds
    const entries = [['L2', 2, '2 layers'], ['L1', 1, '1-layer control']].map(([key, layers, label]) =>
      ({ key, label, index: 0, seed: settings.seed, settings: { ...settings, nLayers: layers } }));
    comp.start({ entries, text: '', meta: {}, keepText: true });
    draw();
  }

  function onEvent(e) {
    // the same failure of both runs is said once
    if (e.type === RUN_EVENT.failed) showError(failureSentence(comp.entries(), app.readable));
    schedule(!streams(e.type));
    app.runsChanged?.(e);  // "Look inside" lists these runs too: it hears their events as it hears panel 4's
  }
  // runs restored after a reload that were training: they wait for this button
  ui.resume = el('button', { type: 'button', class: 'button', id: 'n-resume', hidden: '' }, 'Continue the restored runs');
  ui.stop.after(ui.resume);

  // the two runs this panel had before the reload, back (comparison.js: a finished one as it ended, a training one
  // paused at its last full snapshot)
  async function restore(records) {
    if (await comp.restore(records, async () => '')) draw();
  }


  // redraws at most every runs.js SETTINGS.liveDrawMs, in an animation frame (see drawScheduler)
  const schedule = drawScheduler(() => draw());
  ui.stop.after(liveToggle());  // the page's pause for moving charts (WCAG 2.2.2)

  // ---------------------------------------------------------------- drawing
  const threshold = () => constants().thresholds.induction;
  const prevThreshold = () => constants().thresholds.previous;
  const H = preset().settings.nHeads;

  function series(run, pick) {
    return { step: run.induction.map((m) => m.step), value: run.induction.map((m) => pick(m.measurement)) };
  }

  function draw() {
    const model = runs.get('L2'), control = runs.get('L1');
    const base = model?.facts?.baselineLoss;
    // the one status sentence and the buttons, from the run-state machine (run_state.js); the baseline is the
    // uniform guess the loss chart shows, held against the final validation loss of the task
    const restoredWaiting = comp.held;
    const st = panelStatus(comp.entries(), { baseline: base ?? null, baselineName: 'the uniform guess',
      paused: restoredWaiting ? 'Restored from this browser, paused: "Continue the restored runs" trains on.' : '',
      done: () => `Done in ${Math.max(...[...runs.values()].map((r) => r.wallSeconds)).toFixed(1)} s of wall time.` });
    ui.stop.disabled = !st.buttons.stop.enabled;
    ui.start.textContent = runs.size ? 'Train again' : 'Train';
    ui.resume.hidden = !restoredWaiting;
    ui.runs.replaceChildren(...[...runs.values()].map((r) => el('p', { class: 'run-facts', 'data-run': r.key, 'data-state': runState(r, base ?? null) },
      el('strong', {}, r.label), r.restoredAt ? ` · ${restoredMark(r)}` : '', ` · ${STATE_WORD[runState(r, base ?? null)]} · step ${count(r.stepsDone)} / ${count(r.settings.steps)}`,
      Number.isFinite(r.msPerStep()) ? ` · ${r.msPerStep().toFixed(1)} ms per step` : '')));
    ui.status.textContent = [comp.note, st.sentence].filter(Boolean).join(' ');
    ui.status.dataset.state = st.state;
    if (['done', 'no-better', 'failed'].includes(st.state)) document.documentElement.dataset.induction = 'done';
    showEstimate();  // this browser's speed, once a run has trained
    if (!model || !control) return;
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
    drawPhase(model);
    drawProbe(maps.L2, model);
    drawProbe(maps.L1, control);
    drawScores(model, control);
    drawLayer0(model);
    summarise(model, control);
  }

  // ---------------------------------------------------------------- the phase change
  // the 2-layer model's series, the core's crossing, drop and lag, the command that reruns it natively; published as
  // the 'phase' finding whenever a measurement arrives or the run ends
  let published = '';
  function drawPhase(model) {
    const pts = model.induction;
    const series = { step: pts.map((x) => x.step), score: pts.map((x) => x.measurement.bestInduction),
      lossFirst: pts.map((x) => x.measurement.lossFirst), lossRepeat: pts.map((x) => x.measurement.lossRepeat) };
    const { evalEvery, seed, steps, lr } = model.settings;
    const r = pts.length ? phaseChange(series, threshold(), evalEvery) : null;
    charts.phase.update({ series, marks: r && 'crossStep' in r ? r : null, error: r && 'error' in r ? app.readable(r.error) : '' });
    // each flag with its value kept on one line (a line may otherwise break inside "--min-lr")
    const flags = [`--preset induction-${app.state.ntask}`, `--steps ${steps}`, `--lr ${lr}`, `--min-lr ${lr}`, `--seed ${seed}`,
      `--eval-every ${evalEvery}`];
    ui.phaseCommand.replaceChildren('build/native/core/mha-train', ...flags.flatMap((f) => [' ', el('span', { class: 'flag' }, f)]));
    const done = ['done', 'failed'].includes(model.status);
    if (!r || !('crossStep' in r) || published === `${pts.length}|${done}`) return;
    published = `${pts.length}|${done}`;
    /** @type {PhaseFinding} */
    const finding = { crossStep: r.crossStep, dropStep: r.dropStep, lag: r.lag, evalEvery, threshold: r.threshold,
      happened: r.happened, seed, lastStep: r.lastStep, done, sentence: r.sentence };
    publishFinding('phase', finding);
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
      `Scores at the latest measurement, averaged over ${constants().induction.probes} sequences of the task (a segment of each trained length at a random place). A head counts as an induction head at an induction score of ${threshold()} or more, as a previous-token head at a previous-token score of ${prevThreshold()} or more (core/lab/metrics.hpp).`,
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
    schedule(true);  // the answer is drawn at the next frame
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
    // for the lesson (findings.js): which model crossed the threshold, as the core measured it
    const crossing = (run) => {
      const at = run.induction.find((x) => x.measurement.bestInduction >= t);
      return { crossed: !!at, crossedStep: at ? at.step : -1, best: run.induction.at(-1).measurement.bestInduction };
    };
    publishFinding('induction', { done: model.status === 'done' && control.status === 'done', threshold: t,
      steps: model.settings.steps, seed: model.settings.seed, model: crossing(model), control: crossing(control) });
  }


  function showError(message) { showAlert(ui.error, message ? app.readable(message) : ''); }

  for (const inp of form.inputs) inp.addEventListener('input', read);
  // a new setting brings the steps it needs (the user can still change them)
  for (const r of ui.task) {
    r.addEventListener('change', () => {
      app.state.ntask = r.value;
      app.state.nsteps = preset().settings.steps;
      app.state.nlr = preset().settings.lr;
      app.save();
      show();
      ui.confirm.hidden = true;
    });
  }
  ui.start.addEventListener('click', () => startAll());
  ui.confirmGo.addEventListener('click', () => startAll(true));
  ui.confirmCancel.addEventListener('click', () => { ui.confirm.hidden = true; ui.start.focus(); });
  ui.layer0.addEventListener('click', toggleLayer0);
  ui.stop.addEventListener('click', () => comp.stop());
  ui.resume.addEventListener('click', () => { comp.resume(); draw(); });

  return { show, restore, runs: () => [...runs.values()] };
}
