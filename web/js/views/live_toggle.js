// The button that pauses and resumes the live charts of every panel (runs.js pauseLiveCharts): one per training
// panel, all showing the page's one switch, pressed while paused.
import { liveChartsPaused, onLiveCharts, pauseLiveCharts } from '../runs.js';
import { el } from './dom.js';

/** @returns {HTMLButtonElement} */
export function liveToggle() {
  const b = /** @type {HTMLButtonElement} */ (el('button', { type: 'button', class: 'button quiet live-toggle', 'data-action': 'pause-charts' }));
  const show = (paused) => {
    b.textContent = paused ? 'Resume the live charts' : 'Pause the live charts';
    b.setAttribute('aria-pressed', String(paused));
  };
  show(liveChartsPaused());
  onLiveCharts(show);
  b.addEventListener('click', () => pauseLiveCharts(!liveChartsPaused()));
  return b;
}
