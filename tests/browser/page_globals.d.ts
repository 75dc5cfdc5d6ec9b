// What the tests' page.evaluate and addInitScript callbacks keep on the page's window between calls, for the type
// check (tests/jsconfig.json). None of it is the page's own (web/site.d.ts).
interface Window {
  /** lab.test.mjs: the main thread's long tasks since the page opened, and the training's start and end (ms) */
  longTasks: Array<{ start: number; duration: number }>;
  trainWindow: [number, number];
  /** lab.test.mjs: set by markup in a pasted corpus if it ever became elements (it must not) */
  pwned?: number;
  /** lab.test.mjs: the heights a framed page reported to its course page */
  heights: number[];
  /** seeds.test.mjs: the most runs holding a core and waiting cards seen while training, and when to stop looking */
  seen: { maxBusy: number; maxTraining: number; maxWaiting: number };
  seenStop: boolean;
  /** seeds.test.mjs: the runs of the first comparison, to tell kept runs from new ones */
  firstRuns: any[];
  /** status.test.mjs: every state each run card went through (by run), and the panel's */
  seenStates: { runs: Record<string, string[]>; panel: string[] };
  /** trace.test.mjs: the previous-token chart's text alternative at every redraw of the trace */
  traceLabels: string[];
  /** phase_change.test.mjs: every 'phase' finding the page published */
  phaseFindings: any[];
}
