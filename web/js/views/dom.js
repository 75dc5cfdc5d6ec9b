// Tiny DOM helpers for the views. Text always goes in as text (textContent), never as HTML.

/**
 * Creates an element with attributes and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string|number|boolean|null|undefined>} [attrs] 'class' sets className; false/null skip
 *   the attribute
 * @param {...(Node|string|number)} children strings become text nodes
 * @returns {HTMLElementTagNameMap[K]} the element of that tag: el('input') is an HTMLInputElement
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') node.className = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

// Elements of index.html by id (or name), typed as the HTML makes them: the type checker cannot read the HTML.
/** @param {string} id @returns {HTMLInputElement} */
export const inputById = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/** @param {string} id @returns {HTMLButtonElement} */
export const buttonById = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));
/** @param {string} id @returns {HTMLTextAreaElement} */
export const textAreaById = (id) => /** @type {HTMLTextAreaElement} */ (document.getElementById(id));
/** @param {string} name the radio buttons or checkboxes of this name @returns {HTMLInputElement[]} */
export const inputsNamed = (name) => /** @type {HTMLInputElement[]} */ ([...document.querySelectorAll(`input[name="${name}"]`)]);

/**
 * Offers a file for download (an <a download> click; a sandboxed iframe without allow-downloads ignores it).
 * @param {Blob} blob
 * @param {string} filename
 */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

let captionIds = 0;

/**
 * A simple table, with its caption as a paragraph above it (so that a long caption wraps at the width of the page,
 * not of a wide table that scrolls sideways), tied to the table by aria-describedby.
 * @param {string} caption
 * @param {string[]} columns
 * @param {Array<Array<Node|string|number>>} rows the first cell of each row is its header
 * @param {{class?: string, label?: string, stack?: boolean}} [attrs] label: a short name for screen readers; stack:
 *   on a narrow screen each row becomes a block of "column: value" lines (class "stack", style.css), for tables too
 *   wide for a phone
 * @returns {DocumentFragment} the caption paragraph and the table
 */
export function table(caption, columns, rows, attrs = {}) {
  const id = `table-caption-${++captionIds}`;
  const head = el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)));
  const label = (i) => (attrs.stack ? columns[i] : null);
  const body = el('tbody', {}, ...rows.map((r) => el('tr', {},
    ...r.map((c, i) => (i === 0 ? el('th', { scope: 'row' }, c) : el('td', { 'data-label': label(i) }, c))))));
  const fragment = document.createDocumentFragment();
  const classes = [attrs.class, attrs.stack ? 'stack' : ''].filter(Boolean).join(' ') || undefined;
  fragment.append(el('p', { class: 'table-caption', id }, caption),
    el('table', { class: classes, 'aria-describedby': id, 'aria-label': attrs.label ?? columns.join(', ') }, el('thead', {}, head), body));
  return fragment;
}

/**
 * A whole number with thousands separators: 104,830.
 * @param {number} n
 * @returns {string}
 */
export function count(n) {
  return COUNT_FORMAT.format(Math.round(n));
}
const COUNT_FORMAT = new Intl.NumberFormat('en-US');  // toLocaleString builds a formatter per call: slow

/**
 * n and the word, plural unless n is 1: "1 run", "3 runs".
 * @param {number} n
 * @param {string} word
 */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * Shows message in an alert element (role="alert"), or hides it when message is empty. Text only, never HTML.
 * @param {HTMLElement} alert
 * @param {string} message
 */
export function showAlert(alert, message) {
  alert.textContent = message || '';
  alert.hidden = !message;
}

/**
 * A rejected input said where the user looks: the sentence in the panel's alert (scrolled into view) and the focus
 * on the control it is about, marked invalid until the next check.
 * @param {HTMLElement} alert the panel's role="alert" element
 * @param {string} message
 * @param {HTMLElement|null} control the input the sentence is about
 */
export function showRejection(alert, message, control) {
  showAlert(alert, message);
  if (control) {
    control.setAttribute('aria-invalid', 'true');
    control.addEventListener('input', () => control.removeAttribute('aria-invalid'), { once: true });
    control.focus({ preventScroll: true });
  }
  alert.scrollIntoView?.({ block: 'nearest' });
}

/**
 * The number typed into a form field, NaN when the field is empty (Number('') would be 0).
 * @param {HTMLInputElement} input
 * @returns {number}
 */
export function numberIn(input) {
  return input.value.trim() === '' ? NaN : Number(input.value);
}
