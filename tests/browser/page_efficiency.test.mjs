// The arithmetic of scripts/bench's page table (tests/bench/page_efficiency.mjs) on an experiment made up by hand:
// two slots, three runs, the third queued behind the first. Node only, no browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuShares, pageEfficiency, PARTS, range, scheduleBound } from '../bench/page_efficiency.mjs';

// times in ms on the page's clock; the click at 1000, the verdict at 11000: a wall of 10 s
const run = (created, ready, started, done, spent) => ({ steps: 100, trained: 100, step_flops: 1e9, created_ms: created,
  ready_ms: ready, started_ms: started, done_ms: done, spent_ms: spent });
const experiment = {
  // runs started together once all are set up (the induction panel's), so a run set up first waits in its slot
  name: 'made-up', cores: 2, wall_s: 10.2, click_ms: 1000, verdict_ms: 11000, together: true,
  main_thread_s: { TaskDuration: 1.5 }, page_ms: { draw: 300 },
  runs: [
    // 1 s to start (0.2 boot, 0.3 module, 0.5 init), 0.5 s held for the other, 4 s training, 1 s evaluating
    run(1000, 2000, 2500, 8000, { boot: 200, module: 300, init: 500, train: 4000, evaluate: 1000 }),
    run(1000, 2500, 2500, 9000, { boot: 200, module: 300, init: 1000, train: 5000 }),
    // queued behind the first: starts when it ended
    run(8000, 8500, 8500, 10000, { boot: 100, module: 100, init: 300, train: 1000, snapshot: 200, finish: 50, causality: 50 }),
  ],
};

test('the parts add up to the wall on the page clock, each summed over the runs per slot', () => {
  const f = pageEfficiency(experiment, 50);
  assert.equal(f.slots, 2);
  assert.equal(f.parts.train, (4 + 5 + 1) / 2);
  assert.equal(f.parts.startup, (0.5 + 0.5 + 0.2) / 2);
  assert.equal(f.parts.setup, (0.5 + 1 + 0.3) / 2);
  assert.equal(f.parts.together, 0.5 / 2);
  assert.equal(f.parts.evaluate, 1 / 2);
  assert.equal(f.parts.finish, 0.1 / 2);
  // lives 7, 8 and 2 s; accounted 6.5, 6.5 and 1.8 s: 0.5 + 1.5 + 0.2 left over
  assert.ok(Math.abs(f.parts.other - 2.2 / 2) < 1e-12);
  // 2 slots × 10 s, lives 17 s: 3 slot-seconds idle, 1.5 per slot
  assert.ok(Math.abs(f.parts.idle - 1.5) < 1e-12);
  const total = PARTS.reduce((a, [key]) => a + f.parts[key], 0);
  assert.ok(Math.abs(total - 10) < 1e-9, `the parts add up to ${total}`);
});

test('efficiency is pure training over the wall; the limit is the flops at the ceiling on every slot', () => {
  const f = pageEfficiency(experiment, 50);
  assert.equal(f.pure, 5);
  assert.ok(Math.abs(f.efficiency - 5 / 10.2) < 1e-12);
  assert.equal(f.flops, 300 * 1e9);
  assert.ok(Math.abs(f.limit - 300 / (2 * 50)) < 1e-12);  // 3 s
  assert.ok(Math.abs(f.overLimit - 10.2 / 3) < 1e-12);
  assert.equal(f.mainThread, 1.5);
  assert.ok(Math.abs(f.workersBusy - (6 + 6.5 + 1.8)) < 1e-12);  // every part of every run, not per slot
  assert.equal(f.complete, true);
});

test('a run that did not end is left out of the breakdown, and says so; an unknown ceiling gives no limit', () => {
  const unfinished = { ...experiment, runs: [...experiment.runs, run(9000, 9500, 9500, 0, null)] };
  const f = pageEfficiency(unfinished, NaN);
  assert.equal(f.complete, false);
  assert.equal(f.parts.train, 5);
  assert.ok(Number.isNaN(f.limit));
});

test('a run set up ahead takes its slot when it starts; its set-up is given apart, beside the slots', () => {
  const ahead = {
    name: 'ahead', cores: 2, wall_s: 9, click_ms: 0, verdict_ms: 9000,
    runs: [
      // A and B start as soon as they are set up, and train to 6 s and 9 s
      { ...run(0, 1000, 1000, 6000, { boot: 200, module: 300, init: 500, train: 5000 }), spent_before_start_ms: { boot: 200, module: 300, init: 500 } },
      { ...run(0, 1000, 1000, 9000, { boot: 200, module: 300, init: 500, train: 8000 }), spent_before_start_ms: { boot: 200, module: 300, init: 500 } },
      // C is set up by 2 s beside them (0.9 s of work, its first evaluation among it), waits, and trains from 6 s
      { ...run(1000, 2000, 6000, 9000, { boot: 200, module: 200, init: 400, evaluate: 200, train: 2800 }),
        spent_before_start_ms: { boot: 200, module: 200, init: 400, evaluate: 100 } },
    ],
  };
  const f = pageEfficiency(ahead, 50);
  assert.equal(f.parts.together, 0);
  assert.equal(f.parts.train, (5 + 8 + 2.8) / 2);
  assert.equal(f.parts.startup, (0.5 + 0.5) / 2);           // C's start-up was not in a slot
  assert.ok(Math.abs(f.parts.evaluate - 0.1 / 2) < 1e-12);  // only its evaluation after the start
  assert.ok(Math.abs(f.ahead - 0.9 / 2) < 1e-12);
  // slots: A 0–6 s, B 0–9 s, C 6–9 s: 18 slot-seconds of 18, none idle
  assert.ok(Math.abs(f.parts.idle) < 1e-12);
  const total = PARTS.reduce((a, [key]) => a + f.parts[key], 0);
  assert.ok(Math.abs(total - 9) < 1e-9, `the parts add up to ${total}`);
});

test('scheduleBound: the longest run, the total over the slots, or the shortest of the k·S + 1 longest', () => {
  assert.equal(scheduleBound([10, 10, 10, 10], 2), 20);  // the total over the slots
  assert.equal(scheduleBound([30, 5], 2), 30);           // one long run and its shorter control: the long one
  // three long runs and three short on two slots (the offsets task): two long ones share a slot, 24.5 + 25 > 82.25 / 2
  assert.equal(scheduleBound([24.5, 25, 25.75, 2.25, 2.5, 2.25], 2), 49.5);
  // which the best order reaches: 25 + 24.5 on one slot, 25.75 and the short ones on the other
  assert.equal(scheduleBound([5, 5, 5, 5, 1], 2), 11);  // some slot runs three of the five (k = 2): 5 + 5 + 1 > 21 / 2
  assert.equal(scheduleBound([3, 3, 2, 2, 2], 2), 6);    // the total over the slots, which {3, 3} and {2, 2, 2} reach
  assert.equal(scheduleBound([7], 2), 7);
  assert.equal(scheduleBound([], 2), 0);
});

test('the best schedule is of the runs\' training times; of best is it over the wall', () => {
  const f = pageEfficiency(experiment, 50);
  assert.equal(f.best, 5);  // training 4, 5 and 1 s on two slots: the total over the slots, 5, is above the longest
  assert.ok(Math.abs(f.ofBest - 5 / 10.2) < 1e-12);
  const long = pageEfficiency({ ...experiment, runs: [experiment.runs[1], experiment.runs[2]] }, 50);
  assert.equal(long.best, 5);  // 5 and 1 s: the longest
  assert.equal(long.pure, 3);
});

test('a helper holds a slot like a run: its halves are training, its run counts them in the best schedule', () => {
  // the second run is lent a helper once the first ends at 8000: made then, serving from 8300 to the run's end at 9000
  const helper = { created_ms: 8000, ready_ms: 8300, started_ms: 8300, done_ms: 9000,
    spent_ms: { boot: 50, module: 100, init: 150, train: 600 } };
  const helped = { ...experiment, runs: [experiment.runs[0], { ...experiment.runs[1], helpers: [helper] }, experiment.runs[2]] };
  const f = pageEfficiency(helped, 50);
  assert.equal(f.parts.train, (4 + 5 + 1 + 0.6) / 2);
  assert.equal(f.parts.startup, (0.5 + 0.5 + 0.2 + 0.15) / 2);
  assert.equal(f.parts.setup, (0.5 + 1 + 0.3 + 0.15) / 2);
  // its life, 1 s, takes that much from the slots' idle time; the parts still add up to the wall
  assert.ok(Math.abs(f.parts.idle - (1.5 - 1 / 2)) < 1e-12);
  const total = PARTS.reduce((a, [key]) => a + f.parts[key], 0);
  assert.ok(Math.abs(total - 10) < 1e-9, `the parts add up to ${total}`);
  assert.equal(f.best, 5.6);  // training 4, 5.6 (its own 5 and its helper's 0.6) and 1 s: the longest, alone
  assert.equal(f.flops, 300 * 1e9);  // the run's steps, once
  assert.equal(f.complete, true);
});

test('range: min, median and max over repeats, ignoring what was not measured', () => {
  assert.deepEqual(range([3, 1, NaN, 2]), { min: 1, median: 2, max: 3, n: 3 });
  assert.deepEqual(range([4, 1, 2, 3]), { min: 1, median: 2.5, max: 4, n: 4 });
});

test('cpuShares: each role over all the CPU seconds of the span, the GPU and utility processes together', () => {
  // 2 cores over 10 s as /proc counted them: 20 core-seconds
  const cpu_s = { workers: 16, main: 1, renderer: 0.6, browser: 0.3, gpu: 0.08, utility: 0.02, other_processes: 0.5,
    idle: 1.4, steal: 0.1 };
  const shares = cpuShares({ cpu_s });
  assert.ok(shares);
  const expected = { workers: 0.8, main: 0.05, renderer: 0.03, browser: 0.015, gpu: 0.005, others: 0.025, idle: 0.07, steal: 0.005 };
  for (const [key, share] of Object.entries(expected)) assert.ok(Math.abs(shares[key] - share) < 1e-12, `${key}: ${shares[key]}`);
  assert.deepEqual(Object.keys(shares), Object.keys(expected));
  // pageEfficiency gives them, and the workers' CPU time, with the rest of an experiment's figures
  const f = pageEfficiency({ ...experiment, cpu_s }, 50);
  assert.deepEqual(f.cores, shares);
  assert.equal(f.workersCpu, 16);
  assert.equal(pageEfficiency(experiment, 50).cores, null);
  assert.ok(Number.isNaN(pageEfficiency(experiment, 50).workersCpu));
  // not measured (no /proc), or nothing counted
  assert.equal(cpuShares({ cpu_s: null }), null);
  assert.equal(cpuShares({}), null);
  assert.equal(cpuShares({ cpu_s: { workers: 0, idle: 0 } }), null);
});
