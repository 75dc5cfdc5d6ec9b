// scripts/proc_cpu.mjs, which scripts/bench_page.mjs uses to say where the machine's cores went over an experiment:
// its parsing of /proc's stat lines, its arithmetic, and one reading of this machine around CPU work of our own.
// Node only, no browser; the last test needs Linux's /proc.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { cpuReading, cpuSeconds, parseStat } from '../../scripts/proc_cpu.mjs';

test('parseStat: the name between the first ( and the last ), the CPU time from user + system ticks at 100 a second', () => {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
  const line = '4242 (Dedicated (a) b) S 1 2 3 0 -1 4194560 10 0 0 0 250 75 0 0 20 0 1 0 0';
  assert.deepEqual(parseStat(line), { comm: 'Dedicated (a) b', cpu: 3.25 });  // (250 + 75) ticks
});

test('cpuSeconds: the differences by role; the other processes are the busy time Chromium does not account for', () => {
  const roles = (w) => ({ workers: w, main: 1, renderer: 1, browser: 1, gpu: 0, utility: 0 });
  const before = { chromium: roles(10), machine: { busy: 100, idle: 50, steal: 1 } };
  const after = { chromium: { ...roles(26), main: 2 }, machine: { busy: 118, idle: 51.5, steal: 1.5 } };
  assert.deepEqual(cpuSeconds(before, after), { workers: 16, main: 1, renderer: 0, browser: 0, gpu: 0, utility: 0,
    other_processes: 1, idle: 1.5, steal: 0.5 });
  assert.equal(cpuSeconds(null, after), null);
  assert.equal(cpuSeconds(before, null), null);
});

test('cpuReading: this machine\'s busy time grows by the CPU time this process spends', { skip: !existsSync('/proc/stat') }, () => {
  const before = cpuReading();
  assert.ok(before);
  const start = process.cpuUsage();
  let x = 0;
  // 0.3 s of this process's own CPU time, however long the wall takes on a loaded machine
  while (process.cpuUsage(start).user < 300_000) for (let i = 0; i < 1e5; ++i) x += Math.sqrt(i);
  const used = cpuSeconds(before, cpuReading());
  assert.ok(used && x > 0);
  const busy = Object.entries(used).filter(([k]) => k !== 'idle' && k !== 'steal').reduce((a, [, v]) => a + v, 0);
  assert.ok(busy >= 0.25, `the machine's busy time grew by ${busy} s`);
});
