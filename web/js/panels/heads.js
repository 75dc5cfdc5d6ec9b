// The heads panel, "Heads, compared": the settings; S seeds per head count (paired: seed s is the same data order and
// initialisation for every H), one Run (one worker) each, as many at once as the machine has cores and the rest
// queued; live curves (per H the mean over its seeds and their range), progress, the final table with the core's
// verdict on each H over the paired seeds, and a sample per H; CSV of the curves; a .safetensors file loaded as one
// more run. Two tasks: the text (the form's model) or the offsets task, which brings its own architecture and schedule
// (its preset in the core's constants().presets; only D, the head counts and the seeds are the form's). Wiring only: the
// numbers and the verdicts come from the core, the pictures from the views.
import { checkpointSettings, checkRun, compareOverSeeds, constants, lrAt, reachOverSeeds, refusal, taskRow } from '../engine.js';
import { loadCorpus, utf8Bytes } from '../data.js';
import { Comparison, evalGrid, scaledSchedule, seedMajor } from '../comparison.js';
import { finalColumns, finalRows, noPairedSeed, pairedSeeds, REACH_RULE, reachSteps, reachVerdict, seedsCaption } from '../seed_table.js';
import { publishFinding } from '../findings.js';
import { RUN_EVENT, streams } from '../protocol.js';
import { drawScheduler, Run, stepsBetween } from '../runs.js';
import { cardWord, failureSentence, panelStatus, runState, STATE_WORD, stoppedAtLoss, suggestedLr } from '../run_state.js';
import { ASK_ABOVE_SECONDS, duration, setupBudget } from './heads_budget.js';
import { headsTasks, prop } from '../state.js';
import { SHIPPED_VOCAB } from '../text_model.js';
import { ProfilesByCountView } from '../views/profiles_by_count_view.js';
import { PairedDifferenceView } from '../views/paired_difference_view.js';
import { SeedCurvesView } from '../views/seed_curves_view.js';
import { buttonById, count, download, el, inputById, inputsNamed, plural, showAlert, showRejection, table, textAreaById } from '../views/dom.js';
import { numberFields } from '../views/number_fields.js';
import { restoredMark } from '../views/saved_runs_view.js';
import { WaitingCards } from '../views/waiting_cards.js';
import { liveToggle } from '../views/live_toggle.js';

const SETTINGS = {
  evalPoints: 15,          // validation measurements per run (plus step 0)
  snapshots: 10,           // snapshots per run for scrubbing (plus step 0)
};

// the head-size test's two budgets and its seeds (the "why" box in index.html states what they showed natively)
const WHY = { early: 300, later: 1000, seeds: 4 };

const $ = (id) => document.getElementById(id);
const mib = (bytes) => bytes / 2 ** 20;

/**
 * @param {object} app shared page state: { state, save(), runs: Map<string, Run>, runsChanged(event), readable(msg) }
 */
export function setupHeads(app) {
  // the task choice: one per task of the core's table that this panel trains
  $('c-tasks').replaceChildren(...headsTasks(constants()).map((t) => el('label', {},
    el('input', { type: 'radio', name: 'ctask', value: t.name }), t.label, ' ', el('span', { class: 'muted' }, `(${t.description})`))));
  const ui = {
    heads: inputById('c-heads'), D: inputById('c-D'), layers: inputById('c-layers'), context: inputById('c-context'), batch: inputById('c-batch'),
    steps: inputById('c-steps'), lr: inputById('c-lr'), seed: inputById('c-seed'), seeds: inputById('c-seeds'),
    corpus: inputsNamed('corpus'), ends: inputsNamed('ostop'),
    corpusBox: /** @type {HTMLElement} */ (document.querySelector('#panel-heads [data-control="corpus"]')),
    task: inputsNamed('ctask'), taskNote: $('c-task-note'),
    intros: /** @type {HTMLElement[]} */ ([...document.querySelectorAll('#panel-heads [data-task]')]),
    text: textAreaById('c-text'), textField: $('c-text-field'), textInfo: $('c-text-info'),
    start: buttonById('c-start'), pause: buttonById('c-pause'), stop: buttonById('c-stop'), csv: buttonById('c-csv'), upload: inputById('c-upload'),
    error: $('c-error'), status: $('c-status'), runs: $('c-runs'), final: $('c-final'), samples: $('c-samples'),
    confirm: $('c-confirm'), confirmText: $('c-confirm-text'), confirmGo: buttonById('c-confirm-go'), confirmCancel: buttonById('c-confirm-cancel'),
    budgetBox: $('c-budget'), budgetShort: buttonById('c-budget-short'), budgetLonger: buttonById('c-budget-longer'), budgetHelp: $('c-budget-help'),
    why: $('c-why'), whyEarly: buttonById('c-why-early'), whyLater: buttonById('c-why-later'), titleHeads: $('c-title-heads'),
  };
  const curves = new SeedCurvesView($('c-chart'), { valuesRoot: $('c-values') });
  const differences = new PairedDifferenceView($('c-diff'));
  const profiles = new ProfilesByCountView($('c-profiles'));
  // D, the seed and the seeds per H; the offsets task keeps its own count of seeds (it decides with fewer)
  const forms = {
    char: numberFields([[ui.D, 'cD', 'D'], [ui.seed, 'cseed', 'The seed'], [ui.seeds, 'seeds', 'Seeds per H']]),
    offsets: numberFields([[ui.D, 'cD', 'D'], [ui.seed, 'cseed', 'The seed'], [ui.seeds, 'oseeds', 'Seeds per H']]),
  };
  // the text's model and schedule: the offsets task shows its own values there, greyed out, and reads none of them
  const textForm = numberFields([[ui.layers, 'layers', 'Layers'], [ui.context, 'context', 'The context T'],
    [ui.batch, 'batch', 'The batch B'], [ui.steps, 'steps', 'Steps'], [ui.lr, 'lr', 'The learning rate']]);
  // the chosen task's row of the core's task table; a task other than the text brings its own model and schedule,
  // its preset (constants().presets; only D, the head counts and the seeds are the form's)
  const presetOf = (name) => constants().presets[taskRow(name).preset];
  const ownTask = () => !taskRow(app.state.ctask).text;
  const headsKey = () => (ownTask() ? 'oheads' : 'heads');
  const seedsKey = () => (ownTask() ? 'oseeds' : 'seeds');
  const form = () => (ownTask() ? forms.offsets : forms.char);
  let corpusText = '';
  // the comparison being trained (comparison.js): its meta are the head counts and seeds as they were when Train was
  // clicked ({heads, seeds, evalSteps}); its plan one entry per H and seed (with H); its runs live in app.runs, where
  // a loaded file's run ('upload') stays last
  const comp = new Comparison({ panel: 'heads', keeper: app.keeper, runs: app.runs, keepLast: ['upload'], onEvent: (e) => onEvent(e) });
  // the estimate counts only the runs Train would start: not those the comparison before would keep
  const budget = setupBudget({ short: ui.budgetShort, longer: ui.budgetLonger, help: ui.budgetHelp }, app, (steps) => {
    app.state.steps = steps;
    show();
    app.save();
  }, () => comp.wouldKeepNow(`${JSON.stringify(app.state)}|${currentText() === comp.text}`, () => {
    const checked = runSettings();
    return checked.error ? null : { entries: planned(checked.settings, checked.heads), text: currentText() };
  }));

  // ---------------------------------------------------------------- settings <-> controls
  function show() {
    const s = app.state;
    ui.heads.value = s[headsKey()].join(',');
    showTitle();
    form().show(s);
    for (const r of ui.task) r.checked = r.value === s.ctask;
    const o = presetOf(s.ctask).settings;
    textForm.show(ownTask() ? { layers: o.nLayers, context: o.context, batch: o.batch, steps: o.steps, lr: o.lr } : s);
    for (const inp of textForm.inputs) inp.disabled = ownTask();
    ui.taskNote.textContent = taskRow(s.ctask).notes;  // the core's words on the task
    ui.taskNote.hidden = !ownTask();
    for (const p of ui.intros) p.hidden = p.dataset.task !== s.ctask;  // the intro and notes of the chosen task
    ui.corpusBox.hidden = ownTask();  // the text and its samples do not apply to the offsets task
    ui.budgetBox.hidden = ownTask();  // nor the text's budgets: the task fixes its own steps
    ui.why.hidden = ownTask();        // nor the question about the text's result
    for (const r of ui.corpus) r.checked = r.value === s.corpus;
    for (const r of ui.ends) r.checked = r.value === s.ostop;
    ui.textField.hidden = s.corpus !== 'pasted';
    checkText();
    budget.update();
  }

  // the panel's title names the chosen task's head counts ("train H = 1, 4 at the same budget"), once they are numbers
  function showTitle() {
    const heads = app.state[headsKey()];
    if (heads.length && heads.every(Number.isInteger)) ui.titleHeads.textContent = heads.join(', ');
  }

  function read() {
    const s = app.state;
    s[headsKey()] = ui.heads.value.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
    showTitle();
    form().read(s);
    if (!ownTask()) textForm.read(s);
    s.corpus = ui.corpus.find((r) => r.checked)?.value ?? 'shipped';
    s.ostop = ui.ends.find((r) => r.checked)?.value ?? 'reach';
    ui.textField.hidden = s.corpus !== 'pasted';
    app.save();
    checkText();
    budget.update();
    app.paramsChanged?.();
  }

  // the settings as the workers take them (without nHeads and seed: one run per head count and seed), or a sentence
  // about what is wrong: the form's ranges, then the core's verdict on the runs (D divisible by H, naming the nearest
  // H that is; the last seed within the core's range)
  function runSettings() {
    const s = app.state;
    const counts = /** @type {Extract<import('../state.js').Prop, {type: 'ints'}>} */ (prop(headsKey()));
    const heads = s[headsKey()];
    const err = form().error(s) ?? (ownTask() ? null : textForm.error(s))
      ?? (heads.length >= counts.minCount && heads.length <= counts.maxCount
        && heads.every((h) => Number.isInteger(h) && h >= counts.min && h <= counts.max)
        ? null : `Head counts must be ${counts.minCount} to ${counts.maxCount} whole numbers from ${counts.min} to ${counts.max}, separated by commas.`)
      ?? (new Set(heads).size === heads.length ? null
        : `Each head count can be listed once: ${heads.find((h, i) => heads.indexOf(h) !== i)} is listed twice.`);
    if (err) return { error: err };
    // the chosen task's preset: its own model and schedule (the core's), or the text's with the form's model and
    // schedule; D and the seed from the form
    const preset = presetOf(s.ctask);
    const task = ownTask() ? preset.settings
      : { ...preset.settings, nLayers: s.layers, context: s.context, batch: s.batch, steps: s.steps,
        ...scaledSchedule(preset.settings, s.steps, s.lr) };
    const settings = {
      ...task, dModel: s.cD, seed: s.cseed,
      // a task compared over time (the step each run first reaches the task's threshold) is measured as often as its
      // preset says
      evalEvery: preset.evalEvery > 0 ? preset.evalEvery : stepsBetween(task.steps, SETTINGS.evalPoints),
      snapshotEvery: stepsBetween(task.steps, SETTINGS.snapshots),
      // ... and, unless asked to train the whole budget, ends at its first measurement at that threshold: the step
      // is the answer, and the rest of the budget would not change it (for H = 4 nine tenths of it)
      ...(preset.threshold > 0 && s.ostop === 'reach' ? { stopAtLoss: preset.threshold } : {}),
    };
    const lastSeed = s.cseed + s[seedsKey()] - 1;
    const error = refusal([...heads.map((H) => checkRun({ ...settings, nHeads: H })),
      checkRun({ ...settings, nHeads: heads[0], seed: lastSeed })]);
    return error ? { error } : { settings, heads };
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

  // confirmed: the user said yes to a comparison longer than ASK_ABOVE_SECONDS (the offsets task's run is fixed and
  // short: about 40 s here for its default, docs/experiments.md, so it never asks)
  async function startAll(confirmed = false) {
    showError('');
    ui.confirm.hidden = true;
    const checked = runSettings();
    if (checked.error) {
      // the sentence under the buttons, the focus on the control it is about (the head counts for the core's verdicts)
      return showRejection(ui.error, app.readable(checked.error), form().invalid(app.state) ?? (ownTask() ? null : textForm.invalid(app.state)) ?? ui.heads);
    }
    const { settings, heads } = checked;
    const e = ownTask() ? null : budget.estimate();
    if (!confirmed && e && e.seconds > ASK_ABOVE_SECONDS) {
      ui.confirmText.textContent = `This comparison will take about ${duration(e.seconds)} here: ${count(e.runs)} runs of ` +
        `${count(app.state.steps)} steps${e.kept ? `, and ${count(e.kept)} kept from the comparison before` : ''} ` +
        `(${count(Math.round(e.speed))} tokens/s per worker, ${e.source}). Train anyway?`;
      ui.confirm.hidden = false;
      ui.confirmGo.focus();
      return;
    }
    let text = '';  // the offsets task makes its own sequences
    if (ownTask()) {
      // no text to load
    } else if (app.state.corpus === 'pasted') {
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
    const seeds = app.state[seedsKey()];
    // the schedule's evaluation steps: the runs' validation curves are compared there (SeedCurvesView); the shipped
    // corpus is not kept with the plan, a pasted text is
    comp.start({ entries: planned(settings, heads), text,
      meta: { heads: [...heads], seeds, evalSteps: evalGrid(settings.steps, settings.evalEvery) },
      keepText: !(text && text === corpusText) });
    delete document.documentElement.dataset.comparison;
    publishFinding('heads', null);  // the lesson waits for the new runs
    app.runsChanged({ type: RUN_EVENT.reset });
    draw();
  }

  // the comparison's runs: one per H and seed; the first seed of each H keeps the plain key and label (look inside
  // (irun = H) and the file names use it)
  function planned(settings, heads) {
    // Runs that end at the task's threshold are as long as it takes: on the offsets task H = 1 about ten times H = 4's
    // steps (docs/experiments.md, "The offsets task"). Every H's first seed starts first (each H's curve, and the
    // first paired difference, from the start); then the longest runs, fewer heads first, so that the short ones
    // fill the other slot beside the last long one instead of leaving it idle (seeds 1-3 at the defaults: the last
    // run ends after 5,025 steps of a slot instead of 5,275; no order of these runs ends before 4,950).
    const fewerFirst = [...heads].sort((a, b) => a - b);
    // The page shows each H's sample from its first seed: a later seed's run makes none (about 0.1 s of a slot each)
    return seedMajor(heads.map((H) => ({ H, key: `H${H}`, label: `H = ${H}` })), app.state[seedsKey()], app.state.cseed,
      (s, seed, index) => ({ ...settings, nHeads: s.H, seed, ...(index ? { sample: false } : {}) }))
      .map((p) => (settings.stopAtLoss ? { ...p, startRank: p.index === 0 ? 0 : 1 + fewerFirst.indexOf(p.H) } : p));
  }

  // the text Train would train on now: none for a task of its own, the pasted one, or the shipped corpus (once loaded)
  function currentText() {
    return ownTask() ? '' : app.state.corpus === 'pasted' ? ui.text.value : corpusText;
  }

  // where a loaded file's problems are said: this panel's alert, or the one beside the control that loaded it
  let uploadError = showError;

  // report: shows a sentence (or clears it with ''), for a file loaded from another panel (look inside, embedded alone)
  async function loadFile(file, report = showError) {
    uploadError = report;
    report('');
    if (!file) return;
    const checked = runSettings();
    if (checked.error) return report(checked.error);
    const { settings } = checked;
    // the file's size, before a byte of it is read or copied into the module
    const limit = constants().limits.maxCheckpointBytes;
    if (file.size === 0) return report(`${file.name} is empty: there is no model in it.`);
    if (file.size > limit) {
      return report(`${file.name} is ${mib(file.size).toFixed(0)} MiB; a model this lab can load is at most ${mib(limit)} MiB.`);
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    // the file says what it is a model of: its sizes and its task (a model of the offsets or the induction task is
    // set up as a run of that task, whichever task this panel shows), at least as many steps as it has trained
    const model = checkpointSettings(bytes, settings);
    if (model.ok === false) return report(model.error);
    const { task, symbols, offsets: list, vocab, segMin, segMax, dModel, nHeads, nKvHeads, nLayers, context, mlp, variant } = model.settings;
    const own = { ...settings, task, symbols, offsets: list, vocab, segMin, segMax, dModel, nHeads, nKvHeads, nLayers,
      context, mlp, variant, steps: Math.max(settings.steps, model.step) };
    // the file's model at the form's batch, held to the core's rules (its memory among them) before a worker starts:
    // the sentence names the largest batch or context that fits
    const refused = refusal([checkRun(own)]);
    if (refused) return report(`${file.name}: ${refused}`);
    let text;
    try {
      text = !taskRow(task).text ? '' : app.state.corpus === 'pasted' ? ui.text.value : await loadCorpus();
    } catch (e) {
      return report(String(e.message ?? e));
    }
    const before = app.runs.get('upload');
    before?.dispose();
    if (before) app.keeper.forgetRun('heads', before);
    const name = file.name.length > 40 ? `${file.name.slice(0, 39)}…` : file.name;
    // the file brings its own model (its sizes replace the form's when it is set up: onEvent)
    const run = new Run({ key: 'upload', label: `file ${name}`, settings: own, text, checkpoint: bytes, onEvent: comp.onRunEvent });
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
      }
    }
    if (type === RUN_EVENT.failed) {
      // the same failure of several runs (an empty text) is said once, naming the runs only when they differ
      if (run.key === 'upload') uploadError(`${run.label}: ${e.error}`);
      else showError(failureSentence(comp.entries(), app.readable));
    }
    app.runsChanged(e);
    schedule(!streams(type));
  }

  // redraws at most every runs.js SETTINGS.liveDrawMs, in an animation frame (see drawScheduler)
  const schedule = drawScheduler(() => draw());
  ui.stop.after(liveToggle());  // the page's pause for moving charts (WCAG 2.2.2)

  // the guess the final losses are held against: the unigram loss of the text, the uniform guess of a task of
  // classes (the task table's baseline), once a run knows it
  const guessOf = (task) => (taskRow(task).text ? 'unigram' : 'uniform');
  const guessLabel = (task) => (taskRow(task).text ? 'unigram baseline' : 'uniform guess');
  const baselineOf = () => {
    const f = runs().find((r) => r.facts)?.facts;
    return f ? { baseline: f.baselineLoss, baselineName: `the ${guessOf(f.task)} guess` } : { baseline: null };
  };

  function draw() {
    const all = runs();
    const upload = app.runs.get('upload') ?? null;
    const baseline = all.find((r) => r.facts)?.facts.baselineLoss ?? null;
    const { plan, meta } = comp;
    const groups = (meta?.heads ?? []).map((H) => ({ label: `H = ${H}`, seeds: meta.seeds,
      runs: plan.filter((p) => p.H === H && p.run).map((p) => p.run), grid: meta.evalSteps }));
    if (upload) groups.push({ label: upload.label, seeds: 1, runs: [upload] });
    // the loss is per character of text, or per token of another task (before any run is set up: the chosen task)
    const task = all.find((r) => r.facts)?.facts.task ?? app.state.ctask;
    const unit = taskRow(task).text ? 'character' : 'token';
    curves.update({ groups, baseline, baselineLabel: guessLabel(task), unit });
    $('c-diff-box').hidden = !differences.update({ groups, unit });
    budget.update();
    // the first seed of each H: where its heads look now (updated at every measurement while it trains)
    profiles.update((meta?.heads ?? []).map((H) => {
      const p = plan.find((q) => q.H === H && q.index === 0);
      return { label: `H = ${H}, seed ${p?.seed}`, run: p?.run ?? null };
    }));
    const queued = comp.queued();
    // the one status sentence and the buttons, from the run-state machine (run_state.js)
    const entries = [...comp.entries(), ...(upload ? [{ label: upload.label, run: upload }] : [])];
    const at = comp.active && entries.length > 1 ? `, ${comp.slots} at a time` : '';
    const st = panelStatus(entries, { ...baselineOf(), queued, held: comp.held,
      training: queued ? `${comp.slots} at a time (one per core of this machine); ${queued} waiting.` : '',
      done: () => {
        const trained = all.filter((r) => r.status === 'done').length;
        const wall = comp.active ? comp.ended() : upload.wallSeconds;
        // every run kept from the comparison before: nothing trained, no wall time to speak of
        return comp.active && comp.reusedAll() ? `Done: ${plural(trained, 'run')}.`
          : `Done: ${plural(trained, 'run')} in ${wall.toFixed(1)} s of wall time${at}.`;
      } });
    ui.pause.disabled = !st.buttons.pause.enabled;
    ui.pause.textContent = st.buttons.pause.label;
    ui.pause.setAttribute('aria-pressed', String(st.buttons.pause.pressed));
    ui.stop.disabled = !st.buttons.stop.enabled;
    ui.csv.disabled = !all.some((r) => r.val.step.length);
    ui.start.textContent = all.length ? 'Train again' : 'Train';
    drawCards(upload);
    drawFinal(upload);
    ui.status.textContent = [comp.note, st.sentence, comp.reusedSentence()].filter(Boolean).join(' ');
    ui.status.dataset.state = st.state;
    if (['done', 'no-better', 'failed'].includes(st.state)) document.documentElement.dataset.comparison = 'done';
  }

  // the cards: one per run, in a column per head count (its seeds one below the other), a run still waiting for a
  // slot as a card that says so; a loaded file's run in a column of its own
  const columns = new Map();  // H or 'upload' -> element
  function drawCards(upload) {
    const column = (name, nodes) => {
      if (!columns.has(name)) columns.set(name, el('div', { class: 'run-column', 'data-heads': String(name) }));
      const c = columns.get(name);
      c.classList.toggle('several', nodes.length > 1);
      replaceIfChanged(c, nodes);
      return c;
    };
    const { plan, meta } = comp;
    const nodes = (meta?.heads ?? []).map((H) => column(H, plan.filter((p) => p.H === H)
      .map((p) => (p.run ? runCard(p.run, p.index === 0) : waiting.card(p)))));
    if (upload) nodes.push(column('upload', [runCard(upload, true)]));
    replaceIfChanged(ui.runs, nodes);
    const shown = new Set([...plan.map((p) => p.run), upload]);
    for (const r of cards.keys()) if (!shown.has(r)) cards.delete(r);
    waiting.prune(plan);
  }

  // replaces an element's children only when they differ (a button inside keeps its focus while the runs train on)
  function replaceIfChanged(parent, nodes) {
    if (nodes.length !== parent.children.length || nodes.some((n, i) => parent.children[i] !== n)) parent.replaceChildren(...nodes);
  }

  const waiting = new WaitingCards({ title: (p) => p.label });

  // one card per run, updated in place
  const cards = new Map();
  // withParams: the parameter count in the title (a head count's later seeds have the first seed's)
  function runCard(run, withParams) {
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
    const state = runState(run, baselineOf().baseline);
    c.card.className = `run-card status-${run.status}${run.restoredAt ? ' restored' : ''}`;
    c.card.dataset.state = state;
    c.title.replaceChildren(run.label, ' ', el('span', { class: 'muted' }, run.facts && withParams ? `${count(run.facts.params)} parameters` : ''));
    c.progress.max = steps;
    c.progress.value = run.stepsDone;
    c.progress.setAttribute('aria-label', `${run.label}: ${Math.round(pct)}% of the steps done`);
    c.facts.textContent = [
      restoredMark(run),
      cardWord(run, state),
      `step ${count(run.stepsDone)} / ${count(steps)}`,
      run.seconds > 0 ? `${count(run.tokensPerSecond())} tokens/s` : '',
      // a run that ends at a loss may end well before its last step: the time to it is the most it can take
      run.status === 'running' && Number.isFinite(left) ? `${run.settings.stopAtLoss ? 'up to ' : ''}about ${Math.ceil(left)} s left` : '',
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
        // from the run's own history: the largest rate it trained at while its loss still fell, else a tenth of the
        // rate that blew up; never above the default, which trains this panel's models (run_state.js)
        const { lr: lower, why } = suggestedLr(run, lrAt, /** @type {number} */ (prop('lr').default));
        const b = el('button', { type: 'button', class: 'button', 'data-action': 'restore' },
          `Go back to the snapshot at step ${back} and continue with learning rate ${lower} (${why})`);
        b.addEventListener('click', async () => {
          const r = await run.restoreLastGood({ lr: lower });
          if (!r.ok) return showError(r.error);
          run.start();
        });
        out.push(b);
      }
    }
    if (stoppedAtLoss(run)) {
      out.push(el('p', { class: 'run-facts' }, `Ended at step ${count(run.stepsDone)}: its first measurement at or ` +
        `below ${run.settings.stopAtLoss} nats.`));
    }
    if (run.restoredAt && run.status === 'paused') {
      // back after a reload from its last full snapshot: training goes on from there
      const b = el('button', { type: 'button', class: 'button', 'data-action': 'continue' }, `Continue from step ${run.stepsDone}`);
      b.addEventListener('click', () => {
        comp.continueRun(run);
        draw();
      });
      out.push(b);
    }
    if (run.key === 'upload' && run.status === 'ready') {
      const b = el('button', { type: 'button', class: 'button', 'data-action': 'continue' }, `Continue training it to step ${steps}`);
      b.addEventListener('click', () => run.start());
      const look = app.shows('inside') ? 'look inside it in panel 6, or ' : '';  // panel 6 may not be in this frame
      // the text, or the task the file was trained on, with its own settings (the task table's fields)
      const row = taskRow(run.settings.task);
      const on = row.text ? 'the chosen text'
        : `its own task (${row.name}: ${row.fields.map((f) => `${f} ${run.settings[f]}`).join(', ')})`;
      out.push(el('p', { class: 'run-facts' }, `Loaded at step ${run.stepsDone}: ${look}train it further on ${on}.`), b);
    }
    // done, but it learned nothing a context-free guess does not know: say so rather than a plain "done"
    const val = run.val.loss.at(-1), baseline = run.facts?.baselineLoss;
    if (run.status === 'done' && Number.isFinite(val) && Number.isFinite(baseline) && val >= baseline) {
      out.push(el('p', { class: 'alert', 'data-verdict': 'no-better' }, `Done, but no better than guessing without context: ` +
        `validation loss ${val.toFixed(3)} against ${baseline.toFixed(3)} for the ${guessOf(run.facts.task)} ` +
        `guess. The learning rate ${run.settings.lr} may be too high (or the budget too short) for this model.`));
    }
    // the reason is said once, above the runs (failureSentence); a loaded file's beside the control that loaded it
    if (run.status === 'failed') {
      out.push(el('p', { class: 'run-facts' }, run.key === 'upload' ? 'It could not be loaded: the reason is beside the button that loaded it.'
        : 'It could not train: the reason is above the runs.'));
    }
    return out;
  }

  // the samples (one per H: its first seed's) and the final table: per H the final validation loss over the seeds
  // that every H has finished, the paired difference to the first H, and the core's verdict on it
  function drawFinal(upload) {
    const firsts = comp.plan.filter((p) => p.index === 0 && p.run?.status === 'done' && p.run.sample)
      .map((p) => ({ run: p.run, name: comp.meta.seeds > 1 ? `H = ${p.H} (seed ${p.seed})` : p.label }));
    if (upload?.status === 'done' && upload.sample) firsts.push({ run: upload, name: upload.label });
    ui.samples.replaceChildren(...firsts.map(({ run: r, name }) => el('figure', { class: 'sample' },
      el('figcaption', {}, `Sample from ${name} after ${r.stepsDone} steps`), el('pre', {}, r.sample))));
    const nodes = comp.active ? seedTable() : [];
    if (upload?.facts && upload.val.loss.length) nodes.push(uploadTable(upload));
    ui.final.replaceChildren(...nodes);
  }

  function seedTable() {
    const { plan, meta: { heads, seeds } } = comp;
    const paired = pairedSeeds(plan, (p) => p.H, heads, seeds);
    const { complete, used } = paired;
    if (!complete.length) {
      const why = noPairedSeed(paired, 'every H');
      return why ? [el('p', { class: 'table-caption' }, why)] : [];
    }
    const labels = heads.map((H) => `H = ${H}`);
    const n = complete.length;
    const same = new Set(used.map((rs) => rs[0].facts?.params)).size === 1;
    // a task compared over time: its preset names the loss whose first crossing compares the head counts
    const task = used[0][0].facts?.task ?? app.state.ctask;
    const preset = presetOf(task);
    const reach = preset.threshold > 0 ? reachOverSeeds(labels, used.flat().map((run) => run.val.step),
      used.flat().map((run) => run.val.loss), n, preset.threshold, used[0][0].settings.steps) : null;
    const overTime = reach ? [...reachTable(labels, reach, n, preset), ...reachVerdicts(labels, reach, n)] : [];
    // runs that ended at the task's threshold (stopAtLoss) all end at about that loss: their last losses compare
    // nothing, the steps at which they got there do (the table "Over time")
    const atThreshold = used.flat().some(stoppedAtLoss);
    const c = atThreshold ? null : compareOverSeeds(labels, used.map((rs) => rs.map((r) => r.val.loss.at(-1))), 0);
    if (c?.ok === false) return [el('p', { class: 'alert', role: 'alert' }, app.readable(c.error))];
    // for the lesson (findings.js): the same numbers, as data
    publishFinding('heads', { task, heads, seedList: paired.seedList, complete: n, training: paired.training,
      steps: used[0][0].settings.steps, toReference: c?.toReference ?? [], verdicts: c?.verdicts ?? [],
      reach: reach?.ok ? reach : null });
    if (!c) {
      return [el('p', { class: 'table-caption', 'data-ended': 'threshold' }, `Each run ended at its first measurement ` +
        `at or below ${preset.threshold.toFixed(3)} nats, so their last losses are all about that and are not ` +
        `compared; the steps at which they got there are, over ${plural(n, 'seed')} (${paired.seedList.join(', ')}).` +
        `${same ? ' The parameter counts are equal.' : ''} To compare the final losses after the whole budget as well, ` +
        'choose “Each run ends: after all its steps”.'), ...overTime];
    }
    const rows = finalRows(labels, used, c).map((row, g) => [...row, `${(used[g].reduce((t, r) => t + r.wallSeconds, 0) / n).toFixed(1)} s`]);
    const caption = `Final validation loss ${seedsCaption(paired, seeds, 'every H')}` +
      (same ? ' The parameter counts are equal: the heads split D, they do not add weights.' : '');
    const verdicts = heads.map((H, g) => (c.verdicts[g] ? el('li', { 'data-heads': String(H) }, c.verdicts[g]) : null)).filter(Boolean);
    return [table(caption, [...finalColumns('heads', labels[0]), 'time per run'], rows, { class: 'final-table', stack: true }),
    ...(verdicts.length ? [el('p', { class: 'verdicts-title' }, `Each H against ${labels[0]}, judged by the core. `, el('span', { class: 'seed-rule' }, c.rule)),
      el('ul', { class: 'seed-verdicts' }, ...verdicts)] : []), ...overTime];
  }

  // the offsets task over time: per H the step at which each seed's validation loss first reached the task's
  // threshold, the median and range over the seeds (the core's reachOverSeeds); a final loss at one budget hides that
  // one head gets there too, only later
  function reachTable(labels, r, n, o) {
    if (r.ok === false) return [el('p', { class: 'alert', role: 'alert' }, app.readable(r.error))];
    const at = (f) => (f < 0 ? 'not reached' : count(f));
    const median = (m) => (m < 0 ? 'not reached' : Number.isInteger(m) ? count(m) : `${count(Math.floor(m))}.5`);
    const rows = labels.map((label, g) => {
      const x = r.settings[g];
      return [label, median(x.median), x.reached && n > 1 ? `${count(x.min)}–${count(x.max)}` : '–',
        `${x.reached} of ${n}`, x.first.map(at).join(', ')];
    });
    return [table(`Over time: the first step at which each run's validation loss (measured every ${o.evalEvery} steps) ` +
      `reached ${o.threshold.toFixed(3)} nats, within ${count(r.budget)} steps.`,
    ['heads', 'median step', 'seeds: earliest–latest', 'seeds that got there', 'each seed'], rows,
    { class: 'final-table reach-table', stack: true }),
    el('ul', { class: 'reach-sentences' }, ...labels.map((label, g) => el('li', { 'data-heads': label.slice(4) }, r.sentences[g])))];
  }

  // the verdict over time: each H's steps to the threshold against the first H's, paired by seed (the core's rule)
  function reachVerdicts(labels, r, n) {
    const d = r.ok && labels.length > 1 ? compareOverSeeds(labels, reachSteps(r), 0) : null;
    if (!d?.ok) return [];
    return [el('p', { class: 'verdicts-title' }, `Over time, each H against ${labels[0]}, judged by the core. `,
      el('span', { class: 'seed-rule' }, REACH_RULE)),
    el('ul', { class: 'reach-verdicts' }, ...labels.slice(1).map((label, i) => el('li', { 'data-heads': label.slice(4) },
      reachVerdict(label, labels[0], d.toReference[i + 1], n))))];
  }

  // a loaded file's run: one model, no seeds to compare
  function uploadTable(r) {
    return table(`The loaded file's model${r.status === 'done' ? '' : ' so far'}.`,
      ['run', 'parameters', 'validation loss', 'step', 'time'],
      [[r.label, count(r.facts.params), r.val.loss.at(-1).toFixed(3), String(r.val.step.at(-1)),
        r.status === 'done' ? `${r.wallSeconds.toFixed(1)} s` : STATE_WORD[runState(r, baselineOf().baseline)]]], { class: 'final-table' });
  }

  function showError(message) { showAlert(ui.error, message ? app.readable(message) : ''); }

  // ---------------------------------------------------------------- kept in this browser (run_store.js)
  // the runs this panel had before the reload, back: the comparison (comparison.js) and a loaded file's run
  async function restore(records) {
    const upload = records.find((r) => r.kind === 'run' && r.key === 'upload')?.run;
    let back = false;
    try {
      back = await comp.restore(records, loadCorpus);
    } catch (e) {
      return showError(String(e.message ?? e));
    }
    // a loaded file's run comes back beside the comparison, or alone (not beside runs the user started meanwhile)
    if (upload && (back || !app.runs.size)) app.runs.set('upload', Run.restore(upload, comp.onRunEvent));
    else if (!back) return;
    app.runsChanged({ type: RUN_EVENT.reset });
    draw();
  }

  // ---------------------------------------------------------------- CSV
  function csv() {
    const lines = ['run,heads,seed,step,train_loss,val_loss'];
    const upload = app.runs.get('upload');
    for (const r of [...comp.plan.map((p) => p.run).filter(Boolean), ...(upload ? [upload] : [])]) {
      const val = new Map(r.val.step.map((s, i) => [s, r.val.loss[i]]));
      const train = new Map(r.train.step.map((s, i) => [s, r.train.loss[i]]));
      const steps = [...new Set([...val.keys(), ...train.keys()])].sort((a, b) => a - b);
      // a loaded file's seed is the file's, not the form's: left empty
      const seed = r === upload ? '' : r.settings.seed;
      for (const s of steps) lines.push([`"${r.label.replace(/"/g, '""')}"`, r.settings.nHeads, seed, s, train.get(s) ?? '', val.get(s) ?? ''].join(','));
    }
    download(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), 'mha-sandbox-curves.csv');
  }

  // ---------------------------------------------------------------- events
  for (const inp of [ui.heads, ...forms.char.inputs, ...textForm.inputs]) inp.addEventListener('input', read);
  for (const r of ui.corpus) r.addEventListener('change', read);
  for (const r of ui.ends) r.addEventListener('change', read);
  for (const r of ui.task) {
    r.addEventListener('change', () => {
      app.state.ctask = ui.task.find((x) => x.checked)?.value ?? constants().presets.heads.task;
      show();  // the head counts and the model fields of the chosen task
      app.save();
      app.paramsChanged?.();
    });
  }
  ui.text.addEventListener('input', checkText);
  ui.start.addEventListener('click', () => startAll());
  // the head-size test (the "why" box): H = 1 against H = 8 at D = 128, early and later in training, on the text's
  // default model and schedule otherwise, as docs/experiments.md measured it ("Why more heads are slightly worse")
  const trainWhy = (steps) => {
    const d = constants().defaults;
    Object.assign(app.state, { ctask: constants().presets.heads.task, heads: [1, 8], cD: 128, seeds: WHY.seeds, steps, layers: d.nLayers,
      context: d.context, batch: d.batch, lr: d.lr, corpus: 'shipped' });
    show();
    app.save();
    startAll();
  };
  ui.whyEarly.addEventListener('click', () => trainWhy(WHY.early));
  ui.whyLater.addEventListener('click', () => trainWhy(WHY.later));
  ui.confirmGo.addEventListener('click', () => startAll(true));
  ui.confirmCancel.addEventListener('click', () => { ui.confirm.hidden = true; ui.start.focus(); });
  ui.pause.addEventListener('click', () => { comp.togglePause(); draw(); });
  ui.stop.addEventListener('click', () => { comp.stop(); draw(); });
  ui.csv.addEventListener('click', csv);
  ui.upload.addEventListener('change', () => { loadFile(ui.upload.files[0]); ui.upload.value = ''; });
  loadCorpus().then((t) => { corpusText = t; checkText(); }, () => {});

  return {
    show,
    loadFile,
    restore,
    /** @returns {number} V of the text the panel trains on (with the unknown symbol): a run's, once one says */
    vocabSize: () => runs().find((r) => r.facts && taskRow(r.facts.task).text)?.facts.vocabSize ?? SHIPPED_VOCAB,
  };
}
