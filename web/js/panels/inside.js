// The inside panel, "Look inside": the layers × heads grid of one run's attention on a typed sentence, a large map
// of the chosen head, per-head scores with automatic labels, ablation, tied heads, and a slider through the
// snapshots; below, every head's scores over training (the core's head trace, posted by the worker at every
// evaluation). Every request goes to the run's worker (its inspector), so the page never computes attention itself.
import { constants, taskRow } from '../engine.js';
import { RUN_EVENT, streams } from '../protocol.js';
import { drawScheduler } from '../runs.js';
import { attentionLegend } from '../views/attention_view.js';
import { buttonById as button, download, el, inputById as input, showAlert } from '../views/dom.js';
import { HeadGridView } from '../views/head_grid_view.js';
import { HeadTraceView } from '../views/head_trace_view.js';
import { HeatmapView } from '../views/heatmap_view.js';
import { setupPruning } from './pruning.js';

const SETTINGS = {
  liveRefreshMs: 1000,   // during training the maps follow the run at most this often
  runsEveryMs: 500,      // and the run list and its step line: progress arrives dozens of times a second
};

const $ = (id) => document.getElementById(id);

// characters as heatmap labels: blanks made visible
function shown(ch) {
  return ch === ' ' ? '␣' : ch === '\n' ? '↵' : ch === '\t' ? '⇥' : ch;
}

/**
 * @param {import('../main.js').App} app shared page state: { state, save(), runs: Map<string, Run>, readable(msg) }
 */
export function setupInside(app) {
  const ui = {
    empty: $('i-empty'), emptyText: $('i-empty-text'), upload: input('i-upload'), uploadError: $('i-upload-error'), body: $('i-body'), runs: $('i-runs'), text: input('i-text'), textInfo: $('i-text-info'),
    step: input('i-step'), stepOut: $('i-step-out'), tie: input('i-tie'), loss: $('i-loss'), error: $('i-error'),
    grid: $('i-grid'), detail: $('i-detail'), scores: $('i-scores'), png: button('i-png'), model: button('i-model'),
    thresholds: $('i-thresholds'), panel: $('panel-inside'),
  };
  $('i-legend').append(attentionLegend());
  const grid = new HeadGridView(ui.grid, { onSelect: (l, h) => { selected = { l, h }; drawDetail(); } });
  const big = new HeatmapView(ui.detail, { head: 0, title: 'layer 0, head 0' });
  let selected = { l: 0, h: 0 };
  let result = null;          // the last inspection: {maps, scores, valBase, valModified}
  const ablated = new Set();  // 'l,h'
  let snapIndex = -1;         // -1: live (the run's current weights)
  let busy = false, lastLive = 0, inView = false;
  // a look asked for while one was under way (again), or while nobody saw the panel (pending): 'loss' when with
  // the validation loss
  /** @type {boolean|'loss'} */
  let again = false;
  /** @type {boolean|'loss'} */
  let pending = false;

  const t = constants().thresholds;
  const traceView = new HeadTraceView({ charts: { previous: $('i-tr-previous'), first: $('i-tr-first'), entropy: $('i-tr-entropy'),
    distance: $('i-tr-distance') }, profiles: $('i-profiles'), probe: $('i-trace-probe') }, t);
  let traceFrame = 0;
  /** @type {import('../runs.js').Run | null} the run whose trace was drawn last */
  let tracedRun = null;
  ui.thresholds.textContent = `Labels, first match wins: induction head if its induction score ≥ ${t.induction}; ` +
    `previous-token head if previous ≥ ${t.previous}; first-token head if first ≥ ${t.first}; ` +
    `broad if its entropy ≥ ${t.broad} × the uniform maximum; otherwise mixed.`;

  let chosenKey = '';         // the run chosen by hand (a loaded file may have as many heads as a trained run)
  // every run there is to look at: panel 4's (and a loaded file) first, then the induction panel's two models (their
  // keys, L2 and L1, are not panel 4's); the inspector reads a task run on its probe sequence
  const allRuns = () => [...app.runs.values(), ...(app.inductionRuns?.() ?? [])];
  const byKey = (key) => allRuns().find((r) => r.key === key);
  const current = () => byKey(chosenKey) ?? app.runs.get(`H${app.state.irun}`) ?? app.runs.get('upload')
    ?? allRuns()[0] ?? null;
  const induction = (r) => taskRow(r.settings?.task).inductionProbes;
  const pruning = setupPruning(app, { current, allRuns });

  // ---------------------------------------------------------------- the run list and the slider
  // before any model: how to get one, naming only the training panels that are on the page (embedded alone,
  // panel=inside, there is none: the file is the way)
  function sayHowToStart() {
    const trainers = [app.shows('heads') ? 'panel 4' : '', app.shows('induction') ? 'panel 7' : ''].filter(Boolean);
    ui.emptyText.textContent = trainers.length
      ? `Train the models in ${trainers.join(' or ')}, or load a .safetensors model here, to look inside them.`
      : 'No model to look inside yet: load a .safetensors model here (one saved from this page with “Download this ' +
        'model”, or by mha-train --save).';
  }

  function drawRuns() {
    const all = allRuns().filter((r) => r.facts);
    ui.empty.hidden = all.length > 0;
    sayHowToStart();
    ui.body.hidden = all.length === 0;
    if (!all.length) return;
    const run = current();
    const keys = all.map((r) => r.key).join(',');
    if (ui.runs.dataset.keys !== keys) {
      ui.runs.dataset.keys = keys;
      ui.runs.replaceChildren(...all.map((r) => {
        const input = el('input', { type: 'radio', name: 'inside-run', value: r.key });
        input.addEventListener('change', () => {
          chosenKey = r.key;
          if (!induction(r)) app.state.irun = r.key === 'upload' ? (r.facts?.nHeads ?? app.state.irun) : r.settings.nHeads;
          app.save();
          ablated.clear();
          ui.tie.checked = false;
          snapIndex = -1;
          refresh(true);
          drawTrace();
          pruning.onChosen();
        });
        return el('label', {}, input, induction(r) ? `induction: ${r.label}` : r.label);
      }));
    }
    for (const input of ui.runs.querySelectorAll('input')) input.checked = input.value === run?.key;
    const n = run?.snapshots.length ?? 0;
    ui.step.max = String(n);  // 0..n-1 the snapshots, n: live
    if (snapIndex < 0) ui.step.value = String(n);
    const step = snapIndex < 0 ? run?.stepsDone : run?.snapshots[snapIndex]?.step;
    ui.stepOut.textContent = snapIndex < 0 ? `${step ?? 0} (latest${run?.status === 'running' ? ', training' : ''})` : `${step} (snapshot)`;
    ui.step.setAttribute('aria-valuetext', ui.stepOut.textContent);
    // the trace is drawn as its measurements come, but not while the body is hidden: a run whose every trace came
    // before the body first showed (a short run on a loaded machine, whose run list is drawn late), or a run chosen
    // now, is drawn here
    if (run !== tracedRun) drawTrace();
    pruning.onRunsChanged();
  }

  // the run list: at the next frame for a change of state, else at most every runsEveryMs (drawScheduler): on a
  // 2-core machine every frame drawn while the workers train is taken from them (scripts/bench_page.mjs)
  const scheduleRuns = drawScheduler(() => drawRuns(), SETTINGS.runsEveryMs);

  // the selected run's heads over training, at most once a frame; the profiles follow the snapshot slider
  function drawTrace() {
    if (traceFrame) return;
    traceFrame = requestAnimationFrame(() => {
      traceFrame = 0;
      const run = current();
      if (!run?.facts || ui.body.hidden) return;
      tracedRun = run;
      traceView.update({ traces: run.traces, text: taskRow(run.facts.task).text, at: snapIndex < 0 ? undefined : run.snapshots[snapIndex]?.step });
      document.documentElement.dataset.trace = String((Number(document.documentElement.dataset.trace) || 0) + 1);
    });
  }

  // ---------------------------------------------------------------- asking the worker
  async function refresh(withLoss) {
    if (ui.panel.hidden || !inView) {
      // nobody sees it: ask the worker when the panel comes into view (onShow), not now
      pending = pending === 'loss' || withLoss ? 'loss' : true;
      return;
    }
    const run = current();
    if (!run || !run.facts || run.status === 'failed' || run.status === 'restarting') return;
    if (busy) {
      again = again === 'loss' || withLoss ? 'loss' : true;
      return;
    }
    busy = true;
    const text = app.state.itext;
    const source = snapIndex < 0 ? 'live' : run.snapshots[snapIndex].bytes;  // postMessage copies it
    const ablate = [...ablated].map((k) => k.split(',').map(Number));
    const r = await run.inspect({ text, source, ablate, tie: ui.tie.checked, withLoss: !!withLoss });
    busy = false;
    if (r.ok) {
      result = { ...r, valBase: r.valBase ?? result?.valBase, valModified: r.valModified ?? result?.valModified, stale: !withLoss };
      showError('');
      draw(run);
    } else if (run === current()) {
      showError(app.readable(r.error));
    }  // else the run looked at went meanwhile (a new comparison replaced it): its error is not the chosen run's
    if (again) {
      const loss = again === 'loss';
      again = false;
      refresh(loss);
    }
  }

  // ---------------------------------------------------------------- drawing
  let textRun = true;  // the run looked at reads text (else its maps are of its probe sequence)
  function draw(run) {
    const { maps, scores } = result;
    const T = maps.T;
    grid.update({ L: maps.L, H: maps.H, T, att: maps.att, labels: scores.labels, ablated, tied: ui.tie.checked });
    if (selected.l >= maps.L || selected.h >= maps.H) selected = { l: 0, h: 0 };
    // a run of a task without text (offsets, induction) is looked at on its probe sequence: nothing to type
    textRun = !run?.facts || taskRow(run.facts.task).text;
    ui.text.disabled = !textRun;
    ui.textInfo.textContent = !textRun
      ? `does not apply: this model reads task tokens, not text; the maps show its probe sequence (${T} token ids, its first validation sequence)`
      : `${T} characters${maps.truncated ? ` (the first ${T}: the context)` : ''}` +
        `${maps.unknown ? `, ${maps.unknown} not in the vocabulary (read as the unknown symbol)` : ''}`;
    // the large map and the table in the next frames: no single long task while the workers train
    const shown = result;
    requestAnimationFrame(() => {
      if (result !== shown) return;
      drawDetail();
      requestAnimationFrame(() => {
        if (result !== shown) return;
        drawScores(maps, scores);
        document.documentElement.dataset.inside = String((Number(document.documentElement.dataset.inside) || 0) + 1);
      });
    });
    const base = result.valBase, mod = result.valModified;
    const changed = ablated.size > 0 || ui.tie.checked;
    if (base === undefined) ui.loss.textContent = '';
    else if (!changed) ui.loss.textContent = `Validation loss of this model: ${base.toFixed(3)}.`;
    else ui.loss.textContent = `Validation loss: ${base.toFixed(3)} as trained; ${mod.toFixed(3)} with ` +
      `${[ablated.size ? `${ablated.size} head${ablated.size > 1 ? 's' : ''} switched off` : '', ui.tie.checked ? 'all heads tied' : ''].filter(Boolean).join(' and ')} ` +
      `(${mod >= base ? '+' : '−'}${Math.abs(mod - base).toFixed(3)}).`;
    ui.model.disabled = !run;
  }

  function drawDetail() {
    if (!result) return;
    const { maps } = result;
    const { l, h } = selected, T = maps.T, TT = T * T;
    big.update({ tokens: maps.tokens.map(shown), T, weights: maps.att.subarray((l * maps.H + h) * TT, (l * maps.H + h + 1) * TT),
      title: `layer ${l}, head ${h}`, unit: textRun ? 'character' : 'position' });
  }

  function drawScores(maps, scores) {
    const columns = ['layer', 'head', 'previous-token', 'first-token', 'entropy (nats) / uniform',
      `induction (probe of ${scores.probeLen})`, 'label', 'switched on'];
    const head = el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)));
    // on a phone each row stacks into "column  value" lines (table.stack, style.css): every cell names its column
    const cell = (i, content) => el(i === 1 ? 'th' : 'td', { ...(i === 1 ? { scope: 'row' } : {}), 'data-label': columns[i] }, content);
    const body = el('tbody');
    for (let l = 0; l < maps.L; ++l)
      for (let h = 0; h < maps.H; ++h) {
        const i = l * maps.H + h, key = `${l},${h}`;
        const box = el('input', { type: 'checkbox', 'aria-label': `Layer ${l} head ${h} switched on`, 'data-ablate': key });
        box.checked = !ablated.has(key);
        box.addEventListener('change', () => {
          if (box.checked) ablated.delete(key); else ablated.add(key);
          refresh(true);
        });
        body.append(el('tr', {}, cell(0, l), cell(1, h),
          cell(2, scores.previous[i].toFixed(2)), cell(3, scores.first[i].toFixed(2)),
          cell(4, `${scores.entropy[i].toFixed(2)} / ${scores.maxEntropy[i].toFixed(2)}`),
          cell(5, scores.induction[i].toFixed(2)), cell(6, ablated.has(key) ? `${scores.labels[i]} (off)` : scores.labels[i]),
          cell(7, box)));
      }
    ui.scores.replaceChildren(
      el('p', { class: 'table-caption', id: 'i-scores-caption' }, 'Scores of every head. Previous-token, first-token and ' +
        `entropy are measured on ${textRun ? 'your sentence' : 'the model\'s probe sequence (its task has no text)'}; ` +
        'the induction score on a fixed random sequence [unknown symbol, r, r] ' +
        'whose second half repeats the first. Untick a head to switch it off (its output becomes zero) and see the ' +
        'validation loss change.'),
      el('table', { class: 'scores-table stack', 'aria-label': 'Scores of every head', 'aria-describedby': 'i-scores-caption' },
        el('thead', {}, head), body));
  }

  function showError(message) { showAlert(ui.error, message); }

  // ---------------------------------------------------------------- events
  new IntersectionObserver((entries) => {
    inView = entries.some((e) => e.isIntersecting);
    if (inView) api.onShow();
  }).observe(ui.panel);
  ui.text.value = app.state.itext;
  let typing = 0;
  ui.upload.addEventListener('change', () => {
    const report = (message) => showAlert(ui.uploadError, message ? app.readable(message) : '');
    app.loadModel(ui.upload.files[0], report);
    ui.upload.value = '';
  });
  ui.text.addEventListener('input', () => {
    app.state.itext = ui.text.value;
    app.save();
    clearTimeout(typing);
    typing = setTimeout(() => refresh(false), 120);
  });
  ui.step.addEventListener('input', () => {
    const run = current();
    const v = Number(ui.step.value);
    snapIndex = run && v < run.snapshots.length ? v : -1;
    drawRuns();
    refresh(true);
    drawTrace();
  });
  ui.tie.addEventListener('change', () => refresh(true));
  ui.png.addEventListener('click', () => {
    const canvas = ui.detail.querySelector('canvas');
    canvas?.toBlob((b) => b && download(b, `attention-${current()?.key ?? 'run'}-layer${selected.l}-head${selected.h}.png`));
  });
  ui.model.addEventListener('click', async () => {
    const run = current();
    if (!run) return;
    const r = await run.requestSnapshot(true);
    if (!r.ok) return showError(app.readable(r.error));
    download(new Blob([r.bytes], { type: 'application/octet-stream' }), `mha-sandbox-${run.key}-step${r.step}.safetensors`);
  });

  const api = {
    /** a run changed: new runs, progress, a snapshot, the end */
    onRunEvent(e) {
      scheduleRuns(!streams(e.type));
      const run = current();
      if (!run || e.run !== run) return;
      if ([RUN_EVENT.trace, RUN_EVENT.ready, RUN_EVENT.restored, RUN_EVENT.died].includes(e.type)) drawTrace();
      const settled = [RUN_EVENT.ready, RUN_EVENT.done, RUN_EVENT.restored, RUN_EVENT.restarted];
      if (settled.includes(e.type)) refresh(true);
      else if ((e.type === RUN_EVENT.progress || e.type === RUN_EVENT.val) && snapIndex < 0 && performance.now() - lastLive > SETTINGS.liveRefreshMs) {
        lastLive = performance.now();
        refresh(e.type === RUN_EVENT.val);
      }
    },
    /** the panel became visible: catch up on what it skipped while hidden */
    onShow() {
      sayHowToStart();
      if (!pending) return;
      const loss = pending === 'loss';
      pending = false;
      refresh(loss);
    },
    onReset() {
      result = null;
      chosenKey = '';
      ablated.clear();
      ui.tie.checked = false;
      snapIndex = -1;
      pruning.onReset();
      drawRuns();
    },
  };
  return api;
}
