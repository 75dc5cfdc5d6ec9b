// Walking the lesson (web/js/lesson/) in a playwright page, as a student does: commit a prediction, train the step's
// runs in its panel, wait for the judgement. Shared by the browser test (tests/browser/lesson.test.mjs) and the
// timing script (scripts/time_lesson.mjs).

import { waitSayingRuns } from './chromium.mjs';

/** per step that trains: its panel's start button and the html data- attribute that says its runs are done */
export const STEP_RUNS = { scale: ['#b-start', 'breakit'], heads: ['#c-start', 'comparison'], offsets: ['#c-start', 'comparison'],
  inside: ['#c-start', 'comparison'], break: ['#b-start', 'breakit'], induction: ['#n-start', 'induction'] };

/**
 * Trains a step's runs (pressing "Train anyway" where the page asks first); for Look inside, then prunes the heads.
 * @param {import('playwright-core').Page} p
 * @param {string} id a step id
 */
export async function trainStep(p, id) {
  const [button, done] = STEP_RUNS[id];
  await p.click(button);
  const go = p.locator('#c-confirm-go, #n-confirm-go').filter({ visible: true });
  if (await go.count()) await go.first().click();
  await waitSayingRuns(p, `html[data-${done}="done"]`, 60 * 60 * 1000);
  if (id !== 'inside') return;
  // Look inside prunes the H = 8 models just trained
  await p.click('#i-prune');
  await p.waitForFunction(async () => !!(await import(new URL('build/js/findings.js', location.href).href)).latestFinding('pruning'),
    undefined, { timeout: 10 * 60 * 1000 });
}

/** A step's choices (radio values), or [] for a number. @param {import('playwright-core').Page} p @param {string} id */
export const choicesOf = (p, id) => p.$$eval(`input[name="lesson-${id}"]`, (xs) => xs.map((x) => /** @type {HTMLInputElement} */ (x).value));

/**
 * Commits a prediction on the shown step.
 * @param {import('playwright-core').Page} p
 * @param {string} id
 * @param {string|number} value a choice's value, or a number
 */
export async function predict(p, id, value) {
  if (typeof value === 'number') await p.fill(`#lesson-${id}-n`, String(value));
  else await p.check(`input[name="lesson-${id}"][value="${value}"]`);
  await p.click('[data-action="commit"]');
}

/** The shown step's mark once judged: right, wrong or undecided. @param {import('playwright-core').Page} p */
export async function judgedMark(p) {
  await waitSayingRuns(p, '.lesson-judgement:not([data-mark="waiting"])', 10 * 60 * 1000);
  return p.getAttribute('.lesson-judgement', 'data-mark');
}
