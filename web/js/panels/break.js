// The break panel, "Break it": the lesson's attention bugs (core/nn/config.hpp, AttentionVariant), each trained beside
// the canonical layer at the same budget over S paired seeds (seed s: the same initialisation and batch order for
// every variant), one worker per run, as many at once as the machine has cores and the rest queued. Per variant: a
// small chart with its band over the seeds beside canonical's; a card for its first seed with the core's causality
// check on the random and the trained weights (the leaking pairs on demand), the parameter difference, time per step,
// a sample; and, once every variant has finished the same seeds, a table and the core's verdict in the lesson's terms
// (compareVariants: core/lab/variant_lessons.hpp). Plus the canonical weights read in the swapped order.
// Wiring only: every number and every verdict comes from the core in the workers or in the page's module.
import { loadCorpus } from '../data.js';
import { checkRun, compareVariants, constants } from '../engine.js';
import { drawScheduler, Run, RUN_EVENT, stepsBetween } from '../runs.js';
import { failureSentence, panelStatus, runState, STATE_WORD } from '../run_state.js';
import { SeedCurvesView } from '../views/seed_curves_view.js';
import { count, el, plural, showAlert, showRejection, table } from '../views/dom.js';
import { numberFields } from '../views/number_fields.js';
import { measuredSpeed, runsEstimate } from './heads_budget.js';
import { restoredMark } from '../views/saved_runs_view.js';
import { outcomeWords, pairedCell, signed } from '../views/seed_words.js';

const SETTINGS = {
  modelKeys: ['dModel', 'nHeads', 'nLayers', 'context', 'mlp'],  // tiny-char: the core's default model (constants().defaults)
  evalPoints: 10,          // validation measurements per run (plus step 0)
  warmupFraction: 0.1,
  minLrFraction: 0.1,
  drawMs: 300,
  chartHeight: 220,        // px: one small chart per variant
  leaksListed: 200,        // leaking pairs written out on demand (the rest are counted)
  swapSmall: 0.03,         // nats: the canonical weights read in the swapped order, closer than this counts as small
};

// The budgets the lesson's predictions were measured at natively, over 6 paired seeds the tests never use (101..106)
// at the page's settings (scripts/break_seeds STEPS 6 all 101; the tables are in docs/experiments.md, "Break it"). Per
// variant whose prediction is about the loss: the budgets measured, and those at which the core's verdict said its
// symptom shows (for "the same as canonical": no difference larger than the practical threshold).
const MEASURED = {
  seeds: 6,
  firstSeed: 101,
  variants: {
    swapped_order: { steps: [200, 500], shows: [200] },
    no_transpose_split: { steps: [200, 500], shows: [500] },
    no_transpose_merge: { steps: [200, 500], shows: [200, 500] },
    no_transpose_both: { steps: [200, 500], shows: [] },
    scale_sqrt_d: { steps: [200, 500], shows: [200, 500] },
    per_head_proj: { steps: [200, 500], shows: [200, 500] },
    split_input: { steps: [200, 500], shows: [200, 500] },
    tied_heads: { steps: [200, 500], shows: [200] },
  },
};
// the page's budgets: the default, and the one at which both leaking variants were measured to read the future
// (no_transpose_split's loss is still above canonical's at 200 steps)
const BUDGETS = { default: 200, lesson: 500 };

// what the lesson (DESIGN.md §4) predicts for each variant. Its claims about the loss are judged over the seeds by the
// core (compareVariants); check: the claims one run can check (causality, parameters, time per step)
const LESSON = {
  swapped_order: {
    title: 'view(B,T,d_h,H), used to split and to merge',
    prediction: 'the canonical model with its weights permuted: trained from scratch it learns as well as canonical; only weights trained in the canonical layout break it (see the box below the cards).',
    check: () => [],
  },
  no_transpose_split: {
    title: 'transpose missing when splitting into heads',
    prediction: 'outputs depend on future tokens; the loss looks too good and generation is bad. The causality check flags it.',
    check: (m) => ({ held: m.leaks > 0, what: 'it leaks the future' }),
  },
  no_transpose_merge: {
    title: 'transpose missing when merging the heads',
    prediction: 'outputs depend on future tokens; the loss looks too good and generation is bad. The causality check flags it.',
    check: (m) => ({ held: m.leaks > 0, what: 'it leaks the future' }),
  },
  no_transpose_both: {
    title: 'transpose missing on both sides',
    prediction: 'no leak, but each position attends only within its block of T/H positions: a worse loss.',
    check: (m) => ({ held: m.leaks === 0, what: 'no leak' }),
  },
  scale_sqrt_d: {
    title: 'scores scaled by 1/√D instead of 1/√d_h',
    prediction: 'logits √H times too small, flatter attention, slower learning: a higher loss at the same budget.',
    check: () => [],
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
    check: (m) => ({ held: m.dParams < 0, what: 'fewer parameters' }),
  },
  tied_heads: {
    title: 'all heads share one Q/K/V projection',
    prediction: 'the same as one head of size d_h repeated: multi-head diversity collapses, a weaker model.',
    check: () => [],
  },
};

// the lesson of a variant; the list of variants is the core's, so one the lesson does not cover yet still trains
const lesson = (variant) => LESSON[variant]
  ?? { title: '', prediction: 'nothing yet: the lesson does not cover this variant.', check: () => [] };

const $ = (id) => document.getElementById(id);

// a run takes one of the slots (one core each) from its set-up until it ends
const BUSY = ['starting', 'ready', 'running', 'paused', 'restarting'];
const duration = (seconds) => (seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`);

/**
 * The expected number of runs and wall time of a comparison, at this browser's speed (heads_budget.js: the median
 * over its finished runs of the same model, Break it's and the heads panel's, else the speed measured on an idle
 * machine).
 * @param {{variants: number, seeds: number, steps: number, batch: number, slots: number}} p variants besides canonical
 * @param {{speed: number, sameSizes: boolean}} measured measuredSpeed()
 * @returns {{runs: number, seconds: number, speed: number, source: string}}
 */
export function breakPlan({ variants, seeds, steps, batch, slots }, measured) {
  return runsEstimate({ runs: (variants + 1) * seeds, steps, batch, context: constants().defaults.context }, measured, slots);
}

/**
 * @typedef {{variant: string, index: number, seed: number, key: string, label: string, settings: object,
 *            run: Run|null, cancelled: boolean}} Planned  one run: a variant's index-th seed; run: null while it
 *   waits for a free slot; cancelled: stopped before it started
 */

/**
 * @param {object} app shared page state: { state, save(), readable(msg) }
 */
export function setupBreak(app) {
  const ui = {
    variants: $('b-variants'), steps: $('b-steps'), batch: $('b-batch'), lr: $('b-lr'), seed: $('b-seed'),
    seeds: $('b-seeds'), budget: $('b-budget'), plan: $('b-plan'),
    start: $('b-start'), stop: $('b-stop'), error: $('b-error'), status: $('b-status'), runs: $('b-runs'),
    charts: $('b-charts'), final: $('b-final'), swapText: $('b-swap-text'),
  };
  const form = numberFields([[ui.steps, 'bsteps', 'Steps'], [ui.batch, 'bbatch', 'The batch B'], [ui.seed, 'bseed', 'The seed'],
    [ui.seeds, 'bseeds', 'Seeds per variant'], [ui.lr, 'blr', 'The learning rate']]);
  const slots = Math.max(1, navigator.hardwareConcurrency || 1);
  /** @type {Map<string, Run>} every run started, by key: a variant's first seed under the variant's name */
  const runs = new Map();
  // the comparison being trained: its variants (canonical first) and seeds as they were when Train was clicked
  /** @type {{variants: string[], seeds: number, steps: number, text: string, evalSteps: number[], startedAt: number,
   *           wall: number|null}|null} */
  let comparison = null;
  /** @type {Planned[]} in the order they start: every variant's first seed, then every second seed, … */
  let plan = [];
  let stopped = false;
  let held = false;     // runs restored after a reload: nothing trains until "Continue" (ui.resume)
  // the runs' events, seen by the page's keeper too (saved in this browser: run_store.js)
  const keptEvent = app.keeper.watch('break', (e) => onEvent(e));
  ui.resume = el('button', { type: 'button', class: 'button', id: 'b-resume', hidden: '' }, 'Continue the restored runs');
  ui.stop.after(ui.resume);
  // the core's variants besides canonical, in its order (the lesson's)
  const variants = constants().variants.filter((v) => v !== 'canonical');
  const checks = new Map();
  for (const v of variants) {
    const box = el('input', { type: 'checkbox', value: v, 'data-variant': v });
    checks.set(v, box);
    ui.variants.append(el('label', { class: 'check' }, box, el('span', {}, el('code', {}, v), ' ', el('span', { class: 'muted' }, lesson(v).title))));
    box.addEventListener('change', read);
  }
  // the budget: the default, or the one at which both leaking variants were measured to read the future
  const budgets = [['default', BUDGETS.default], ['lesson', BUDGETS.lesson]].map(([name, steps]) => {
    const radio = el('input', { type: 'radio', name: 'bbudget', value: String(steps), 'data-budget': name });
    const text = el('span', { class: 'muted' });
    ui.budget.append(el('label', { class: 'check' }, radio, el('span', {}, name === 'default'
      ? `the default: ${count(steps)} steps` : `where both leaking variants were measured to read the future: ${count(steps)} steps`, ' ', text)));
    radio.addEventListener('change', () => {
      app.state.bsteps = steps;
      form.show(app.state);
      app.save();
      describePlan();
    });
    return { radio, text, steps };
  });

  // ---------------------------------------------------------------- settings <-> controls
  function show() {
    const s = app.state;
    for (const [v, box] of checks) box.checked = s.variants.includes(v);
    form.show(s);
    describePlan();
  }

  function read() {
    const s = app.state;
    s.variants = variants.filter((v) => checks.get(v).checked);
    form.read(s);
    app.save();
    describePlan();
  }

  // the runs a click on Train starts and about how long they take here; the budget that matches the steps
  function describePlan() {
    const s = app.state;
    const G = s.variants.length;
    // this browser's speed on the break panel's model (the core's default sizes), from its runs and the heads panel's
    const d = constants().defaults;
    const measured = measuredSpeed([...runs.values(), ...app.runs.values()],
      { cD: d.dModel, layers: d.nLayers, context: d.context, batch: s.bbatch });
    for (const b of budgets) {
      b.radio.checked = s.bsteps === b.steps;
      b.text.textContent = `(about ${duration(breakPlan({ variants: G, seeds: s.bseeds, steps: b.steps, batch: s.bbatch, slots }, measured).seconds)} here)`;
    }
    if (![s.bseeds, s.bsteps, s.bbatch].every(Number.isInteger)) return;
    const p = breakPlan({ variants: G, seeds: s.bseeds, steps: s.bsteps, batch: s.bbatch, slots }, measured);
    ui.plan.textContent = `Canonical and every variant train with seeds ${s.bseed} to ${s.bseed + s.bseeds - 1} ` +
      `(paired: seed s is the same initialisation and batch order for all of them): ${G + 1} settings × ` +
      `${plural(s.bseeds, 'seed')} = ${plural(p.runs, 'run')} of ${count(s.bsteps)} steps, ${Math.min(slots, p.runs)} at a time ` +
      `(one per core here): about ${duration(p.seconds)} (${count(Math.round(p.speed))} tokens/s per worker, ${p.source}). ` +
      'With one seed the page can compare numbers but not tell an effect from noise.';
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
    const lastSeed = s.bseed + s.bseeds - 1;
    const bad = ['canonical', ...s.variants].map((variant) => checkRun({ ...settings, variant })).find((r) => !r.ok)
      ?? [checkRun({ ...settings, seed: lastSeed })].find((r) => !r.ok);
    return bad ? { error: bad.error } : settings;
  }

  // ---------------------------------------------------------------- runs
  async function startAll() {
    showError('');
    const settings = runSettings();
    if (settings.error) return showRejection(ui.error, app.readable(settings.error), form.invalid(app.state) ?? ui.start);
    let text;
    try {
      text = await loadCorpus();
    } catch (e) {
      return showError(String(e.message ?? e));
    }
    const old = [...runs.values()];
    for (const r of old) r.dispose();
    runs.clear();
    cards.clear();
    delete document.documentElement.dataset.breakit;
    const { bseeds: seeds, bseed } = app.state;
    const names = ['canonical', ...app.state.variants];
    // the schedule's evaluation steps: the seeds' validation curves are compared there (SeedCurvesView)
    const evalSteps = Array.from({ length: Math.floor(settings.steps / settings.evalEvery) + 1 }, (_, k) => k * settings.evalEvery);
    if (evalSteps.at(-1) !== settings.steps) evalSteps.push(settings.steps);
    comparison = { variants: names, seeds, steps: settings.steps, text, evalSteps, startedAt: performance.now(), wall: null };
    plan = [];
    for (let index = 0; index < seeds; ++index) {
      for (const v of names) {
        const seed = bseed + index;
        // the first seed keeps the variant's name as its key (its card, the causality check, the swap check)
        plan.push({ variant: v, index, seed, key: index ? `${v}-seed${seed}` : v, label: seeds > 1 ? `${v}, seed ${seed}` : v,
          settings: { ...settings, variant: v, seed, causality: index === 0, swapCheck: v === 'canonical' && index === 0 },
          run: null, cancelled: false });
      }
    }
    stopped = false;
    held = false;
    app.keeper.replace('break', old, savedPlan());
    restartNote = '';
    fill();
    draw();
  }

  // starts queued runs while fewer runs than slots hold a core
  function fill() {
    if (stopped || held || !comparison) return;
    let busy = [...runs.values()].filter((r) => BUSY.includes(r.status)).length;
    for (const p of plan) {
      if (busy >= slots) break;
      if (p.run || p.cancelled) continue;
      p.run = new Run({ key: p.key, label: p.label, settings: p.settings, text: comparison.text, onEvent: keptEvent });
      runs.set(p.key, p.run);
      busy += 1;
    }
  }

  function onEvent(e) {
    const { run, type } = e;
    if (type === RUN_EVENT.ready) {
      if (stopped) run.stop();
      else if (!held) run.start();
    }
    // the same failure of several runs is said once, naming the runs only when they differ
    if (type === RUN_EVENT.failed) showError(failureSentence(plan.filter((p) => p.run).map((p) => ({ label: p.label, run: p.run })), app.readable));
    if (type === RUN_EVENT.died) restartNote = `The worker of ${run.label} stopped (${e.reason}); restarted from step ${e.fromStep}.`;
    const streaming = [RUN_EVENT.progress, RUN_EVENT.val, RUN_EVENT.snapshot, RUN_EVENT.trace].includes(type);
    if (!streaming) fill();  // a run ended or failed: its slot is free
    schedule(!streaming);
  }

  // redraws at most every SETTINGS.drawMs, in an animation frame (see drawScheduler)
  const schedule = drawScheduler(() => draw(), SETTINGS.drawMs);
  let restartNote = '';  // a worker that died and was restarted: said before the status until the next Train

  // ---------------------------------------------------------------- drawing
  function draw() {
    const all = [...runs.values()];
    const queued = plan.filter((p) => !p.run && !p.cancelled).length;
    describePlan();  // the estimate follows this browser's speed as runs finish
    const baseline = all.find((r) => r.facts)?.facts.baselineLoss ?? null;
    drawCharts(baseline);
    // the one status sentence and the buttons, from the run-state machine (run_state.js)
    const st = panelStatus(plan.filter((p) => p.run).map((p) => ({ label: p.label, run: p.run })), {
      baseline, baselineName: 'the unigram guess', queued, held,
      paused: held ? 'Restored from this browser, paused: "Continue the restored runs" trains the rest.' : '',
      training: `${Math.min(slots, plan.length)} at a time (one per core here)${queued ? `; ${queued} waiting` : ''}.`,
      wayBack: () => 'at this learning rate; Stop ends the comparison with what has trained',
      done: () => {
        if (comparison.wall === null) {
          comparison.wall = (performance.now() - comparison.startedAt) / 1000;  // from the click to the last run
          app.keeper.plan('break', savedPlan());
        }
        const trained = all.filter((r) => r.status === 'done').length;
        return `Done: ${plural(trained, 'run')} (canonical and ${plural(comparison.variants.length - 1, 'variant')}, ` +
          `${plural(comparison.seeds, 'seed')} each) in ${comparison.wall.toFixed(1)} s of wall time, ${Math.min(slots, plan.length)} at a time.`;
      } });
    ui.stop.disabled = !st.buttons.stop.enabled;
    ui.start.textContent = all.length ? 'Train again' : 'Train';
    ui.resume.hidden = !held;
    const nodes = (comparison?.variants ?? []).map((v) => {
      const first = plan.find((p) => p.variant === v && p.index === 0);
      return first.run ? card(first.run) : waitingCard(first);
    });
    if (nodes.length !== ui.runs.children.length || nodes.some((n, i) => ui.runs.children[i] !== n)) ui.runs.replaceChildren(...nodes);
    drawSwap();
    ui.final.replaceChildren(...finalTable());
    // the worker sends the causality report and the swap check before 'done', so a done run has them
    ui.status.textContent = [restartNote, st.sentence].filter(Boolean).join(' ');
    ui.status.dataset.state = st.state;
    if (['done', 'no-better', 'failed'].includes(st.state)) document.documentElement.dataset.breakit = 'done';
  }

  // one small chart per variant: its band over the seeds beside canonical's (the same on every chart)
  const charts = new Map();  // variant -> { figure, view }
  function drawCharts(baseline) {
    const group = (v) => ({ label: v, seeds: comparison.seeds, runs: plan.filter((p) => p.variant === v && p.run).map((p) => p.run),
      grid: comparison.evalSteps });
    const shown = (comparison?.variants ?? []).slice(1);
    const nodes = shown.map((v) => {
      let c = charts.get(v);
      if (!c) {
        const root = el('div', { class: 'chart small', role: 'img', 'aria-label': 'Loss curves: no run yet.' });
        const values = el('div', { class: 'table-scroll' });
        c = { view: new SeedCurvesView(root, { valuesRoot: values, height: SETTINGS.chartHeight }) };
        c.figure = el('figure', { class: 'chart-box', 'data-variant': v },
          el('figcaption', {}, el('code', {}, v), ' against ', el('code', {}, 'canonical')), root,
          el('details', { class: 'values' }, el('summary', {}, 'Validation losses as a table'), values));
        charts.set(v, c);
      }
      return c;
    });
    const figures = nodes.map((c) => c.figure);
    if (figures.length !== ui.charts.children.length || figures.some((n, i) => ui.charts.children[i] !== n)) ui.charts.replaceChildren(...figures);
    shown.forEach((v, i) => nodes[i].view.update({ groups: [group('canonical'), group(v)], baseline }));
    for (const v of charts.keys()) if (!shown.includes(v)) charts.delete(v);
  }

  // a run that counts in the comparison: trained to the end of its schedule, with a final validation loss
  const finishedRun = (run) => run?.status === 'done' && run.stepsDone === run.settings.steps && Number.isFinite(run.val.loss.at(-1));

  /** the core's comparison over the seeds every setting has finished, or null (with why) */
  function seedComparison() {
    if (!comparison) return null;
    const { variants: names, seeds } = comparison;
    const entry = (v, index) => plan.find((p) => p.variant === v && p.index === index);
    const complete = Array.from({ length: seeds }, (_, i) => i).filter((i) => names.every((v) => finishedRun(entry(v, i)?.run)));
    if (!complete.length) return { complete };
    const used = names.map((v) => complete.map((i) => entry(v, i).run));
    const c = compareVariants(names, used.map((rs) => rs.map((r) => r.val.loss.at(-1))), comparison.steps);
    return { complete, used, c, seedList: complete.map((i) => entry(names[0], i).seed) };
  }

  // the final table and the core's verdicts, in the lesson's terms, with the budget at which a symptom was measured
  function finalTable() {
    const sc = seedComparison();
    if (!sc) return [];
    const training = plan.some((p) => !p.cancelled && !['done', 'failed'].includes(p.run?.status));
    if (!sc.complete.length) {
      if (![...runs.values()].some((r) => r.status === 'done')) return [];
      return [el('p', { class: 'table-caption' }, training
        ? 'The final numbers appear once canonical and every variant have finished the same seed.'
        : 'No seed was trained to the end of the schedule for every variant, so there are no final numbers to compare.')];
    }
    const { c, used, complete, seedList } = sc;
    if (!c.ok) return [el('p', { class: 'alert', role: 'alert' }, app.readable(c.error))];
    const names = comparison.variants, n = complete.length;
    const rows = names.map((v, g) => {
      const x = c.settings[g], d = c.toReference[g];
      return [v, used[g][0].facts ? count(used[g][0].facts.params) : '–',
        n > 1 ? `${x.mean.toFixed(3)} ± ${x.spread.toFixed(3)}` : x.mean.toFixed(3),
        n > 1 ? `${x.min.toFixed(3)}–${x.max.toFixed(3)}` : '–',
        g === 0 ? 'reference' : pairedCell(d, n), g === 0 ? '' : outcomeWords(d, c.margin)];
    });
    const left = comparison.seeds - n;
    const caption = `Final validation loss after ${count(comparison.steps)} steps over ${plural(n, 'seed')} (${seedList.join(', ')}), ` +
      'the same seeds for canonical and every variant: mean ± half the range, and the lowest to the highest seed. ' +
      (left ? `${plural(left, 'more seed')} ${training ? 'to come' : 'left out (stopped or failed)'}.` : '');
    const verdicts = names.map((v, g) => (c.lessons[g] ? el('li', { 'data-variant': v },
      el('span', { class: 'lesson-verdict' }, c.lessons[g]), ...budgetNote(v, c, g)) : null)).filter(Boolean);
    return [table(caption, ['variant', 'parameters', 'final validation loss', 'seeds: min–max',
      'paired difference to canonical (95% interval)', 'verdict'], rows, { class: 'final-table', stack: true }),
    el('p', { class: 'verdicts-title' }, 'Against the lesson, judged by the core. ', el('span', { class: 'seed-rule' }, c.rule)),
    el('ul', { class: 'seed-verdicts' }, ...verdicts)];
  }

  // where the lesson's symptom did not show at this budget (or the opposite did): what the native measurements found
  function budgetNote(v, c, g) {
    const m = MEASURED.variants[v];
    if (!m || !/does not show at this budget|the opposite of the lesson's prediction|no difference detected at this budget/.test(c.lessons[g])) return [];
    // 500, 1,000 and 2,000
    const list = (xs, and = 'and') => {
      const t = xs.map(count);
      return t.length < 2 ? t.join('') : `${t.slice(0, -1).join(', ')} ${and} ${t.at(-1)}`;
    };
    const cmd = (steps) => el('code', {}, `scripts/break_seeds ${steps} ${MEASURED.seeds} all ${MEASURED.firstSeed}`);
    const said = `Measured natively over ${MEASURED.seeds} other seeds at the page's settings (B = 16), `;
    if (!m.shows.length) {
      return [' ', el('span', { class: 'budget-note' }, `${said}it did not show at any budget measured (${list(m.steps)} steps; `,
        cmd(Math.max(...m.steps)), ', docs/experiments.md).')];
    }
    const not = m.steps.filter((x) => !m.shows.includes(x));
    const at = m.shows.find((x) => x > comparison.steps) ?? m.shows[0];
    return [' ', el('span', { class: 'budget-note' }, `${said}it shows at ${list(m.shows)} steps${not.length ? ` (not at ${list(not, 'or')})` : ''}; `,
      cmd(at), ', docs/experiments.md',
      m.shows.includes(BUDGETS.lesson) && comparison.steps !== BUDGETS.lesson ? `. The second budget above trains at ${count(BUDGETS.lesson)}.` : '.')];
  }

  const canonical = () => runs.get('canonical');

  const waiting = new Map();  // Planned -> its card while it has no run
  function waitingCard(p) {
    let c = waiting.get(p);
    if (!c) {
      c = { facts: el('p', { class: 'run-facts' }) };
      c.card = el('article', { class: 'run-card variant-card status-queued', 'data-run': p.key }, el('h3', {}, el('code', {}, p.variant)),
        el('progress', { max: p.settings.steps, value: 0, 'aria-label': `${p.label}: waiting` }), c.facts);
      waiting.set(p, c);
    }
    c.facts.textContent = p.cancelled ? 'not run: stopped before it started' : 'waiting for a free core';
    return c.card;
  }

  // the seeds of a variant, as one line under its first seed's card
  function seedLine(variant) {
    const mine = plan.filter((p) => p.variant === variant);
    if (mine.length < 2) return '';
    const done = mine.filter((p) => p.run?.status === 'done').length;
    const running = mine.filter((p) => p.run && BUSY.includes(p.run.status)).length;
    const queued = mine.filter((p) => !p.run && !p.cancelled).length;
    return [`seeds ${mine[0].seed}–${mine.at(-1).seed}: ${done} done`, running ? `${running} training` : '', queued ? `${queued} waiting` : '']
      .filter(Boolean).join(', ');
  }

  const cards = new Map();
  function card(run) {
    let c = cards.get(run);
    if (!c) {
      c = {
        title: el('h3', {}), badges: el('p', { class: 'badges' }), progress: el('progress', {}), facts: el('p', { class: 'run-facts' }),
        seeds: el('p', { class: 'run-facts seed-line' }), lesson: el('p', { class: 'lesson' }), measured: el('p', { class: 'measured' }),
        leaks: el('div', {}), sample: el('div', {}), shown: '',
      };
      c.card = el('article', { class: 'run-card variant-card', 'data-run': run.key }, c.title, c.badges, c.progress, c.facts,
        c.seeds, c.lesson, c.measured, c.leaks, c.sample);
      cards.set(run, c);
    }
    const steps = run.settings.steps;
    c.card.className = `run-card variant-card status-${run.status}${run.restoredAt ? ' restored' : ''}`;
    c.card.dataset.state = runState(run, run.facts?.baselineLoss ?? null);
    c.title.replaceChildren(el('code', {}, run.key), ' ', el('span', { class: 'muted' }, run.key === 'canonical'
      ? 'view(B,T,H,d_h).transpose(1,2), scores / √d_h' : lesson(run.key).title));
    c.progress.max = steps;
    c.progress.value = run.stepsDone;
    c.progress.setAttribute('aria-label', `${run.label}: ${Math.round((100 * run.stepsDone) / steps)}% of the steps done`);
    const ms = run.msPerStep();
    const val = run.val.loss.at(-1);
    c.facts.textContent = [
      restoredMark(run),
      STATE_WORD[c.card.dataset.state],
      `step ${count(run.stepsDone)} / ${count(steps)}`,
      comparison?.seeds > 1 ? `seed ${run.settings.seed}` : '',
      Number.isFinite(ms) ? `${ms.toFixed(1)} ms per step` : '',
      val !== undefined ? `val ${val.toFixed(3)}` : '',
    ].filter(Boolean).join(' · ');
    c.seeds.textContent = seedLine(run.key);
    c.badges.replaceChildren(...badges(run));
    const sc = seedComparison();
    const g = comparison?.variants.indexOf(run.key) ?? -1;
    const verdict = sc?.c?.ok && g > 0 ? sc.c.lessons[g] : '';
    const key = `${run.status}|${!!run.causality.init}|${!!run.causality.trained}|${run.error}|${canonical()?.status}|${run.sample.length}|${verdict}`;
    if (c.shown !== key) {
      c.shown = key;
      c.lesson.replaceChildren(...(run.key === 'canonical' ? ['The reference every variant is measured against.']
        : [el('strong', {}, 'The lesson predicts: '), lesson(run.key).prediction]));
      c.measured.replaceChildren(...measured(run, sc, g));
      c.leaks.replaceChildren(...leakList(run));
      c.sample.replaceChildren(...(run.sample ? [el('figure', { class: 'sample' },
        el('figcaption', {}, `Generated by ${run.key} after ${run.stepsDone} steps (it sees only what it has written so far)`),
        el('pre', {}, run.sample))] : run.status === 'failed' ? [el('p', { class: 'run-facts' }, 'It could not train: the reason is above the runs.')] : []));
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

  // what this run (the first seed) measured against canonical's first seed, the checks one run can make, and the
  // core's verdict over the seeds on the lesson's claim about the loss once every variant has finished them
  function measured(run, sc, g) {
    const can = canonical();
    if (run.status !== 'done' || !run.val.loss.length) return [];
    const val = run.val.loss.at(-1), r = run.causality.trained;
    if (run.key === 'canonical') {
      return [el('strong', {}, 'Measured: '), `validation loss ${val.toFixed(3)}; ${r ? (r.causal ? 'no output depends on a later token' : `${count(r.nLeaks)} leaking pairs`) : ''}; ${run.msPerStep().toFixed(1)} ms per step.`];
    }
    if (!can || can.status !== 'done' || !can.val.loss.length) return [el('span', { class: 'muted' }, 'Waiting for the canonical run to compare.')];
    const cv = can.val.loss.at(-1);
    const m = {
      leaks: r ? r.nLeaks : NaN, dParams: run.facts.params - can.facts.params,
      msRatio: run.msPerStep() / can.msPerStep(), D: run.facts.dModel, layers: run.facts.nLayers,
    };
    const parts = [
      `validation loss ${val.toFixed(3)}, against canonical's ${cv.toFixed(3)} with the same seed (${signed(val - cv)})`,
      r ? (r.causal ? 'no output depends on a later token' : `${count(r.nLeaks)} (output, later input) pairs leak`) : 'causality not checked',
      m.dParams === 0 ? 'the same parameter count' : `${m.dParams > 0 ? '+' : '−'}${count(Math.abs(m.dParams))} parameters`,
      `${run.msPerStep().toFixed(1)} ms per step (${m.msRatio.toFixed(2)}× canonical's, measured in the worker; the runs share the cores)`,
    ];
    const out = [el('strong', {}, 'This run measured: '), `${parts.join('; ')}.`];
    for (const v of [lesson(run.key).check(m)].flat()) {
      out.push(' ', el('span', { class: `verdict ${v.held ? 'held' : 'not-held'}` },
        v.held ? `Predicted ${v.what}: held here.` : `Predicted ${v.what}: not seen here.`));
    }
    if (sc?.c?.ok && g > 0) {
      out.push(' ', el('span', { class: 'seed-verdict' }, el('strong', {}, 'Over the seeds: '), sc.c.lessons[g]));
      const d = sc.c.toReference[g];
      if (r && !r.causal && d.outcome === 'effect' && d.mean < 0) {
        out.push(' Its loss is lower because it reads the characters it is asked to predict; the sample below is what it writes when the future is not there to read.');
      }
    } else if (comparison?.seeds > 1) {
      out.push(' ', el('span', { class: 'muted' }, 'The loss is judged over the paired seeds once every variant has finished the same seeds (below the charts).'));
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
      Math.abs(d) < SETTINGS.swapSmall
        ? 'Here the difference is small: after this short training the heads are not yet specialised enough for the re-cut to matter much (on a task where they are, tests/test_variants.cpp measures 6.5e-5 → 0.50).'
        : 'Same numbers, cut into heads differently: silently a different model.');
    ui.swapText.classList.remove('muted');
  }

  function showError(message) { showAlert(ui.error, message ? app.readable(message) : ''); }

  // ---------------------------------------------------------------- kept in this browser (run_store.js)
  // the comparison as the browser keeps it (the runs are kept one by one); the shipped corpus is not copied
  function savedPlan() {
    const { text, startedAt, ...rest } = comparison;
    return { comparison: rest, entries: plan.map(({ run, ...p }) => p) };
  }

  // the comparison this panel had before the reload, back: finished runs as they ended, training ones paused at
  // their last full snapshot, queued ones waiting; "Continue the restored runs" trains the rest
  async function restore(records) {
    const kept = new Map(records.filter((r) => r.kind === 'run').map((r) => [r.key, r.run]));
    const saved = records.find((r) => r.kind === 'plan')?.plan;
    if (runs.size || !saved) return;
    let text;
    try {
      text = await loadCorpus();
    } catch (e) {
      return showError(String(e.message ?? e));
    }
    if (runs.size) return;  // the user started a comparison meanwhile
    comparison = { ...saved.comparison, text, startedAt: performance.now() };
    plan = saved.entries.map((p) => ({ ...p, run: kept.has(p.key) ? Run.restore({ ...kept.get(p.key), text }, keptEvent) : null }));
    for (const p of plan) if (p.run) runs.set(p.key, p.run);
    held = plan.some((p) => !p.cancelled && (!p.run || kept.get(p.key).status !== 'done'));
    stopped = false;
    draw();
  }

  // ---------------------------------------------------------------- events
  for (const inp of form.inputs) inp.addEventListener('input', read);
  ui.start.addEventListener('click', startAll);
  ui.stop.addEventListener('click', () => {
    stopped = true;
    held = false;
    for (const p of plan) if (!p.run) p.cancelled = true;
    if (comparison) app.keeper.plan('break', savedPlan());
    for (const r of runs.values()) r.stop();
    draw();
  });

  ui.resume.addEventListener('click', () => {
    held = false;
    for (const r of runs.values()) r.start();
    fill();
    draw();
  });

  return { show, restore, runs: () => [...runs.values()] };
}
