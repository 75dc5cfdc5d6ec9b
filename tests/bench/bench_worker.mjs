// A module worker that runs the benchmark (the page trains in workers, so this is where we measure).
// Message in: {quick: boolean}. Message out: {ok: true, json: string, env} or {ok: false, error: string}.
import createBench from './mha_bench_web.js';

// the smallest step of performance.now() seen here, in ms (Chromium coarsens it: 0.1 ms, or 0.005 ms when the
// page is cross-origin isolated); the C++ clock reads it, so it bounds the precision of short timings
function timerResolutionMs() {
  let best = Infinity;
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    let t1 = t0;
    while (t1 === t0) t1 = performance.now();
    best = Math.min(best, t1 - t0);
  }
  return best;
}

self.onmessage = async ({ data }) => {
  try {
    const bench = await createBench();
    const env = {
      userAgent: navigator.userAgent,
      crossOriginIsolated: self.crossOriginIsolated === true,
      timer_resolution_ms: timerResolutionMs(),
    };
    const json = bench.runBenchmarks(Boolean(data?.quick));
    self.postMessage({ ok: true, json, env });
  } catch (err) {
    self.postMessage({ ok: false, error: String(err?.stack ?? err) });
  }
};
