// How every head of one run changed over training: four small charts with one line per head over the steps
// (previous-token score, first-token score, entropy as a fraction of its uniform maximum, mean attention distance),
// the label thresholds as dashed guides where a label rests on that score, and the attention-by-offset profiles of
// every head side by side. All of it is the core's head trace (protocol.js TraceMessage), measured at every
// evaluation on the same sequence, the run's first validation row, so the lines compare point for point.
import { LinesView } from './lines_view.js';
import { OffsetProfilesView } from './offset_profiles_view.js';
import { headSeriesStyle } from './series_style.js';

// the four charts: what each plots of head i of a trace, its axis, its name, its range, and which label threshold
// applies
/** @type {Array<{key: 'previous'|'first'|'entropy'|'distance', yLabel: string, describe: string,
 *          yRange?: [number, number], value: (t: object, i: number) => number,
 *          guide: ((th: object) => {label: string, value: number}) | null}>} */
const METRICS = [
  { key: 'previous', yLabel: 'previous-token score', describe: 'Previous-token score', yRange: [0, 1], value: (t, i) => t.previous[i],
    guide: (th) => ({ label: `previous-token head at ≥ ${th.previous}`, value: th.previous }) },
  { key: 'first', yLabel: 'first-token score', describe: 'First-token score', yRange: [0, 1], value: (t, i) => t.first[i],
    guide: (th) => ({ label: `first-token head at ≥ ${th.first}`, value: th.first }) },
  { key: 'entropy', yLabel: 'entropy / maximum', describe: 'Entropy as a fraction of the uniform maximum', yRange: [0, 1],
    value: (t, i) => (t.maxEntropy[i] > 0 ? t.entropy[i] / t.maxEntropy[i] : NaN),
    guide: (th) => ({ label: `broad at ≥ ${th.broad}`, value: th.broad }) },
  { key: 'distance', yLabel: 'positions back', describe: 'Mean attention distance in positions', value: (t, i) => t.distance[i], guide: null },
];

// symbols of the probe as the page shows them: blanks made visible
const shown = (ch) => (ch === ' ' ? '␣' : ch === '\n' ? '↵' : ch === '\t' ? '⇥' : ch);

export class HeadTraceView {
  /**
   * @param {{charts: Record<'previous'|'first'|'entropy'|'distance', HTMLElement>, profiles: HTMLElement,
   *          probe: HTMLElement}} roots empty containers (charts: role="img"); the view owns their content
   * @param {{previous: number, first: number, broad: number}} thresholds the core's LabelThresholds
   */
  constructor(roots, thresholds) {
    this.thresholds = thresholds;
    this.charts = METRICS.map((m) => new LinesView(roots.charts[m.key], { yLabel: m.yLabel, yRange: m.yRange,
      describe: `${m.describe} of every head over training` }));
    this.profiles = new OffsetProfilesView(roots.profiles);
    this.profilesRoot = roots.profiles;
    this.probe = roots.probe;
  }

  /**
   * @param {{traces: {step: number, trace: object}[], text: boolean, at?: number}} data traces in step order; text:
   *   the probe's tokens are characters (else numbers); at: show the profiles of the last trace at or before this
   *   step (a snapshot chosen on the slider), else of the last one
   */
  update({ traces, text, at }) {
    const last = traces.at(-1)?.trace;
    const L = last?.L ?? 0, H = last?.H ?? 0;
    const steps = traces.map((t) => t.step);
    METRICS.forEach((m, k) => {
      const lines = [];
      for (let l = 0; l < L; ++l)
        for (let h = 0; h < H; ++h) {
          const i = l * H + h;
          lines.push({ label: `L${l} H${h}`, step: steps, value: traces.map((t) => m.value(t.trace, i)), look: headSeriesStyle(l, h, H) });
        }
      this.charts[k].update({ lines, guides: m.guide ? [m.guide(this.thresholds)] : [] });
    });
    if (!last) {
      this.probe.textContent = 'Not measured yet: the first measurement comes when the run is set up.';
      this.profilesRoot.replaceChildren();
      return;
    }
    const symbols = text ? `“${last.tokens.map(shown).join('')}”` : last.tokens.join(' ');
    this.probe.textContent = `Measured at every evaluation (${traces.length} so far, the last at step ${steps.at(-1)}) on ` +
      `the same ${last.T} positions, the run's first validation sequence${text ? '' : ' (token ids)'}: ${symbols}`;
    const shownTrace = at === undefined ? traces.at(-1) : (traces.filter((t) => t.step <= at).at(-1) ?? traces[0]);
    const t = shownTrace.trace;
    this.profiles.update({ L: t.L, H: t.H, K: t.K, profile: t.profile, step: shownTrace.step });
  }
}
