// The heads panel, "Heads, compared": the settings, one Run (one worker) per head count, live curves, progress, the
// final table and samples; CSV of the curves; a .safetensors file loaded as one more run. Wiring only: the numbers
// come from the core in the workers, the pictures from the views.
import { checkRun, constants } from '../engine.js';
import { loadCorpus, utf8Bytes } from '../data.js';
import { allReady, drawScheduler, Run, RUN_EVENT, statusWord, stepsBetween } from '../runs.js';
import { prop } from '../state.js';
import { CurvesView } from '../views/curves_view.js';
import { count, download, el, showAlert, table } from '../views/dom.js';
import { numberFields } from '../views/number_fields.js';

const SETTINGS = {
  evalPoints: 15,          // validation measurements per run (plus step 0)
  snapshots: 10,           // snapshots per run for scrubbing (plus step 0)
  warmupFraction: 0.1,     // warm-up steps as a fraction of the schedule
  minLrFraction: 0.1,      // the cosine ends at this fraction of the peak learning rate
  drawMs: 250,             // redraw curves and progress at most this often while training
};

const $ = (id) => document.getElementById(id);
const mib = (bytes) => bytes / 2 ** 20;

/**
 * @param {object} app shared page state: { state, save(), runs: Map<string, Run>, runsChanged(event), readable(msg) }
 */
export function setupHeads(app) {
  const ui = {
    heads: $('c-heads'), D: $('c-D'), layers: $('c-layers'), context: $('c-context'), batch: $('c-batch'),
    steps: $('c-steps'), lr: $('c-lr'), seed: $('c-seed'), corpus: [...document.querySelectorAll('input[name="corpus"]')],
    text: $('c-text'), textField: $('c-text-field'), textInfo: $('c-text-info'),
    start: $('c-start'), pause: $('c-pause'), stop: $('c-stop'), csv: $('c-csv'), upload: $('c-upload'),
    error: $('c-error'), status: $('c-status'), runs: $('c-runs'), final: $('c-final'), samples: $('c-samples'),
  };
  const curves = new CurvesView($('c-chart'), { valuesRoot: $('c-values') });
  const form = numberFields([[ui.D, 'cD', 'D'], [ui.layers, 'layers', 'Layers'], [ui.context, 'context', 'The context T'],
    [ui.batch, 'batch', 'The batch B'], [ui.steps, 'steps', 'Steps'], [ui.seed, 'cseed', 'The seed'],
    [ui.lr, 'lr', 'The learning rate']]);
  let corpusText = '';

  // ---------------------------------------------------------------- settings <-> controls
  function show() {
    const s = app.state;
    ui.heads.value = s.heads.join(',');
    form.show(s);
    for (const r of ui.corpus) r.checked = r.value === s.corpus;
    ui.textField.hidden = s.corpus !== 'pasted';
    checkText();
  }

  function read() {
    const s = app.state;
    s.heads = ui.heads.value.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
    form.read(s);
    s.corpus = ui.corpus.find((r) => r.checked)?.value ?? 'shipped';
    ui.textField.hidden = s.corpus !== 'pasted';
    app.save();
    checkText();
    app.paramsChanged?.();
  }

  // the settings as the workers take them (without nHeads: one run per head count), or a sentence about what is
  // wrong: the form's ranges, then the core's verdict on each run (D divisible by H, naming the nearest H that is)
  function runSettings() {
    const s = app.state;
    const counts = prop('heads');
    const err = form.error(s)
      ?? (s.heads.length >= counts.minCount && s.heads.length <= counts.maxCount
        && s.heads.every((h) => Number.isInteger(h) && h >= counts.min && h <= counts.max)
        ? null : `Head counts: ${counts.minCount} to ${counts.maxCount} whole numbers from ${counts.min} to ${counts.max}, separated by commas.`)
      ?? (new Set(s.heads).size === s.heads.length ? null : 'Each head count once, please.');
    if (err) return { error: err };
    const settings = {
      dModel: s.cD, nLayers: s.layers, context: s.context, mlp: true, batch: s.batch, steps: s.steps,
      warmup: Math.round(s.steps * SETTINGS.warmupFraction), lr: s.lr, minLr: s.lr * SETTINGS.minLrFraction, seed: s.cseed,
      evalEvery: stepsBetween(s.steps, SETTINGS.evalPoints), snapshotEvery: stepsBetween(s.steps, SETTINGS.snapshots),
    };
    const bad = s.heads.map((H) => checkRun({ ...settings, nHeads: H })).find((r) => !r.ok);
    return bad ? { error: bad.error } : settings;
  }

  function checkText() {
    if (app.state.corpus !== 'pasted') {
      ui.textInfo.textContent = corpusText ? `${count(corpusText.length)} characters.` : '';
      return;
    }
    const bytes = utf8Bytes(ui.text.value);
    const { maxTextBytes, valFraction } = constants().limits;
    // the core holds out the last valFraction of the text for validation, and needs T + 1 characters there
    const need = Math.ceil((app.state.context + 1) / valFraction);
    ui.textInfo.textContent = `${count(ui.text.value.length)} characters (${count(bytes)} bytes of UTF-8). ` +
      `Needed: at least about ${count(need)} characters for T = ${app.state.context}; at most ${count(maxTextBytes)} bytes (${mib(maxTextBytes)} MiB).`;
  }

  // ---------------------------------------------------------------- runs
  const runs = () => [...app.runs.values()];

  async function startAll() {
    showError('');
    const settings = runSettings();
    if (settings.error) return showError(settings.error);
    let text;
    if (app.state.corpus === 'pasted') {
      text = ui.text.value;
      const limit = constants().limits.maxTextBytes;
      if (utf8Bytes(text) > limit) {
        return showError(`The text is ${mib(utf8Bytes(text)).toFixed(1)} MiB; at most ${mib(limit)} MiB is supported. Use a shorter text.`);
      }
    } else {
      try {
        text = corpusText = await loadCorpus();
      } catch (e) {
        return showError(String(e.message ?? e));
      }
    }
    for (const r of runs()) r.dispose();
    app.runs.clear();
    for (const H of app.state.heads) {
      const run = new Run({ key: `H${H}`, label: `H = ${H}`, settings: { ...settings, nHeads: H }, text, onEvent });
      app.runs.set(run.key, run);
    }
    app.runsChanged({ type: RUN_EVENT.reset });
    ui.status.textContent = 'Setting up the workers…';
    draw();
  }

  async function loadFile(file) {
    showError('');
    if (!file) return;
    const settings = runSettings();
    if (settings.error) return showError(settings.error);
    const bytes = new Uint8Array(await file.arrayBuffer());
    let text;
    try {
      text = app.state.corpus === 'pasted' ? ui.text.value : await loadCorpus();
    } catch (e) {
      return showError(String(e.message ?? e));
    }
    app.runs.get('upload')?.dispose();
    const name = file.name.length > 40 ? `${file.name.slice(0, 39)}…` : file.name;
    // the file brings its own model (its sizes replace the form's when it is set up: onEvent)
    const run = new Run({ key: 'upload', label: `file ${name}`, settings, text, checkpoint: bytes, onEvent });
    app.runs.set('upload', run);
    app.runsChanged({ type: RUN_EVENT.reset });
    draw();
  }

  function onEvent(e) {
    const { run, type } = e;
    if (type === RUN_EVENT.ready) {
      // a loaded file brings its own model: take its sizes for the table and the worker's settings
      if (run.key === 'upload') {
        run.settings = { ...run.settings, nHeads: run.facts.nHeads, dModel: run.facts.dModel, nLayers: run.facts.nLayers, context: run.facts.context };
        run.label = `file (H = ${run.facts.nHeads})`;
      } else if (allReady(runs())) {
        for (const r of runs()) if (r.key !== 'upload') r.start();
      }
    }
    if (type === RUN_EVENT.failed) showError(`${run.label}: ${e.error}`);
    if (type === RUN_EVENT.died) {
      ui.status.textContent = `The worker of ${run.label} stopped unexpectedly at step ${e.atStep} (${e.reason}). ` +
        `It was restarted from its snapshot at step ${e.fromStep}; the curves so far are kept.`;
    }
    if (type === RUN_EVENT.restarted) ui.status.textContent += ` ${run.label} is running again.`;
    app.runsChanged(e);
    schedule(type !== RUN_EVENT.progress && type !== RUN_EVENT.val && type !== RUN_EVENT.snapshot);
  }

  // redraws at most every SETTINGS.drawMs, in an animation frame (see drawScheduler)
  const schedule = drawScheduler(() => draw(), SETTINGS.drawMs);

  function draw() {
    const all = runs();
    const baseline = all.find((r) => r.facts)?.facts.baselineLoss ?? null;
    curves.update({ runs: all.map((r) => ({ label: r.label, train: r.train, val: r.val })), baseline });
    const active = all.some((r) => ['starting', 'ready', 'running', 'restarting'].includes(r.status));
    const running = all.some((r) => r.status === 'running');
    const paused = all.some((r) => r.status === 'paused' || r.status === 'ready');
    ui.pause.disabled = !running && !paused;
    ui.pause.textContent = running || !paused ? 'Pause' : 'Resume';
    ui.pause.setAttribute('aria-pressed', String(!running && paused));
    ui.stop.disabled = !all.some((r) => ['running', 'paused', 'ready', 'diverged'].includes(r.status));
    ui.csv.disabled = !all.some((r) => r.val.step.length);
    ui.start.textContent = all.length ? 'Train again' : 'Train';
    const nodes = all.map(runCard);
    if (nodes.length !== ui.runs.children.length || nodes.some((n, i) => ui.runs.children[i] !== n)) ui.runs.replaceChildren(...nodes);
    for (const r of cards.keys()) if (!all.includes(r)) cards.delete(r);
    drawFinal(all);
    if (!all.length) ui.status.textContent = '';
    else if (all.every((r) => r.status === 'done')) {
      const wall = Math.max(...all.map((r) => r.wallSeconds));
      ui.status.textContent = `Done: ${all.length} runs in ${wall.toFixed(1)} s of wall time.`;
      document.documentElement.dataset.comparison = 'done';
    } else if (active && !ui.status.textContent.includes('restarted')) ui.status.textContent = running ? 'Training…' : ui.status.textContent;
  }

  // one card per run, updated in place (a button inside keeps its focus while the other runs train on)
  const cards = new Map();
  function runCard(run) {
    let c = cards.get(run);
    if (!c) {
      c = { title: el('h3', {}), progress: el('progress', {}), facts: el('p', { class: 'run-facts' }), extra: el('div', {}), shown: '' };
      c.card = el('div', { class: 'run-card', 'data-run': run.key }, c.title, c.progress, c.facts, c.extra);
      cards.set(run, c);
    }
    const steps = run.settings.steps;
    const pct = Math.min(100, (100 * run.stepsDone) / steps);
    const left = run.secondsLeft();
    const val = run.val.loss.at(-1);
    c.card.className = `run-card status-${run.status}`;
    c.title.replaceChildren(run.label, ' ', el('span', { class: 'muted' }, run.facts ? `${count(run.facts.params)} parameters` : ''));
    c.progress.max = steps;
    c.progress.value = run.stepsDone;
    c.progress.setAttribute('aria-label', `${run.label}: ${Math.round(pct)}% of the steps done`);
    c.facts.textContent = [
      statusWord(run),
      `step ${run.stepsDone} / ${steps}`,
      run.seconds > 0 ? `${count(run.tokensPerSecond())} tokens/s` : '',
      run.status === 'running' && Number.isFinite(left) ? `about ${Math.ceil(left)} s left` : '',
      val !== undefined ? `val ${val.toFixed(3)}` : '',
    ].filter(Boolean).join(' · ');
    const shown = `${run.status}|${run.diverged?.step}|${run.error}`;
    if (c.shown !== shown) {
      c.shown = shown;
      c.extra.replaceChildren(...extras(run));
    }
    return c.card;
  }

  // what a card says beyond the numbers: a blow-up and the way back, a failure, a loaded file's choices
  function extras(run) {
    const out = [];
    const steps = run.settings.steps;
    if (run.status === 'diverged' && run.diverged) {
      const d = run.diverged;
      const back = run.lastGood?.step ?? null;
      out.push(el('p', { class: 'alert', role: 'alert' },
        `The loss blew up at step ${d.step + 1}: ${Number.isFinite(d.loss) ? d.loss.toFixed(1) : 'not a number'}, above ` +
        `${d.limit.toFixed(2)} (${constants().divergenceFactor} × ln V, where ln V is the loss of guessing uniformly). ` +
        'The learning rate is too high for this model; the run is paused.'));
      if (back !== null) {
        const lower = +(run.settings.lr / 10).toPrecision(2);
        const b = el('button', { type: 'button', class: 'button', 'data-action': 'restore' },
          `Go back to the snapshot at step ${back} and continue with learning rate ${lower}`);
        b.addEventListener('click', async () => {
          const r = await run.restoreLastGood({ lr: lower });
          if (!r.ok) return showError(r.error);
          run.start();
        });
        out.push(b);
      }
    }
    if (run.key === 'upload' && run.status === 'ready') {
      const b = el('button', { type: 'button', class: 'button', 'data-action': 'continue' }, `Continue training it to step ${steps}`);
      b.addEventListener('click', () => run.start());
      out.push(el('p', { class: 'run-facts' }, `Loaded at step ${run.stepsDone}: look inside it in panel 6, or train it further on the chosen text.`), b);
    }
    if (run.status === 'failed') out.push(el('p', { class: 'alert', role: 'alert' }, app.readable(run.error)));
    return out;
  }

  function drawFinal(all) {
    const done = all.filter((r) => r.status === 'done');
    ui.samples.replaceChildren(...done.filter((r) => r.sample).map((r) => el('figure', { class: 'sample' },
      el('figcaption', {}, `Sample from ${r.label} after ${r.stepsDone} steps`), el('pre', {}, r.sample))));
    if (!done.length) return ui.final.replaceChildren();
    const rows = all.map((r) => [r.label, r.facts ? count(r.facts.params) : '–',
      r.val.loss.length ? r.val.loss.at(-1).toFixed(3) : '–',
      r.train.loss.length ? r.train.loss.at(-1).toFixed(3) : '–',
      r.status === 'done' ? `${r.wallSeconds.toFixed(1)} s` : statusWord(r),
      r.seconds > 0 ? count(r.tokensPerSecond()) : '–']);
    const same = new Set(all.filter((r) => r.facts).map((r) => r.facts.params)).size === 1;
    ui.final.replaceChildren(table(
      `Final numbers. ${same ? 'The parameter counts are equal: the heads split D, they do not add weights.' : ''}`,
      ['run', 'parameters', 'final validation loss', 'last training loss', 'wall time', 'tokens/s'], rows, { class: 'final-table' }));
  }


  function showError(message) { showAlert(ui.error, message ? app.readable(message) : ''); }

  // ---------------------------------------------------------------- CSV
  function csv() {
    const lines = ['run,heads,step,train_loss,val_loss'];
    for (const r of runs()) {
      const val = new Map(r.val.step.map((s, i) => [s, r.val.loss[i]]));
      const train = new Map(r.train.step.map((s, i) => [s, r.train.loss[i]]));
      const steps = [...new Set([...val.keys(), ...train.keys()])].sort((a, b) => a - b);
      for (const s of steps) lines.push([`"${r.label.replace(/"/g, '""')}"`, r.settings.nHeads, s, train.get(s) ?? '', val.get(s) ?? ''].join(','));
    }
    download(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), 'mha-sandbox-curves.csv');
  }

  // ---------------------------------------------------------------- events
  for (const inp of [ui.heads, ...form.inputs]) inp.addEventListener('input', read);
  for (const r of ui.corpus) r.addEventListener('change', read);
  ui.text.addEventListener('input', checkText);
  ui.start.addEventListener('click', startAll);
  ui.pause.addEventListener('click', () => {
    const running = runs().some((r) => r.status === 'running');
    for (const r of runs()) if (running) r.pause(); else r.start();
    draw();
  });
  ui.stop.addEventListener('click', () => runs().forEach((r) => r.stop()));
  ui.csv.addEventListener('click', csv);
  ui.upload.addEventListener('change', () => { loadFile(ui.upload.files[0]); ui.upload.value = ''; });
  loadCorpus().then((t) => { corpusText = t; checkText(); }, () => {});

  return {
    show,
    /** @returns {number|null} V of the shipped corpus (with the unknown symbol), once known */
    vocabSize: () => runs().find((r) => r.facts)?.facts.vocabSize ?? null,
  };
}
