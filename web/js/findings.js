// What the panels found, for whoever listens (the lesson): a panel publishes its latest structured result under a
// kind ('heads', 'break', 'offsets', 'induction', 'pruning', 'phase', ...) whenever it changes, and a listener reads
// it as data, never from the panel's DOM. The last finding of each kind is kept, so a listener that arrives late
// (the lesson opened after a run) still reads it. No DOM beyond the document's event target.

export const FINDING_EVENT = 'mha-finding';

/** @type {Map<string, object>} the last finding of each kind */
const latest = new Map();

/**
 * Publishes a panel's finding.
 * @param {string} kind what it is about
 * @param {object|null} data the finding; null takes a kind's finding back (its runs were reset)
 */
export function publishFinding(kind, data) {
  if (data === null) latest.delete(kind);
  else latest.set(kind, data);
  document.dispatchEvent(new CustomEvent(FINDING_EVENT, { detail: { kind, data } }));
}

/** The last finding of a kind, or null. @param {string} kind @returns {object|null} */
export const latestFinding = (kind) => latest.get(kind) ?? null;

/**
 * Calls back on every finding published from now on.
 * @param {(kind: string, data: object|null) => void} listener
 * @returns {() => void} stops listening
 */
export function onFinding(listener) {
  /** @param {Event} e */
  const handler = (e) => {
    const { kind, data } = /** @type {CustomEvent} */ (e).detail;
    listener(kind, data);
  };
  document.addEventListener(FINDING_EVENT, handler);
  return () => document.removeEventListener(FINDING_EVENT, handler);
}
