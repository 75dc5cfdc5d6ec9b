// The panels' throttled redraw (web/js/runs.js drawScheduler) on its own, in node, on a fake clock: its timers,
// frames and performance.now are stand-ins the test advances by hand, so no assertion depends on this machine's
// speed. The state a real run shows through it is in status.test.mjs ("restarting after a killed worker").
//   node --test --test-reporter=spec tests/browser/draw_scheduler.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawScheduler, liveChartsPaused, pauseLiveCharts } from '../../web/js/runs.js';

// setTimeout, clearTimeout, requestAnimationFrame and performance.now on a clock that moves only by advance(ms);
// frame() runs the animation-frame callbacks requested so far; tick(ms) is advance(ms), then a frame
function fakeClock(start) {
  let now = start, id = 0;
  const timers = new Map(), frames = new Map();
  const saved = { setTimeout, clearTimeout, requestAnimationFrame: globalThis.requestAnimationFrame, performance };
  // (Object.assign: the stand-ins have the shape drawScheduler uses, not node's full one)
  Object.assign(globalThis, {
    setTimeout: (f, ms = 0) => { timers.set(++id, { at: now + ms, f }); return id; },
    clearTimeout: (i) => { timers.delete(i); },
    requestAnimationFrame: (f) => { frames.set(++id, f); return id; },
  });
  Object.defineProperty(globalThis, 'performance', { value: { now: () => now }, configurable: true, writable: true });
  return {
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].f();
      }
      now = end;
    },
    frame() {
      const fs = [...frames.values()];
      frames.clear();
      for (const f of fs) f(now);
    },
    tick(ms) {
      this.advance(ms);
      this.frame();
    },
    restore() {
      Object.assign(globalThis, { setTimeout: saved.setTimeout, clearTimeout: saved.clearTimeout });
      if (saved.requestAnimationFrame) globalThis.requestAnimationFrame = saved.requestAnimationFrame;
      else delete globalThis.requestAnimationFrame;
      Object.defineProperty(globalThis, 'performance', { value: saved.performance, configurable: true, writable: true });
    },
  };
}

test('progress redraws at most every ms; a state change draws at the next frame even inside that wait', () => {
  const clock = fakeClock(10_000);
  try {
    let draws = 0;
    const schedule = drawScheduler(() => { draws += 1; }, 250);
    // every time below is the fake clock's: no assertion waits on this machine's time
    schedule();  // nothing drawn for 250 ms before: at the next frame
    clock.tick(0);
    assert.equal(draws, 1);

    schedule();  // progress right after a draw waits out the 250 ms
    schedule();
    clock.tick(100);
    assert.equal(draws, 1, 'progress 100 fake ms after a draw is not drawn yet');
    clock.tick(150);
    assert.equal(draws, 2, 'one draw for both progress calls, 250 fake ms after the last');

    schedule();  // progress, then a state change (a worker died) before the 250 ms are over
    clock.advance(10);
    schedule(true);
    clock.tick(0);
    assert.equal(draws, 3, 'the state change is drawn at the next frame, not after the progress wait');
    clock.tick(1000);
    assert.equal(draws, 3, 'and the cancelled progress wait draws nothing more');

    schedule(true);  // a frame already requested: the state change is drawn by it, once
    schedule(true);
    clock.advance(0);
    schedule(true);
    clock.frame();
    assert.equal(draws, 4);
  } finally {
    clock.restore();
  }
});

test('under prefers-reduced-motion the curves move on at most every 2 s; a state change is still drawn at once', () => {
  const clock = fakeClock(10_000);
  const saved = globalThis.matchMedia;
  globalThis.matchMedia = /** @type {any} */ ((q) => ({ matches: q === '(prefers-reduced-motion: reduce)' }));
  try {
    let draws = 0;
    const schedule = drawScheduler(() => { draws += 1; }, 250);
    schedule();
    clock.tick(0);
    assert.equal(draws, 1);
    schedule();
    clock.tick(1000);
    assert.equal(draws, 1, 'progress 1,000 fake ms after a draw waits');
    clock.tick(1000);
    assert.equal(draws, 2, 'and is drawn 2,000 fake ms after it');
    schedule();
    clock.advance(10);
    schedule(true);
    clock.tick(0);
    assert.equal(draws, 3, 'a state change is not slowed');
  } finally {
    if (saved) globalThis.matchMedia = saved;
    else delete globalThis.matchMedia;
    clock.restore();
  }
});

test('paused live charts: progress draws nothing until resumed, a state change still draws, resuming draws at once', () => {
  const clock = fakeClock(10_000);
  try {
    let draws = 0;
    const schedule = drawScheduler(() => { draws += 1; }, 250);
    pauseLiveCharts(true);
    assert.equal(liveChartsPaused(), true);
    schedule();
    clock.tick(5000);
    assert.equal(draws, 0, 'progress while paused moves nothing');
    schedule(true);
    clock.tick(0);
    assert.equal(draws, 1, 'a state change is drawn');
    schedule();
    clock.tick(5000);
    assert.equal(draws, 1);
    pauseLiveCharts(false);
    clock.tick(0);
    assert.equal(draws, 2, 'resuming draws every panel at the next frame');
    schedule();
    clock.tick(250);
    assert.equal(draws, 3, 'and progress moves the charts again');
  } finally {
    pauseLiveCharts(false);
    clock.restore();
  }
});
