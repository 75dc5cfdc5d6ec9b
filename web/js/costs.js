// Where the time goes: milliseconds spent per named part, added up as the page and its workers work, for
// scripts/bench_page.mjs's breakdown of an experiment's wall time (training, evaluations, traces, snapshots, storage,
// drawing, ...). One tally per realm: a worker sends its own with its done message (protocol.js), the page's is read
// through mhaDebug.costs(). Timing is performance.now() around each call: cheap enough to stay on. No DOM.

/**
 * A tally of milliseconds by part.
 * @returns {{timed: <T>(part: string, fn: () => T) => T, add: (part: string, ms: number) => void,
 *            totals: () => Record<string, number>, reset: () => void}}
 */
export function costTally() {
  /** @type {Record<string, number>} */
  let ms = {};
  const add = (part, t) => { ms[part] = (ms[part] ?? 0) + t; };
  return {
    /** runs fn, adding its wall time to part (also when it throws) */
    timed(part, fn) {
      const t0 = performance.now();
      try {
        return fn();
      } finally {
        add(part, performance.now() - t0);
      }
    },
    add,
    totals: () => ({ ...ms }),
    reset: () => { ms = {}; },
  };
}

/** the page's own tally (the main thread): receiving workers' messages, drawing, saving runs */
export const pageCosts = costTally();
