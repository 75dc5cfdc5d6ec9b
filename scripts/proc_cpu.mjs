// Where a machine's cores went over a span of time, from Linux's /proc: the CPU seconds of Chromium's threads by role
// (the page's Web Workers, the page's main thread, the rest of the renderer, the browser and GPU processes), of
// every other process, and the idle and stolen time, for scripts/bench_page.mjs. Two readings, one before and one
// after: a process's own times in /proc/PID/stat include its threads that have ended (a finished run's worker), so
// the workers' time is the renderer's total less its other threads, which live as long as the page.
//   const before = cpuReading();  …  const seconds = cpuSeconds(before, cpuReading());  // null where /proc is not
import { existsSync, readdirSync, readFileSync } from 'node:fs';

// clock ticks per second of /proc's times (USER_HZ): 100 on every Linux that node runs on
const HZ = 100;

/** @param {string} path @returns {string|null} */
function read(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;  // a process or thread that ended between the listing and the read
  }
}

/**
 * the name and the CPU time (user + system, in seconds) of a /proc/…/stat line (the name may hold spaces and
 * parentheses)
 * @param {string} stat
 * @returns {{comm: string, cpu: number}}
 */
export function parseStat(stat) {
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');  // fields from the 3rd (state); utime and stime are the 14th, 15th
  return { comm: stat.slice(stat.indexOf('(') + 1, close), cpu: (Number(fields[11]) + Number(fields[12])) / HZ };
}

/**
 * Chromium's role of a process, from its command line: its --type, or the browser for the one without (the zygote
 * that forks the others is counted with the utility processes; it does nothing once they are made)
 * @param {string} cmdline NUL-separated
 * @returns {'renderer'|'browser'|'gpu'|'utility'}
 */
function processRole(cmdline) {
  const type = /--type=([a-z-]+)/.exec(cmdline)?.[1];
  if (!type) return 'browser';
  if (type === 'renderer') return 'renderer';
  return type === 'gpu-process' ? 'gpu' : 'utility';
}

/**
 * @typedef {{chromium: Record<string, number>, machine: {busy: number, idle: number, steal: number}}} CpuReading
 *   seconds so far: chromium by role (workers, main, renderer, browser, gpu, utility); machine over all cores
 */

/**
 * One reading of the CPU seconds used so far. null where there is no /proc (not Linux).
 * @param {RegExp} [isChromium] the processes counted as Chromium's, by their executable's path
 * @returns {CpuReading|null}
 */
export function cpuReading(isChromium = /\/(chromium|chrome)$/) {
  const stat = read('/proc/stat');
  if (!stat || !existsSync('/proc/self/task')) return null;
  const chromium = { workers: 0, main: 0, renderer: 0, browser: 0, gpu: 0, utility: 0 };
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    const cmdline = read(`/proc/${pid}/cmdline`);
    const own = read(`/proc/${pid}/stat`);
    // the executable: the first word (a child process of Chromium writes its command line back as one string)
    if (!cmdline || !own || !isChromium.test(cmdline.split(/[\0 ]/)[0])) continue;
    const role = processRole(cmdline);
    const total = parseStat(own).cpu;  // every thread's, the ended ones' too
    if (role !== 'renderer') {
      chromium[role] += total;
      continue;
    }
    // the renderer: its main thread (the thread whose id is the process's), its Web Workers' threads, and the rest
    // (compositor, IO, the pool that compiles, rasterises and collects garbage); the workers' share is what is left,
    // so that workers that have ended still count
    let main = 0, others = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const line = read(`/proc/${pid}/task/${tid}/stat`);
      if (!line) continue;
      const { comm, cpu } = parseStat(line);
      if (tid === pid) main += cpu;
      else if (!comm.startsWith('DedicatedWorker')) others += cpu;
    }
    chromium.main += main;
    chromium.renderer += others;
    chromium.workers += total - main - others;
  }
  // the first line of /proc/stat: user nice system idle iowait irq softirq steal … (guest time is within user)
  const t = stat.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const machine = { busy: (t[0] + t[1] + t[2] + t[5] + t[6]) / HZ, idle: (t[3] + t[4]) / HZ, steal: (t[7] || 0) / HZ };
  return { chromium, machine };
}

/**
 * The seconds between two readings: Chromium's by role, every other process's (the machine's busy time less
 * Chromium's), idle and stolen (a VM's host running something else), adding up to the cores × the span.
 * @param {CpuReading|null} before
 * @param {CpuReading|null} after
 * @returns {Record<string, number>|null}
 */
export function cpuSeconds(before, after) {
  if (!before || !after) return null;
  const out = Object.fromEntries(Object.keys(after.chromium).map((k) => [k, after.chromium[k] - (before.chromium[k] ?? 0)]));
  const chromium = Object.values(out).reduce((a, b) => a + b, 0);
  out.other_processes = Math.max(0, after.machine.busy - before.machine.busy - chromium);
  out.idle = after.machine.idle - before.machine.idle;
  out.steal = after.machine.steal - before.machine.steal;
  return out;
}
