// "Save my lesson": one self-contained HTML file a student hands in. It opens in any browser without the lab (no
// script, its style inline, the charts as PNG data URLs) and carries the lesson's record as JSON in a data block
// (<script type="application/json">, which no browser runs), so that the lab can open the file again and show the
// same report (an instructor opens a student's file). The lab never inserts a file's HTML: it reads the record,
// checks it, and writes the report anew from it with everything escaped. No DOM in this file.

export const FORMAT = 'mha-sandbox-lesson';
export const VERSION = 1;
const MAX_FILE_BYTES = 20 * 1024 * 1024;  // a lesson with every chart is about 1-2 MB
const PNG = /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/;

/**
 * @typedef {{id: string, title: string, question: string, predicted: string, earlier: string, mark: string, sentence: string,
 *            evidence: string, explanation: string, concept: string, charts: {id: string, png: string}[],
 *            settings: string}} StepRecord
 * @typedef {{format: string, version: number, savedAt: string, page: string, steps: StepRecord[]}} LessonRecord
 */

/** @param {string} s @returns {string} */
export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

const MARK_WORDS = { right: 'right', wrong: 'not this time', undecided: 'cannot tell yet', waiting: 'no runs yet', open: 'no prediction yet' };

/**
 * The report's body (what the lab shows and the file holds): per step the question, the prediction, the judgement,
 * the evidence, the charts, the explanation, the settings the runs used.
 * @param {LessonRecord} r a checked record
 * @returns {string} HTML, everything escaped
 */
export function reportBody(r) {
  const right = r.steps.filter((s) => s.mark === 'right').length;
  const judged = r.steps.filter((s) => ['right', 'wrong'].includes(s.mark)).length;
  const steps = r.steps.map((s, i) => `
<section class="report-step" data-step="${escapeHtml(s.id)}" data-mark="${escapeHtml(s.mark)}">
  <h2>${i + 1}. ${escapeHtml(s.title)} <span class="mark mark-${escapeHtml(s.mark)}">${escapeHtml(MARK_WORDS[s.mark] ?? s.mark)}</span></h2>
  <p class="question"><strong>Question.</strong> ${escapeHtml(s.question)}</p>
  <p><strong>Prediction.</strong> ${s.predicted ? escapeHtml(s.predicted) : 'none committed'}</p>
  ${s.earlier ? `<p class="earlier"><strong>Predicted before.</strong> ${escapeHtml(s.earlier)}</p>` : ''}
  ${s.sentence ? `<p class="judgement"><strong>Judgement.</strong> ${escapeHtml(s.sentence)}</p>` : ''}
  ${s.evidence ? `<p class="evidence"><strong>Measured.</strong> ${escapeHtml(s.evidence)}</p>` : ''}
  ${s.charts.map((c) => `<figure><img src="${c.png}" alt="${escapeHtml(`Chart ${c.id} of step ${i + 1}, as it was when judged`)}"></figure>`).join('\n  ')}
  ${s.mark === 'right' || s.mark === 'wrong' || s.mark === 'undecided' ? `<p class="explanation"><strong>Why.</strong> ${escapeHtml(s.explanation)}</p>
  <p class="concept"><strong>Concept.</strong> ${escapeHtml(s.concept)}</p>` : ''}
  ${s.settings ? `<p class="settings"><strong>Runs.</strong> ${escapeHtml(s.settings)}</p>` : ''}
</section>`).join('\n');
  return `<header class="report-head">
  <h1>Multi-head attention: my lesson</h1>
  <p>Saved ${escapeHtml(r.savedAt)} from mha-sandbox (${escapeHtml(r.page)}). ${right} of ${judged} judged predictions right;
  ${r.steps.length} steps. Every judgement was computed by the lab's core from the runs made in that browser.</p>
</header>
${steps}`;
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-top:1px solid #ccc;padding-top:1rem}
.mark{font-size:.9rem;font-weight:600;padding:.1rem .5rem;border-radius:.3rem;background:#eee}
.mark-right{background:#d7f0dc;color:#0b4d1c}.mark-wrong{background:#fde2dd;color:#7a1a08}
.mark-undecided{background:#fff1c2;color:#5c4400}img{max-width:100%;border:1px solid #ddd}figure{margin:1rem 0}`;

/**
 * The file a student hands in: a standalone HTML page with the record inside.
 * @param {LessonRecord} r
 * @returns {string}
 */
export function reportHtml(r) {
  // '<' written as \u003c: the JSON cannot end its data block early
  const json = JSON.stringify(r).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>My multi-head attention lesson</title><style>${STYLE}</style></head>
<body>
${reportBody(r)}
<script type="application/json" id="mha-lesson">${json}</script>
</body></html>
`;
}

/**
 * Reads a lesson file (the HTML report or its JSON) back into a checked record.
 * @param {string} text the file's contents
 * @param {number} bytes its size
 * @returns {{ok: true, record: LessonRecord} | {ok: false, error: string}}
 */
export function readLessonFile(text, bytes) {
  if (bytes === 0) return { ok: false, error: 'The file is empty.' };
  if (bytes > MAX_FILE_BYTES) return { ok: false, error: `The file is ${(bytes / 1048576).toFixed(1)} MB: a lesson file is at most ${MAX_FILE_BYTES / 1048576} MB.` };
  let json = text.trim();
  if (!json.startsWith('{')) {
    const m = /<script type="application\/json" id="mha-lesson">([\s\S]*?)<\/script>/.exec(text);
    if (!m) return { ok: false, error: 'This is not a lesson saved by this lab: it holds no lesson record.' };
    json = m[1];
  }
  let r;
  try {
    r = JSON.parse(json);
  } catch {
    return { ok: false, error: 'The lesson record in this file is damaged (it is not valid JSON).' };
  }
  const bad = checkRecord(r);
  return bad ? { ok: false, error: bad } : { ok: true, record: r };
}

/** @param {any} r @returns {string} what is wrong, or '' */
function checkRecord(r) {
  if (!r || r.format !== FORMAT) return 'This is not a lesson saved by this lab.';
  if (r.version !== VERSION) return `This lesson was saved by another version of the lab (format ${r.version}); this one reads format ${VERSION}.`;
  if (typeof r.savedAt !== 'string' || typeof r.page !== 'string' || !Array.isArray(r.steps)) return 'The lesson record in this file is incomplete.';
  for (const s of r.steps) {
    for (const k of ['id', 'title', 'question', 'predicted', 'earlier', 'mark', 'sentence', 'evidence', 'explanation', 'concept', 'settings']) {
      if (typeof s?.[k] !== 'string') return `A step of the lesson record lacks its ${k}.`;
    }
    if (!Array.isArray(s.charts) || !s.charts.every((c) => typeof c?.id === 'string' && typeof c.png === 'string' && PNG.test(c.png))) {
      return 'A chart in the lesson record is not a PNG image.';
    }
  }
  return '';
}
