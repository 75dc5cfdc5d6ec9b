// Can this page download files where it runs? In <iframe sandbox> without allow-downloads Chromium drops every
// download with only a console warning, so a "Download" button would do nothing. This says, once at start-up,
// whether downloads are off and why, and switches the page's download buttons off with that reason next to them.
//   top-level page                      downloads work
//   same-origin frame                   its sandbox attribute is read: off unless it lists allow-downloads
//   frame with an opaque origin         a sandbox without allow-same-origin, whose flags cannot be read from inside:
//                                       off unless the address says downloads=1 (the README's embed recipe)
//   other cross-origin frame            not sandboxed as far as one can tell: on
// No module state: pure functions of the window and the layout settings.

/**
 * @param {{downloads: string}} layout the page's layout settings (state.js LAYOUT): downloads '1' turns them on
 * @param {{parent: object, frameElement: {getAttribute(name: string): string|null} | null, origin: string}} [win]
 *   the window, of which this reads only these
 * @returns {string|null} the reason downloads are off, or null when they work
 */
export function downloadsOffReason(layout, win = window) {
  if (win.parent === win) return null;
  const frame = win.frameElement;  // the <iframe> element, readable from a same-origin frame only (null otherwise)
  if (frame) {
    const sandbox = frame.getAttribute('sandbox');
    if (sandbox === null || sandbox.split(/\s+/).includes('allow-downloads')) return null;
    return 'Downloads are off: this page is in a sandboxed frame without allow-downloads.';
  }
  if (win.origin !== 'null' || layout.downloads === '1') return null;
  return 'Downloads are off: this page is in a sandboxed frame, which may forbid them. If the frame allows downloads ' +
    '(sandbox="allow-downloads"), add downloads=1 to its address.';
}

/**
 * Switches every download button ([data-control="export"]) off with the reason beside it: aria-disabled (the panels
 * still set disabled as their runs come and go), a click that does nothing but keep the reason in view, and one note
 * per group of buttons.
 * @param {Document} doc
 * @param {string} reason
 */
export function switchDownloadsOff(doc, reason) {
  doc.documentElement.classList.add('no-downloads');
  const groups = new Set();
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (doc.querySelectorAll('[data-control="export"]'))) {
    b.setAttribute('aria-disabled', 'true');
    b.title = reason;
    groups.add(b.parentElement);
  }
  for (const g of groups) {
    const note = doc.createElement('p');
    note.className = 'help download-note';
    note.textContent = reason;
    g.after(note);
  }
  doc.addEventListener('click', (e) => {
    const b = e.target instanceof Element ? e.target.closest('[data-control="export"]') : null;
    if (!b) return;
    e.preventDefault();
    e.stopImmediatePropagation();
  }, true);
}
