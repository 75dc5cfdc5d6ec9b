// The lesson (?lesson=1, or lesson=reshape,heads,offsets for some steps): one step at a time, a question and a
// prediction the student commits to before the step's panel appears; then the panel, in place, with the step's
// settings; then the judgement of the prediction, computed from the core's results on the student's own runs
// (steps.js reads them, judge.js compares), with the explanation and the concept. Progress and predictions are kept
// with the runs (run_store.js, the 'lesson' plan record) and come back after a reload; "Save my lesson" writes the
// report (report.js). Wiring and DOM only.
import { compareOverSeeds, constants, headLayout, parameterLedger, workedExample } from '../engine.js';
import { latestFinding, onFinding } from '../findings.js';
import { download, el } from '../views/dom.js';
import { judge, words } from './judge.js';
import { readLessonFile, reportBody, reportHtml, FORMAT, VERSION } from './report.js';
import { chosenSteps } from './steps.js';

/**
 * @typedef {{predicted: string|number|null, committedAt: number, judgement: import('./judge.js').Judgement|null,
 *            reading: import('./steps.js').Reading|null, earlier: {predicted: string, mark: string}[],
 *            charts: {id: string, png: string}[], settings: string}} StepProgress
 *   predicted: null while the student predicts again; reading: the last one the runs gave (a prediction made again
 *   is judged by the same runs until newer ones say something); earlier: the predictions judged before, kept for the
 *   report
 * @typedef {{current: string, steps: Record<string, StepProgress>}} Progress
 */

const $ = (id) => document.getElementById(id);

/**
 * @param {import('../main.js').App} app
 * @param {{ok: boolean, reason: string, load(panel: string): Promise<object[]>,
 *          putPlan(panel: string, plan: object|null): Promise<void>}} store where progress is kept (run_store.js);
 *   reason says why nothing is kept where it is refused
 */
export function setupLesson(app, store) {
  const root = $('lesson');
  /** @type {Progress} */
  let progress = { current: '', steps: {} };
  let loaded = false;
  /** @type {import('./report.js').LessonRecord|null} a lesson file opened to be read (an instructor's view) */
  let opened = null;
  let openError = '';

  /** @type {import('./steps.js').Context} */
  const ctx = {
    get state() { return app.state; },
    finding: latestFinding,
    vocab: () => app.vocabSize(),
    core: { compareOverSeeds, constants, headLayout, parameterLedger, workedExample },
  };

  const steps = () => chosenSteps(app.state.lesson);
  const current = () => steps().find((s) => s.id === progress.current) ?? steps()[0];
  const stepProgress = (id) => progress.steps[id] ?? null;

  store.load('lesson').then((records) => {
    const kept = /** @type {any} */ (records.find((r) => /** @type {any} */ (r).kind === 'plan'))?.plan;
    if (kept && typeof kept.current === 'string' && kept.steps && typeof kept.steps === 'object') progress = kept;
  }).catch(() => {}).finally(() => {
    loaded = true;
    show();
    rejudge();
  });

  const keep = () => store.putPlan('lesson', progress).catch(() => {});

  // the step's settings and panels, as a link would set them
  function openPanels(step) {
    app.setSettings({ ...step.settings(ctx), panel: step.panel });
  }

  function go(step) {
    progress.current = step.id;
    keep();
    if (stepProgress(step.id)) openPanels(step);
    show();
    rejudge();  // runs that finished while another step was shown
    root.querySelector('h3')?.focus();
  }

  function commit(step, value) {
    const p = progress.steps[step.id] ?? { predicted: null, committedAt: 0, judgement: null, reading: null, earlier: [], charts: [], settings: '' };
    Object.assign(p, { predicted: value, committedAt: Date.now(), judgement: null });
    progress.steps[step.id] = p;
    keep();
    openPanels(step);
    rejudge();
  }

  // the chart pictures of a judged step, as they are now
  function pictures(step) {
    return step.charts.flatMap((id) => {
      const canvas = /** @type {HTMLCanvasElement|null} */ ($(id)?.querySelector('canvas'));
      if (!canvas || !canvas.width || !canvas.height) return [];
      return [{ id, png: canvas.toDataURL('image/png') }];
    });
  }

  // what the step's runs were (for the report), by the panel that trained them
  function settingsOf(step) {
    const s = app.state;
    const seeds = (first, n) => `seeds ${first}–${first + n - 1}`;
    if (step.panel.includes('break')) return `Break it, canonical and ${s.variants.join(', ')}, ${s.bsteps} steps, ${seeds(s.bseed, s.bseeds)}`;
    if (step.panel.includes('heads')) {
      return s.ctask === 'offsets' ? `the offsets task, H = ${s.oheads.join(', ')}, ${seeds(s.cseed, s.oseeds)}`
        : `Heads, compared, H = ${s.heads.join(', ')}, ${s.steps} steps, ${seeds(s.cseed, s.seeds)}`;
    }
    if (step.panel.includes('induction')) return `Induction heads, ${s.ntask} setting, ${s.nsteps} steps, seed ${s.nseed}`;
    if (step.panel.includes('worked')) return 'the worked example\'s X and weights as in the panel';
    return '';
  }

  // the judgement of the shown step from the latest findings; kept once the runs have said something
  // (redrawn only when the judgement changed: the panels publish on every redraw while they train, and a redraw of
  // the lesson would take the focus and a half-typed prediction away)
  function rejudge() {
    const step = current();
    const p = step && stepProgress(step.id);
    if (!p || p.predicted === null) return;
    let reading = step.read(ctx);
    if (reading.ready) p.reading = reading;
    else if (p.reading) reading = p.reading;
    const j = judge(step.prediction(ctx), p.predicted, reading);
    const before = p.judgement;
    const same = before && before.mark === j.mark && before.sentence === j.sentence && before.evidence === j.evidence;
    if (same) return;
    if (j.mark !== 'waiting' || !before || before.mark === 'waiting') p.judgement = j;
    if (j.mark !== 'waiting') {
      p.charts = pictures(step);
      p.settings = settingsOf(step);
      keep();
    }
    show();
  }
  onFinding(() => rejudge());

  // ---------------------------------------------------------------- drawing
  function show() {
    const on = app.state.lesson.length > 0;
    root.hidden = !on;
    document.documentElement.dataset.lesson = on ? 'on' : '';
    if (!on) {
      delete document.documentElement.dataset.lessonHold;
      return;
    }
    if (!loaded) {
      root.replaceChildren(el('p', { class: 'muted' }, 'Taking back your lesson…'));
      return;
    }
    const list = steps();
    if (!list.length) {
      root.replaceChildren(el('p', { class: 'alert' }, 'This lesson link names no step of the lesson.'));
      return;
    }
    const step = current();
    const p = stepProgress(step.id);
    // the step's panel appears once a prediction is committed
    if (p) delete document.documentElement.dataset.lessonHold;
    else document.documentElement.dataset.lessonHold = 'true';
    document.documentElement.dataset.lessonStep = step.id;
    const index = list.indexOf(step);
    root.replaceChildren(
      el('h2', { id: 'lesson-title' }, 'Lesson: how does attention specialise?'),
      nav(list, step),
      el('div', { class: 'lesson-step', 'data-step': step.id },
        el('h3', { tabindex: '-1' }, `Step ${index + 1} of ${list.length}: ${step.title}`),
        el('p', { class: 'lesson-question' }, step.question(ctx)),
        p && p.predicted !== null ? committed(step, p) : predictionForm(step, p)),
      el('div', { class: 'lesson-moves' },
        button('Previous step', index === 0, () => go(list[index - 1])),
        button('Next step', index === list.length - 1, () => go(list[index + 1]))),
      files(),
    );
  }

  function button(label, disabled, onClick, attrs = {}) {
    const b = el('button', { type: 'button', class: 'button', disabled, ...attrs }, label);
    b.addEventListener('click', onClick);
    return b;
  }

  const MARK = { right: '✓', wrong: '✗', undecided: '?', waiting: '…' };
  function nav(list, step) {
    return el('ol', { class: 'lesson-nav', 'aria-label': 'Steps of the lesson' }, ...list.map((s) => {
      const mark = stepProgress(s.id)?.judgement?.mark ?? (stepProgress(s.id) ? 'waiting' : '');
      // on a phone only the step's number and mark show; the name and the mark's words are read out everywhere
      const b = button('', false, () => go(s), { 'aria-current': s === step ? 'step' : false, 'data-mark': mark || false });
      b.append(el('span', { class: 'lesson-nav-title' }, s.title), mark ? el('span', { 'aria-hidden': 'true' }, ` ${MARK[mark]}`) : '',
        mark ? el('span', { class: 'sr-only' }, `: ${MARK_WORD[mark] ?? 'predicted, not judged yet'}`) : '');
      return el('li', {}, b);
    }));
  }

  function predictionForm(step, p) {
    const pred = step.prediction(ctx);
    const name = `lesson-${step.id}`;
    const error = el('p', { class: 'alert', role: 'alert', hidden: true });
    const legend = el('legend', {}, 'Your prediction, before you run anything');
    let field;
    /** @type {() => string|number|null} */
    let value;
    if (pred.kind === 'choice') {
      field = el('div', { class: 'lesson-choices' }, ...pred.choices.map((c, i) => el('label', {},
        el('input', { type: 'radio', name, value: c.value, id: `${name}-${i}` }), ` ${c.label}`)));
      value = () => /** @type {HTMLInputElement|null} */ (field.querySelector('input:checked'))?.value ?? null;
    } else {
      const input = /** @type {HTMLInputElement} */ (el('input', { type: 'number', id: `${name}-n`, min: pred.min, max: pred.max, step: 1, inputmode: 'numeric' }));
      field = el('label', { for: `${name}-n` }, `Number of ${pred.unit} (${pred.min}–${pred.max}) `, input);
      value = () => {
        const v = Number(input.value);
        return input.value.trim() !== '' && Number.isInteger(v) && v >= pred.min && v <= pred.max ? v : null;
      };
    }
    const commitIt = () => {
      const v = value();
      if (v === null) {
        error.textContent = pred.kind === 'choice' ? 'Choose one answer first.' : `Type a whole number from ${pred.min} to ${pred.max} first.`;
        error.hidden = false;
        return;
      }
      commit(step, v);
    };
    const commitButton = button('Commit my prediction', false, commitIt, { class: 'button primary', 'data-action': 'commit' });
    const form = el('form', { class: 'lesson-predict' }, ...earlierLine(p), el('fieldset', {}, legend, field), commitButton, error,
      el('p', { class: 'muted' }, p ? 'Your runs below judge this prediction too; train again for new ones.'
        : 'The step\'s panel appears once you have committed: the lab then judges your prediction from your own runs.'));
    // Enter in the number box commits, and never reloads the page
    form.addEventListener('submit', (e) => { e.preventDefault(); commitIt(); });
    return form;
  }

  // the predictions judged before on this step, for the student and the report
  function earlierLine(p) {
    if (!p?.earlier.length) return [];
    return [el('p', { class: 'lesson-earlier' }, el('strong', {}, 'Before: '), earlierWords(p))];
  }
  const earlierWords = (p) => p.earlier.map((e) => `“${e.predicted}” (${MARK_WORD[e.mark] ?? e.mark})`).join('; ');
  const MARK_WORD = { right: 'right', wrong: 'not this time', undecided: 'cannot tell yet' };

  function committed(step, p) {
    const pred = step.prediction(ctx);
    const j = p.judgement;
    /** @type {HTMLElement[]} */
    const parts = [el('p', { class: 'lesson-predicted' }, el('strong', {}, 'Your prediction: '), words(pred, /** @type {string|number} */ (p.predicted))),
      el('p', { class: 'lesson-run' }, step.run)];
    const box = el('div', { class: `lesson-judgement mark-${j?.mark ?? 'waiting'}`, role: 'status', 'data-mark': j?.mark ?? 'waiting' },
      el('p', {}, el('strong', {}, { right: 'Right. ', wrong: 'Not this time. ', undecided: 'Cannot tell yet. ', waiting: 'Waiting for your runs. ' }[j?.mark ?? 'waiting']),
        j?.sentence ?? ''));
    if (j && j.evidence) box.append(el('p', { class: 'lesson-evidence' }, j.evidence));
    if (j?.mark === 'undecided' && j.more) {
      const { setting, seeds } = j.more;
      box.append(button(`Use ${seeds} seeds`, false, () => {
        app.setSettings({ [setting]: Math.min(seeds, 16) });
        rejudge();
      }, { 'data-action': 'more-seeds' }), el('span', { class: 'muted' }, ' then train again in the panel below (every seed is trained anew).'));
    }
    parts.push(box);
    if (j && j.mark !== 'waiting') {
      parts.push(el('p', { class: 'lesson-explanation' }, el('strong', {}, 'Why. '), step.explanation),
        el('p', { class: 'lesson-concept' }, el('strong', {}, 'The concept. '), step.concept));
    }
    // before the runs have said anything the prediction may change; after, it is kept and a new one is added
    const judged = j && j.mark !== 'waiting';
    parts.push(...earlierLine(p), button(judged ? 'Predict again' : 'Change my prediction', false, () => {
      if (judged) p.earlier.push({ predicted: words(pred, /** @type {string|number} */ (p.predicted)), mark: j.mark });
      Object.assign(p, { predicted: null, judgement: null });
      keep();
      show();
    }, { class: 'button quiet', 'data-action': judged ? 'again' : 'uncommit' }));
    return el('div', { class: 'lesson-committed' }, ...parts);
  }

  // ---------------------------------------------------------------- the report
  function record() {
    return {
      format: FORMAT, version: VERSION, savedAt: new Date().toISOString(), page: location.href.split('#')[0],
      steps: steps().map((s) => {
        const p = stepProgress(s.id);
        const j = p?.judgement;
        return { id: s.id, title: s.title, question: s.question(ctx),
          predicted: p && p.predicted !== null ? words(s.prediction(ctx), p.predicted) : '', earlier: p ? earlierWords(p) : '',
          mark: j?.mark ?? (p ? 'waiting' : 'open'), sentence: j?.sentence ?? '', evidence: j?.evidence ?? '',
          explanation: s.explanation, concept: s.concept, charts: p?.charts ?? [], settings: p?.settings ?? '' };
      }),
    };
  }

  function files() {
    const save = button('Save my lesson', false, () => {
      download(new Blob([reportHtml(record())], { type: 'text/html' }), 'my-attention-lesson.html');
    }, { 'data-control': 'export', 'data-action': 'save-lesson' });
    const input = /** @type {HTMLInputElement} */ (el('input', { type: 'file', id: 'lesson-open', accept: '.html,.json,text/html,application/json' }));
    input.addEventListener('change', async () => {
      const f = input.files?.[0];
      if (!f) return;
      const r = readLessonFile(f.size > 20 * 1024 * 1024 ? '' : await f.text(), f.size);
      opened = r.ok === true ? r.record : null;
      openError = r.ok === false ? r.error : '';
      show();
    });
    const box = el('div', { class: 'lesson-files' }, save,
      el('label', { for: 'lesson-open', class: 'file-label' }, 'Open a lesson file: '), input,
      el('p', { class: 'muted' }, 'The saved file is a report that opens in any browser; open it here again to read it in the lab.' +
        (store.ok ? ' Your progress is kept in this browser and comes back after a reload.'
          : ` Your progress is not kept here: ${store.reason.replace(/\.$/, '')}. Save your lesson before you leave.`)));
    if (openError) box.append(el('p', { class: 'alert', role: 'alert' }, openError));
    if (opened) {
      const doc = new DOMParser().parseFromString(`<div>${reportBody(opened)}</div>`, 'text/html');
      const view = el('section', { class: 'lesson-report', 'aria-label': 'The opened lesson file' },
        button('Close the opened lesson', false, () => { opened = null; show(); }, { class: 'button quiet' }),
        ...doc.body.firstElementChild.childNodes);
      box.append(view);
    }
    return box;
  }

  return { show };
}
