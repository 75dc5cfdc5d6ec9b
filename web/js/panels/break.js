// The break panel, "Break it": the lesson's attention bugs (core/nn/config.hpp, AttentionVariant), each trained beside
// the canonical layer at the same budget over S paired seeds (seed s: the same initialisation and batch order for
// every variant), one worker per run, as many at once as the machine has cores and the rest queued. Per variant: a
// small chart with its band over the seeds beside canonical's; a card for its first seed with the core's causality
// check on the random and the trained weights (the leaking pairs on demand), the parameter difference, time per step,
// a sample; and, once every variant has finished the same seeds, a table and the core's verdict in the lesson's terms
// (compareVariants: core/lab/variant_lessons.hpp). Plus the canonical weights read in the swapped order.
// Wiring only: every number and every verdict comes from the core in the workers or in the page's module.
import { loadCorpus } from '../data.js';
import { checkRun, compareVariants, constants, refusal } from '../engine.js';
import { Comparison, evalGrid, holdsSlot, scaledSchedule, seedMajor } from '../comparison.js';
import { finalColumns, finalRows, noPairedSeed, pairedSeeds, seedsCaption } from '../seed_table.js';
import { publishFinding } from '../findings.js';
import { streams } from '../protocol.js';
import { drawScheduler, stepsBetween } from '../runs.js';
import { cardWord, failureSentence, panelStatus, runState } from '../run_state.js';
import { SeedCurvesView } from '../views/seed_curves_view.js';
import { buttonById, count, el, inputById, plural, showAlert, showRejection, table } from '../views/dom.js';
import { numberFields } from '../views/number_fields.js';
import { measuredSpeed, runsEstimate } from './heads_budget.js';
import { restoredMark } from '../views/saved_runs_view.js';
import { WaitingCards } from '../views/waiting_cards.js';
import { signed } from '../views/seed_words.js';
import { liveToggle } from '../views/live_toggle.js';

const SETTINGS = {
  evalPoints: 10,          // validation measurements per run (plus step 0)
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
// the page's second budget: the one at which both leaking variants were measured to read the future
// (no_transpose_split's loss is still above canonical's at the default, the core's preset: 200 steps)
const LESSON_BUDGET = 500;

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

const duration = (seconds) => (seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`);

/**
 * The expected number of runs and wall time of a comparison, at this browser's speed (heads_budget.js: the median
 * over its finished runs of the same model, Break it's and the heads panel's, else the speed measured on an idle
 * machine).
 * @param {{variants: number, seeds: number, steps: number, batch: number, slots: number}} p variants besides canonical
 * @param {{speed: number, sameSizes: boolean}} measured measuredSpeed()
 * @param {number} [kept] runs the comparison before would keep instead of training them (comparison.js wouldKeep)
 * @returns {{runs: number, seconds: number, speed: number, source: string}} runs: those that train
 */
export function breakPlan({ variants, seeds, steps, batch, slots }, measured, kept = 0) {
  return runsEstimate({ runs: (variants + 1) * seeds - kept, steps, batch, context: constants().presets.break.settings.context }, measured, slots);
}

/**
 * @param {object} app shared page state: { state, save(), readable(msg) }
 */
export function setupBreak(app) {
  const ui = {
    variants: $('b-variants'), steps: inputById('b-steps'), batch: inputById('b-batch'), lr: inputById('b-lr'), seed: inputById('b-seed'),
    seeds: inputById('b-seeds'), budget: $('b-budget'), plan: $('b-plan'),
    start: buttonById('b-start'), stop: buttonById('b-stop'), error: $('b-error'), status: $('b-status'), runs: $('b-runs'),
    charts: $('b-charts'), final: $('b-final'), swapText: $('b-swap-text'),
  };
  const form = numberFields([[ui.steps, 'bsteps', 'Steps'], [ui.batch, 'bbatch', 'The batch B'], [ui.seed, 'bseed', 'The seed'],
    [ui.seeds, 'bseeds', 'Seeds per variant'], [ui.lr, 'blr', 'The learning rate']]);
  // the comparison being trained (comparison.js): its meta are the variants (canonical first) and seeds as they were
  // when Train was clicked ({variants, seeds, steps, evalSteps}); its plan one entry per variant and seed (with
  // variant); its runs by key, a variant's first seed under the variant's name. Runs taken back after a reload wait
  // for "Continue" (ui.resume)
  const comp = new Comparison({ panel: 'break', keeper: app.keeper, onEvent: (e) => onEvent(e) });
  const { runs, slots } = comp;
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
  const budgets = /** @type {Array<[string, number]>} */ ([['default', constants().presets.break.settings.steps], ['lesson', LESSON_BUDGET]]).map(([name, steps]) => {
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
    // this browser's speed on the break panel's model (the core's preset), from its runs and the heads panel's
    const d = constants().presets.break.settings;
    const measured = measuredSpeed([...runs.values(), ...app.runs.values()],
      { cD: d.dModel, layers: d.nLayers, context: d.context, batch: s.bbatch });
    for (const b of budgets) {
      b.radio.checked = s.bsteps === b.steps;
      b.text.textContent = `(about ${duration(breakPlan({ variants: G, seeds: s.bseeds, steps: b.steps, batch: s.bbatch, slots }, measured).seconds)} here)`;
    }
    if (![s.bseeds, s.bsteps, s.bbatch].every(Number.isInteger)) return;
    // the runs the comparison before would keep (the same settings and seed) do not train again; Break it always
    // trains on the shipped corpus, so the text is the comparison's own
    const kept = comp.wouldKeepNow(JSON.stringify(s), () => {
      const checked = runSettings();
      return 'error' in checked ? null : { entries: planned(checked.settings), text: comp.text };
    });
    const all = (G + 1) * s.bseeds;
    const p = breakPlan({ variants: G, seeds: s.bseeds, steps: s.bsteps, batch: s.bbatch, slots }, measured, kept);
    const time = p.runs ? `${Math.min(slots, p.runs)} at a time (one per core here): about ${duration(p.seconds)} ` +
      `(${count(Math.round(p.speed))} tokens/s per worker, ${p.source})` : 'nothing to train';
    ui.plan.textContent = `Canonical and every variant train with seeds ${s.bseed} to ${s.bseed + s.bseeds - 1} ` +
      `(paired: seed s is the same initialisation and batch order for all of them): ${G + 1} settings × ` +
      `${plural(s.bseeds, 'seed')} = ${plural(all, 'run')} of ${count(s.bsteps)} steps` +
      `${kept ? ` (${kept === all ? 'all' : kept} kept from the comparison before)` : ''}, ${time}. ` +
      'With one seed the page can compare numbers but not tell an effect from noise.';
  }

  // the comparison's runs: canonical and each variant, per seed; the first seed keeps the variant's name as its key
  // (its card, the causality check, the swap check, the sample: a later seed's run makes no sample)
  function planned(settings) {
    const names = ['canonical', ...app.state.variants];
    return seedMajor(names.map((v) => ({ variant: v, key: v, label: v })), app.state.bseeds, app.state.bseed, (s, seed, index) =>
      ({ ...settings, variant: s.variant, seed, causality: index === 0, swapCheck: s.variant === 'canonical' && index === 0,
        ...(index ? { sample: false } : {}) }));
  }

  function runSettings() {
    const s = app.state;
    const err = form.error(s)
      ?? (s.variants.length >= 1 ? null : 'Pick at least one variant to train beside the canonical model.');
    if (err) return { error: err };
    // the core's preset for Break it (its model and task), with the form's batch, schedule and seed
    const settings = {
      ...constants().presets.break.settings, batch: s.bbatch, ...scaledSchedule(constants().presets.break.settings, s.bsteps, s.blr),
      seed: s.bseed, causality: true,
      evalEvery: stepsBetween(s.bsteps, SETTINGS.evalPoints), snapshotEvery: stepsBetween(s.bsteps, 5),
    };
    const lastSeed = s.bseed + s.bseeds - 1;
    const error = refusal([...['canonical', ...s.variants].map((variant) => checkRun({ ...settings, variant })),
      checkRun({ ...settings, seed: lastSeed })]);
    return error ? { error } : { settings };
  }

  // ---------------------------------------------------------------- runs
  async function startAll() {
    showError('');
    const checked = runSettings();
    if ('error' in checked) return showRejection(ui.error, app.readable(checked.error), form.invalid(app.state) ?? ui.start);
    const { settings } = checked;
    let text;
    try {
      text = await loadCorpus();
    } catch (e) {
      return showError(String(e.message ?? e));
    }
    cards.clear();
    delete document.documentElement.dataset.breakit;
    publishFinding('break', null);  // the lesson waits for the new runs
    const names = ['canonical', ...app.state.variants];
    // the schedule's evaluation steps: the seeds' validation curves are compared there (SeedCurvesView)
    comp.start({ entries: planned(settings), text,
      meta: { variants: names, seeds: app.state.bseeds, steps: settings.steps, evalSteps: evalGrid(settings.steps, settings.evalEvery) } });
    draw();
  }

  function onEvent(e) {
    // the same failure of several runs is said once, naming the runs only when they differ
    if (e.type === 'failed') showError(failureSentence(comp.entries(), app.readable));
    schedule(!streams(e.type));
  }

  // redraws at most every runs.js SETTINGS.liveDrawMs, in an animation frame (see drawScheduler)
  const schedule = drawScheduler(() => draw());
  ui.stop.after(liveToggle());  // the page's pause for moving charts (WCAG 2.2.2)

  // ---------------------------------------------------------------- drawing
  function draw() {
    const all = [...runs.values()];
    const { held } = comp;
    const queued = comp.queued();
    describePlan();  // the estimate follows this browser's speed as runs finish
    const baseline = all.find((r) => r.facts)?.facts.baselineLoss ?? null;
    drawCharts(baseline);
    // the one status sentence and the buttons, from the run-state machine (run_state.js)
    const st = panelStatus(comp.entries(), {
      baseline, baselineName: 'the unigram guess', queued, held,
      paused: held ? 'Restored from this browser, paused: "Continue the restored runs" trains the rest.' : '',
      training: `${Math.min(slots, comp.plan.length)} at a time (one per core here)${queued ? `; ${queued} waiting` : ''}.`,
      wayBack: () => 'at this learning rate; Stop ends the comparison with what has trained',
      done: () => {
        const wall = comp.ended();
        const trained = all.filter((r) => r.status === 'done').length;
        // every run kept from the comparison before: nothing trained, no wall time to speak of
        const time = comp.reusedAll() ? ''
          : ` in ${wall.toFixed(1)} s of wall time, ${Math.min(slots, comp.plan.length)} at a time`;
        return `Done: ${plural(trained, 'run')} (canonical and ${plural(comp.meta.variants.length - 1, 'variant')}, ` +
          `${plural(comp.meta.seeds, 'seed')} each)${time}.`;
      } });
    ui.stop.disabled = !st.buttons.stop.enabled;
    ui.start.textContent = all.length ? 'Train again' : 'Train';
    ui.resume.hidden = !held;
    const nodes = (comp.meta?.variants ?? []).map((v) => {
      const first = comp.plan.find((p) => p.variant === v && p.index === 0);
      return first.run ? card(first.run) : waiting.card(first);
    });
    if (nodes.length !== ui.runs.children.length || nodes.some((n, i) => ui.runs.children[i] !== n)) ui.runs.replaceChildren(...nodes);
    waiting.prune(comp.plan);
    drawSwap();
    ui.final.replaceChildren(...finalTable());
    // the worker sends the causality report and the swap check before 'done', so a done run has them
    ui.status.textContent = [comp.note, st.sentence, comp.reusedSentence()].filter(Boolean).join(' ');
    ui.status.dataset.state = st.state;
    if (['done', 'no-better', 'failed'].includes(st.state)) document.documentElement.dataset.breakit = 'done';
  }

  // one small chart per variant: its band over the seeds beside canonical's (the same on every chart)
  const charts = new Map();  // variant -> { figure, view }
  function drawCharts(baseline) {
    const group = (v) => ({ label: v, seeds: comp.meta.seeds, runs: comp.plan.filter((p) => p.variant === v && p.run).map((p) => p.run),
      grid: comp.meta.evalSteps });
    const shown = (comp.meta?.variants ?? []).slice(1);
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

  /** the paired seeds (seed_table.js) and the core's comparison of their final losses, or null before Train */
  function seedComparison() {
    if (!comp.active) return null;
    const { variants: names, seeds } = comp.meta;
    const paired = pairedSeeds(comp.plan, (p) => p.variant, names, seeds);
    if (!paired.complete.length) return { paired };
    const c = compareVariants(names, paired.used.map((rs) => rs.map((r) => r.val.loss.at(-1))), comp.meta.steps);
    return { paired, c };
  }

  // the final table and the core's verdicts, in the lesson's terms, with the budget at which a symptom was measured
  function finalTable() {
    const sc = seedComparison();
    if (!sc) return [];
    const { paired, c } = sc;
    if (!c) {
      const why = noPairedSeed(paired, 'canonical and every variant');
      return why ? [el('p', { class: 'table-caption' }, why)] : [];
    }
    if (c.ok === false) return [el('p', { class: 'alert', role: 'alert' }, app.readable(c.error))];
    const names = comp.meta.variants;
    // for the lesson (findings.js): the same numbers, as data
    publishFinding('break', { variants: names, steps: comp.meta.steps, seedList: paired.seedList,
      complete: paired.complete.length, training: paired.training, toReference: c.toReference, lessons: c.lessons });
    const rows = finalRows(names, paired.used, c);
    const caption = `Final validation loss after ${count(comp.meta.steps)} steps ${seedsCaption(paired, comp.meta.seeds, 'canonical and every variant')}`;
    const verdicts = names.map((v, g) => (c.lessons[g] ? el('li', { 'data-variant': v },
      el('span', { class: 'lesson-verdict' }, c.lessons[g]), ...budgetNote(v, c, g)) : null)).filter(Boolean);
    return [table(caption, finalColumns('variant', 'canonical'), rows, { class: 'final-table', stack: true }),
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
    const at = m.shows.find((x) => x > comp.meta.steps) ?? m.shows[0];
    return [' ', el('span', { class: 'budget-note' }, `${said}it shows at ${list(m.shows)} steps${not.length ? ` (not at ${list(not, 'or')})` : ''}; `,
      cmd(at), ', docs/experiments.md',
      m.shows.includes(LESSON_BUDGET) && comp.meta.steps !== LESSON_BUDGET ? `. The second budget above trains at ${count(LESSON_BUDGET)}.` : '.')];
  }

  const canonical = () => runs.get('canonical');

  const waiting = new WaitingCards({ tag: 'article', cardClass: 'variant-card', title: (p) => el('code', {}, p.variant) });

  // the seeds of a variant, as one line under its first seed's card
  function seedLine(variant) {
    const mine = comp.plan.filter((p) => p.variant === variant);
    if (mine.length < 2) return '';
    const done = mine.filter((p) => p.run?.status === 'done').length;
    const running = mine.filter((p) => p.run && holdsSlot(p.run)).length;
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
      cardWord(run, c.card.dataset.state),
      `step ${count(run.stepsDone)} / ${count(steps)}`,
      comp.meta?.seeds > 1 ? `seed ${run.settings.seed}` : '',
      Number.isFinite(ms) ? `${ms.toFixed(1)} ms per step` : '',
      val !== undefined ? `val ${val.toFixed(3)}` : '',
    ].filter(Boolean).join(' · ');
    c.seeds.textContent = seedLine(run.key);
    c.badges.replaceChildren(...badges(run));
    const sc = seedComparison();
    const g = comp.meta?.variants.indexOf(run.key) ?? -1;
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
    } else if (comp.meta?.seeds > 1) {
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
  // the comparison this panel had before the reload, back (comparison.js); "Continue the restored runs" trains the rest
  async function restore(records) {
    try {
      if (await comp.restore(records, loadCorpus)) draw();
    } catch (e) {
      showError(String(e.message ?? e));
    }
  }

  // ---------------------------------------------------------------- events
  for (const inp of form.inputs) inp.addEventListener('input', read);
  ui.start.addEventListener('click', startAll);
  ui.stop.addEventListener('click', () => { comp.stop(); draw(); });

  ui.resume.addEventListener('click', () => { comp.resume(); draw(); });

  return { show, restore, runs: () => [...runs.values()] };
}
