#!/usr/bin/env node
// The table of scripts/bench: reads the raw JSON of each platform from a directory and prints one readable table,
// the comparison lines and the targets (as information: this never fails on a missed target).
//   node tests/bench/report.mjs [--dir build/bench] [--quick] [--note "text"]...
// Files read, when present: native.json, wasm-node.json, chromium.json (core/benchmark.hpp's JSON, Chromium's
// with an "environment" object) and pytorch.json (scripts/bench_torch.py's JSON).
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

// ---------------------------------------------------------------- arguments and inputs
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const dirIndex = argv.indexOf('--dir');
const dir = dirIndex >= 0 ? argv[dirIndex + 1] : 'build/bench';
const notes = argv.flatMap((a, i) => (a === '--note' && i + 1 < argv.length ? [argv[i + 1]] : []));

const PLATFORMS = [
  { key: 'native', title: 'native' },
  { key: 'wasm-node', title: 'wasm (node)' },
  { key: 'chromium', title: 'Chromium worker' },
  { key: 'pytorch', title: 'PyTorch' },
];
for (const p of PLATFORMS) {
  const file = join(dir, `${p.key}.json`);
  p.data = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}
const present = PLATFORMS.filter((p) => p.data);
const byKey = Object.fromEntries(PLATFORMS.map((p) => [p.key, p.data]));

// targets stated for context (information only)
const TARGET_CHROMIUM_RATIO = 2;   // Chromium within 2x of native, per training step
const TARGET_MATMUL_SHARE = 0.5;   // each matmul shape at >= 50% of that platform's measured peak

// ---------------------------------------------------------------- formatting
const LABEL = 36;
const CELL = 17;
const dash = '—';
const pad = (s, n) => (s.length >= n ? `${s.slice(0, n - 1)} ` : s + ' '.repeat(n - s.length));
const row = (label, cells) => pad(label, LABEL) + cells.map((c) => pad(c, CELL)).join('').trimEnd();
const num = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : dash);
const ms = (x) => num(x, x < 10 ? 2 : 1);
const pct = (x) => `${Math.round(x * 100)}%`;
const kilo = (x) => (x >= 1000 ? `${(x / 1000).toFixed(1)}k` : x.toFixed(0));
const times = (r) => `${r.toFixed(2)}x`;
const workloadOf = (t) => t.workload ?? 'tiny-char';  // bench_torch.py's entries are tiny-char
const trainingKey = (t) => `${workloadOf(t)} H=${t.heads}`;

const lines = [];
const out = (s = '') => lines.push(s);

// ---------------------------------------------------------------- header: what ran where
const cpu = cpus();
out(`mha-sandbox benchmark${quick ? ' (--quick: short loops, smoke run only)' : ''}`);
out(`machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores (shared; numbers are noisy); one thread per platform`);
out();
out('platforms');
const describe = {
  native: (d) => `SIMD ${d.simd}, g++ Release build`,
  'wasm-node': (d) => `SIMD ${d.simd}, node ${process.version}`,
  chromium: (d) => {
    const env = d.environment ?? {};
    const browser = /(HeadlessChrome|Chrome)\/[\d.]+/.exec(env.userAgent ?? '')?.[0] ?? 'Chromium';
    const timer = Number.isFinite(env.timer_resolution_ms) ? `, timer ${Math.round(env.timer_resolution_ms * 1000)} µs` : '';
    return `SIMD ${d.simd}, ${browser}, module Web Worker${env.crossOriginIsolated ? ', cross-origin isolated' : ''}${timer}`;
  },
  pytorch: (d) => `torch ${d.torch}, ${d.threads} thread(s), BLAS ${d.blas}`,
};
for (const p of PLATFORMS) out(`  ${pad(p.title, 18)}${p.data ? describe[p.key](p.data) : 'not run (see notes)'}`);
out();

// ---------------------------------------------------------------- the table: one column per platform
const cols = PLATFORMS;
out(row('', cols.map((p) => p.title)));
out(row('peak GFLOP/s, 1 core (measured)', cols.map((p) => (p.data?.peak_gflops ? num(p.data.peak_gflops) : dash))));

// matmuls, one row per shape (union over platforms, in first-seen order), then min–max
const matmulNames = [...new Set(present.flatMap((p) => (p.data.matmuls ?? []).map((m) => m.name)))];
if (matmulNames.length) {
  out('matmul GFLOP/s (share of that peak)');
  for (const name of matmulNames) {
    const shape = present.flatMap((p) => p.data.matmuls ?? []).find((m) => m.name === name);
    out(row(`  ${name} ${shape.M}x${shape.N}x${shape.K}`, cols.map((p) => {
      const m = p.data?.matmuls?.find((x) => x.name === name);
      return m ? `${num(m.gflops)} (${pct(m.share_of_peak)})` : dash;
    })));
  }
  out(row('  min–max', cols.map((p) => {
    const g = (p.data?.matmuls ?? []).map((m) => m.gflops);
    return g.length ? `${num(Math.min(...g))}–${num(Math.max(...g))}` : dash;
  })));
}

// training, one row per (workload, heads)
const trainingKeys = [...new Set(present.flatMap((p) => (p.data.training ?? []).map(trainingKey)))];
const findTraining = (d, key) => d?.training?.find((t) => trainingKey(t) === key);
if (trainingKeys.length) {
  out('training, ms/step (tokens/s)');
  for (const key of trainingKeys) {
    out(row(`  ${key}`, cols.map((p) => {
      const t = findTraining(p.data, key);
      return t ? `${ms(t.ms_per_step)} (${kilo(t.tokens_per_s)})` : dash;
    })));
  }
}

// any other array the core adds later (e.g. "variants"), printed generically: a label from the entry's strings
// and heads, a value from ms_per_step or gflops, else its other numbers
const KNOWN = new Set(['matmuls', 'training']);
const extraKeys = [...new Set(present.flatMap((p) => Object.keys(p.data).filter((k) => Array.isArray(p.data[k]) && !KNOWN.has(k))))];
const METRICS = new Set(['ms_per_step', 'tokens_per_s', 'gflops', 'share_of_peak', 'steps']);
const entryLabel = (e) => [...Object.values(e).filter((v) => typeof v === 'string'),
  ...Object.entries(e).filter(([k, v]) => Number.isInteger(v) && !METRICS.has(k))
    .map(([k, v]) => (k === 'heads' ? `H=${v}` : `${k}=${v}`))].join(' ') || JSON.stringify(e);
const entryValue = (e) => {
  if (Number.isFinite(e.ms_per_step)) return `${ms(e.ms_per_step)} ms${Number.isFinite(e.tokens_per_s) ? ` (${kilo(e.tokens_per_s)})` : ''}`;
  if (Number.isFinite(e.gflops)) return `${num(e.gflops)} GFLOP/s`;
  return Object.entries(e).filter(([k, v]) => typeof v === 'number' && (METRICS.has(k) || !Number.isInteger(v))).map(([k, v]) => `${k}=${+v.toPrecision(4)}`).join(' ');
};
for (const key of extraKeys) {
  out(key);
  const labels = [...new Set(present.flatMap((p) => (Array.isArray(p.data[key]) ? p.data[key] : []).map(entryLabel)))];
  for (const label of labels) {
    out(row(`  ${label}`, cols.map((p) => {
      const e = Array.isArray(p.data?.[key]) ? p.data[key].find((x) => entryLabel(x) === label) : undefined;
      return e ? entryValue(e) : dash;
    })));
  }
}
out();

// ---------------------------------------------------------------- comparisons (ms per training step)
// ratio of other/native per training row present in both; > 1 means slower than native
const ratios = (other) => trainingKeys.flatMap((key) => {
  const a = findTraining(byKey.native, key);
  const b = findTraining(other, key);
  return a && b ? [{ key, r: b.ms_per_step / a.ms_per_step }] : [];
});
const short = (key) => (trainingKeys.every((k) => k.startsWith('tiny-char ')) ? key.replace('tiny-char ', '') : key);
out('comparisons (ms per training step)');
const compare = (title, other, phrase) => {
  const rs = ratios(other);
  out(`  ${pad(title, 24)}${rs.length ? rs.map(({ key, r }) => `${short(key)}: ${phrase(r)}`).join('   ') : `${dash} (not run)`}`);
  return rs;
};
const vsTorch = compare('native vs PyTorch', byKey.pytorch,
  (r) => (r >= 1 ? `native ${times(r)} faster` : `native ${times(1 / r)} slower`));
const slower = (r) => (r >= 1 ? `${times(r)} slower` : `${times(1 / r)} faster`);
const vsChromium = compare('Chromium vs native', byKey.chromium, slower);
compare('wasm (node) vs native', byKey['wasm-node'], slower);
out();

// ---------------------------------------------------------------- targets, as information
out('targets (information only; a miss does not fail the run)');
const verdict = (ok) => (ok === null ? '[n/a]    ' : ok ? '[met]    ' : '[NOT met]');
{
  const ok = vsTorch.length ? vsTorch.every(({ r }) => r > 1) : null;
  const worst = vsTorch.length ? vsTorch.reduce((a, b) => (b.r < a.r ? b : a)) : null;
  out(`  ${verdict(ok)} native faster per step than PyTorch${worst ? ` (closest: ${short(worst.key)}, native ${times(worst.r)} PyTorch's speed)` : ' (PyTorch not run)'}`);
}
{
  const ok = vsChromium.length ? vsChromium.every(({ r }) => r <= TARGET_CHROMIUM_RATIO) : null;
  const worst = vsChromium.length ? vsChromium.reduce((a, b) => (b.r > a.r ? b : a)) : null;
  out(`  ${verdict(ok)} Chromium within ${TARGET_CHROMIUM_RATIO}x of native${worst ? ` (worst: ${short(worst.key)} at ${times(worst.r)})` : ' (Chromium or native not run)'}`);
}
let underMeasuredPeak = false;
for (const p of present.filter((x) => x.data.matmuls?.length)) {
  const shares = p.data.matmuls.map((m) => m.share_of_peak);
  const hits = shares.filter((s) => s >= TARGET_MATMUL_SHARE).length;
  if (Math.max(...shares) > 1) underMeasuredPeak = true;
  out(`  ${verdict(hits === shares.length)} matmuls >= ${pct(TARGET_MATMUL_SHARE)} of measured peak, ${p.title}: ` +
      `${hits}/${shares.length} shapes (min ${pct(Math.min(...shares))}, max ${pct(Math.max(...shares))})`);
}
if (underMeasuredPeak)
  out('            note: a share above 100% means the peak loop ran slower than the kernels there, so that "peak" is not a ceiling');

if (notes.length) {
  out();
  out('notes');
  for (const n of notes) out(`  ${n}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
