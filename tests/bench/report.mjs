#!/usr/bin/env node
// The table of scripts/bench: reads the raw JSON of each platform from a directory and prints one readable table,
// the comparison lines and the targets (as information: this never fails on a missed target).
//   node tests/bench/report.mjs [--dir build/bench] [--quick] [--note "text"]...
// Files read, when present: native-avx512.json, native-avx2.json (one per native SIMD level; native.json from an
// older run too), wasm-node.json, chromium.json (core/benchmark.hpp's JSON, Chromium's with an "environment"
// object; the kernels the page's workers run in Chromium, relaxed SIMD since 2026-11-28), chromium-simd128.json
// (mha.wasm's kernels, which browsers without relaxed SIMD run), pytorch.json (scripts/bench_torch.py's JSON) and
// page.json (scripts/bench_page.mjs's JSON); from
// scripts/bench --rounds N also NAME.round2.json .. NAME.roundN.json, the later rounds of each platform: the table
// is the first round's, and a section gives each training speed and each ratio as its range over the rounds.
// Counting rule of every GFLOP/s figure: a multiply-add is 2 flops (native FMA: 2 per lane; wasm mul + add or
// relaxed_madd: 2).
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CPU_ROLES, pageEfficiency, PARTS, range } from './page_efficiency.mjs';

// ---------------------------------------------------------------- arguments and inputs
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const dirIndex = argv.indexOf('--dir');
const dir = dirIndex >= 0 ? argv[dirIndex + 1] : 'build/bench';
const notes = argv.flatMap((a, i) => (a === '--note' && i + 1 < argv.length ? [argv[i + 1]] : []));

const PLATFORMS = [
  { key: 'native-avx512', title: 'native avx512' },
  { key: 'native-avx2', title: 'native avx2' },
  { key: 'native', title: 'native' },
  { key: 'wasm-node', title: 'wasm (node)' },
  { key: 'chromium', title: 'Chromium worker' },
  { key: 'chromium-simd128', title: 'Chromium mha.wasm' },
  { key: 'pytorch', title: 'PyTorch' },
];
for (const p of PLATFORMS) {
  const file = join(dir, `${p.key}.json`);
  p.data = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}
const present = PLATFORMS.filter((p) => p.data);
// every round of each platform, round 1 first (the platform's entry in a round it did not run in is null)
const MAX_ROUNDS = 9;
const roundFile = (key, r) => join(dir, r === 1 ? `${key}.json` : `${key}.round${r}.json`);
const lastRound = Math.max(1, ...PLATFORMS.flatMap((p) => Array.from({ length: MAX_ROUNDS }, (_, i) => i + 1)
  .filter((r) => existsSync(roundFile(p.key, r)))));
const rounds = Object.fromEntries(PLATFORMS.map((p) => [p.key, Array.from({ length: lastRound }, (_, i) =>
  (i === 0 ? p.data : existsSync(roundFile(p.key, i + 1)) ? JSON.parse(readFileSync(roundFile(p.key, i + 1), 'utf8')) : null))]));
const pageFile = join(dir, 'page.json');  // scripts/bench_page.mjs: the built site's own numbers
const page = existsSync(pageFile) ? JSON.parse(readFileSync(pageFile, 'utf8')) : null;
const byKey = Object.fromEntries(PLATFORMS.map((p) => [p.key, p.data]));
const NATIVES = ['native-avx512', 'native-avx2', 'native'];

// targets stated for context (information only); the first three are issue 13's
const TARGET_CHROMIUM_SHARE = 0.7;   // the Chromium worker's training step at >= 70% of its measured peak, every H
const TARGET_NATIVE_VS_TORCH = 2;    // native (the faster build) >= 2x PyTorch one-thread at every H
const TARGET_CHROMIUM_RATIO = 2;     // Chromium within 2x of native, per training step
const TARGET_MATMUL_SHARE = 0.5;     // each matmul shape at >= 50% of that platform's measured peak
// the page's, DESIGN.md §7
const TARGET_WASM_GZIP_BYTES = 400 * 1024;      // the module under 400 KB gzipped
const TARGET_FIRST_HEATMAP_MS = 1500;           // the first heatmap within 1.5 s of load, from localhost
const TARGET_WORKER_BYTES = 100 * 1024 * 1024;  // a training worker under 100 MB for tiny-char
const TARGET_COMPARISON_S = 60;                 // the H = 1/4/8 comparison at 300 steps within a minute
// issue 33's: the page as efficient as its kernels
const TARGET_PAGE_EFFICIENCY = 0.9;             // pure training / wall, every default experiment
const TARGET_OVER_LIMIT = 1.5;                  // the heads comparison within 1.5x of its machine limit
const TARGET_LESSON_S = 300;                    // the four default experiments of the lesson under 5 minutes

// ---------------------------------------------------------------- formatting
const LABEL = 40;
const CELL = 19;
const dash = '—';
const pad = (s, n) => (s.length >= n ? `${s.slice(0, n - 1)} ` : s + ' '.repeat(n - s.length));
const row = (label, cells) => pad(label, LABEL) + cells.map((c) => pad(c, CELL)).join('').trimEnd();
const num = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : dash);
const ms = (x) => num(x, x < 10 ? 2 : 1);
const pct = (x) => `${Math.round(x * 100)}%`;
const kilo = (x) => (x >= 1000 ? `${(x / 1000).toFixed(1)}k` : x.toFixed(0));
const times = (r) => `${r.toFixed(2)}x`;
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const workloadOf = (t) => t.workload ?? 'tiny-char';  // bench_torch.py's entries are tiny-char
const trainingKey = (t) => `${workloadOf(t)} H=${t.heads}`;

const lines = [];
const out = (s = '') => lines.push(s);

// ---------------------------------------------------------------- header: what ran where
// The CPU from /proc/cpuinfo: a VM may report only "AMD EPYC" as the model name, so family and model say which
// generation it is (AMD family 0x17 Zen 1/2, 0x19 Zen 3/4, 0x1A Zen 5), and the flags say whether it has AVX-512F
function cpuDescription() {
  const cpu = cpus();
  let text = '';
  try { text = readFileSync('/proc/cpuinfo', 'utf8'); } catch { return `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores`; }
  const field = (name) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim();
  const family = Number(field('cpu family')), model = Number(field('model')), stepping = field('stepping');
  const vendor = field('vendor_id');
  const zen = { 0x17: 'Zen 1/Zen 2', 0x19: 'Zen 3/Zen 4', 0x1a: 'Zen 5' }[family];
  const hex = (x) => `0x${x.toString(16).toUpperCase()}`;
  const generation = vendor === 'AuthenticAMD' && zen ? `, ${zen}` : '';
  const avx512 = /^flags\s*:.*\bavx512f\b/m.test(text) ? 'AVX-512F' : 'no AVX-512';
  return `${field('model name') ?? 'unknown CPU'} (${vendor ?? '?'} family ${family} = ${Number.isFinite(family) ? hex(family) : '?'}` +
    `${generation}, model ${model}, stepping ${stepping ?? '?'}; ${avx512}), ${cpu.length} cores`;
}
out(`mha-sandbox benchmark${quick ? ' (--quick: short loops, smoke run only)' : ''}`);
out(`machine: ${cpuDescription()} (shared: numbers are noisy); one thread per platform`);
out('counting: a multiply-add is 2 flops (native FMA = 2 flops/lane; wasm f32x4.mul + f32x4.add, or f32x4.relaxed_madd, ' +
  '= 2 flops/lane)');
out();
out('platforms');
const nativeDescription = (d) => `SIMD ${d.simd}${d.simd_lanes ? ` (${d.simd_lanes} lanes)` : ''}, g++ Release build`;
const chromiumDescription = (d) => {
  const env = d.environment ?? {};
  const browser = /(HeadlessChrome|Chrome)\/[\d.]+/.exec(env.userAgent ?? '')?.[0] ?? 'Chromium';
  const timer = Number.isFinite(env.timer_resolution_ms) ? `, timer ${Math.round(env.timer_resolution_ms * 1000)} µs` : '';
  return `SIMD ${d.simd}, ${browser}, module Web Worker${env.crossOriginIsolated ? ', cross-origin isolated' : ''}${timer}`;
};
const describe = {
  'native-avx512': nativeDescription,
  'native-avx2': nativeDescription,
  native: nativeDescription,
  'wasm-node': (d) => `SIMD ${d.simd}, node ${process.version}`,
  chromium: chromiumDescription,
  'chromium-simd128': chromiumDescription,
  pytorch: (d) => `torch ${d.torch}, ${d.threads} thread(s), BLAS ${d.blas}`,
};
for (const p of PLATFORMS) {
  if (p.key === 'native' && !p.data) continue;  // the name of older runs' single native build
  out(`  ${pad(p.title, 18)}${p.data ? describe[p.key](p.data) : 'not run (see notes)'}`);
}
out();

// ---------------------------------------------------------------- the table: one column per platform
const cols = PLATFORMS.filter((p) => p.key !== 'native' || p.data);
out(row('', cols.map((p) => p.title)));
// the ceiling: the best of independent-chain loops (core/app/benchmark.cpp), and which loop gave it
out(row('peak GFLOP/s, 1 core (measured)', cols.map((p) => (p.data?.peak_gflops ? num(p.data.peak_gflops) : dash))));
// chains: K (K multiply and K add chains for mul+add), or KM:KA for mul+add with one operand ("1op" in the table)
const chains = (l) => (l.add_chains ? `${l.chains}:${l.add_chains}` : `${l.chains}`);
const loopName = (l) => l.loop.replace('mul+add, one operand', 'mul+add 1op');
out(row('  the loop that gave it (chains)', cols.map((p) => (p.data?.peak
  ? `${loopName(p.data.peak)} (${chains(p.data.peak)})` : dash))));
// the ceiling is the best of that loop's rounds: in the sweep at the start, and again beside each matmul and after
// the training steps (benchmark.cpp)
out(row('  that loop: sweep / again later', cols.map((p) => (Number.isFinite(p.data?.peak?.again_gflops)
  ? `${num(p.data.peak.sweep_gflops)} / ${num(p.data.peak.again_gflops)}` : dash))));
for (const loop of ['mul+add', 'mul+add, one operand', 'fma']) {
  out(row(`  best ${loopName({ loop })} loop`, cols.map((p) => {
    const runs = (p.data?.peak?.sweep ?? []).filter((r) => r.loop === loop);
    if (!runs.length) return dash;
    const best = runs.reduce((a, b) => (b.gflops > a.gflops ? b : a));
    return `${num(best.gflops)} (${chains(best)})`;
  })));
}

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
  out('training, ms/step, median of the steps (tokens/s)');
  for (const key of trainingKeys) {
    out(row(`  ${key}`, cols.map((p) => {
      const t = findTraining(p.data, key);
      return t ? `${ms(t.ms_per_step)} (${kilo(t.tokens_per_s)})` : dash;
    })));
  }
  const gflop = present.flatMap((p) => p.data.training ?? []).find((t) => Number.isFinite(t.gflop_per_step))?.gflop_per_step;
  out(`training step: achieved GFLOP/s (share of the run's peak / of the ceiling between its steps)` +
      `${gflop ? `; ${num(gflop, 3)} GFLOP per step` : ''}`);
  const beside = (t) => (Number.isFinite(t.share_of_peak_beside) ? ` / ${pct(t.share_of_peak_beside)}` : '');
  for (const key of trainingKeys) {
    out(row(`  ${key}`, cols.map((p) => {
      const t = findTraining(p.data, key);
      return t && Number.isFinite(t.gflops) ? `${num(t.gflops)} (${pct(t.share_of_peak)}${beside(t)})` : dash;
    })));
  }
  out('  the ceiling between its steps: the peak loop run after every timed step (median GFLOP/s; the step\'s');
  out('  share is the median of each step over the ceiling right after it, min–max of those shares in brackets)');
  for (const key of trainingKeys) {
    out(row(`  ${key}`, cols.map((p) => {
      const t = findTraining(p.data, key);
      if (!t || !Number.isFinite(t.peak_beside_gflops)) return dash;
      const range = `${Math.round(t.share_of_peak_beside_min * 100)}–${pct(t.share_of_peak_beside_max)}`;
      return `${num(t.peak_beside_gflops)} [${range}]`;
    })));
  }
  out('  flops = 3 · B·T · [2·(L·12·D² + V·D) + L·2·2·T·D] (matmuls only; q kT and att·v over the full T×T square;');
  out('  backward = 2x forward): core/app/benchmark.hpp training_step_flops. The causal kernels skip the blocks above');
  out('  the diagonal (41-47% of the attention part): these GFLOP/s and shares overstate the work done by 6 to 7%');
}

// any other array the core adds later (e.g. "variants"), printed generically: a label from the entry's strings
// and heads, a value from ms_per_step or gflops, else its other numbers
const KNOWN = new Set(['matmuls', 'training', 'profile']);
const extraKeys = [...new Set(present.flatMap((p) => Object.keys(p.data).filter((k) => Array.isArray(p.data[k]) && !KNOWN.has(k))))];
const METRICS = new Set(['ms_per_step', 'ms_min', 'tokens_per_s', 'gflops', 'share_of_peak', 'steps',
  'peak_beside_gflops', 'share_of_peak_beside', 'share_of_peak_beside_min', 'share_of_peak_beside_max']);
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

// ---------------------------------------------------------------- where the time goes: the per-op profile
// core/base/profile.hpp: the mean per step of every lap path (exclusive ms, % of the profiled step, calls per step);
// "other / unattributed" is the step minus the rows, so each column adds up to the step
const profiled = cols.filter((p) => p.data?.profile?.rows?.length);
if (profiled.length) {
  const pf = profiled[0].data.profile;
  out(`profile of one ${pf.workload} step, H=${pf.heads} (mean of the faster ${pf.steps} of ${2 * pf.steps} profiled steps): ` +
      'exclusive ms (% of step) [calls per step]');
  out(row('', profiled.map((p) => p.title)));
  const ops = [...new Set(profiled.flatMap((p) => p.data.profile.rows.map((r) => r.op)))];
  const cell = (p, r) => `${num(r.ms, r.ms < 1 ? 3 : 2)} (${num(100 * r.ms / p.data.profile.step_ms, 1)}%)`;
  for (const op of ops) {
    const depth = op.split('/').length - 1;
    const calls = profiled.map((p) => p.data.profile.rows.find((r) => r.op === op)?.calls).find(Number.isFinite);
    const label = `  ${'  '.repeat(depth)}${op.split('/').pop()}${calls > 1 ? ` [${+calls.toFixed(1)}]` : ''}`;
    out(row(label, profiled.map((p) => {
      const r = p.data.profile.rows.find((x) => x.op === op);
      return r ? cell(p, r) : dash;
    })));
  }
  out(row('  other / unattributed', profiled.map((p) => cell(p, { ms: p.data.profile.unattributed_ms }))));
  out(row('  step (the mean of those steps)', profiled.map((p) => `${ms(p.data.profile.step_ms)} ms`)));
  // profiled and unprofiled steps alternate on one trainer, so both medians see the same load
  out(row('  median step, profiled', profiled.map((p) => (Number.isFinite(p.data.profile.step_ms_on) ? `${ms(p.data.profile.step_ms_on)} ms` : dash))));
  out(row('  median step, not profiled', profiled.map((p) => (Number.isFinite(p.data.profile.step_ms_off) ? `${ms(p.data.profile.step_ms_off)} ms` : dash))));
  out(row('  profiler overhead (on/off - 1)', profiled.map((p) => {
    const { step_ms_on: on, step_ms_off: off } = p.data.profile;
    return Number.isFinite(on) && Number.isFinite(off) && off > 0 ? `${num(100 * (on / off - 1), 1)}%` : dash;
  })));
  // the same, grouped by op kind over forward and backward: what a kernel engineer asks first
  const KINDS = [
    // dweight+dbias: where the build sums a Linear's dbias in its dweight's pass over dout (wasm); dinp*gelu':
    // mlp.proj's dinp with GELU's backward multiply in its pass
    ['weight matmuls (fwd, dinp, dweight)', (op) => /\/(matmul|dinp|dweight|dweight\+dbias|dinp\*gelu')$/.test(op)],
    ['attention core, all heads', (op) => /\/attention\//.test(op)],
    ['layernorm', (op) => op.endsWith('/layernorm')],
    ['gelu', (op) => op.endsWith('/gelu')],
    ['cross-entropy', (op) => op.endsWith('/cross-entropy')],
    ['embedding', (op) => op.endsWith('/embedding')],
    ['adamw + grad norm/clip', (op) => op === 'adamw' || op === 'grad norm + clip'],
    ['the rest (copies, bias, residual...)', () => true],
  ];
  out('  by kind, forward + backward');
  for (const [i, [title]] of KINDS.entries()) {
    out(row(`    ${title}`, profiled.map((p) => {
      const total = p.data.profile.rows.filter((r) => KINDS.findIndex(([, f]) => f(r.op)) === i).reduce((t, r) => t + r.ms, 0);
      return cell(p, { ms: total });
    })));
  }
  // the fused laps the table shows, each with what its time holds
  const FUSED = [
    ['/dweight+dbias', '(dweight+dbias: the bias sum rides on the dweight pass over dout, so its time is in the weight matmuls)'],
    ["/dinp*gelu'", "(dinp*gelu': GELU's backward multiply rides on mlp.proj's dinp pass, so its time is in the weight matmuls)"],
  ];
  for (const [suffix, note] of FUSED)
    if (profiled.some((p) => p.data.profile.rows.some((r) => r.op.endsWith(suffix)))) out(`  ${note}`);
  out();
}

// ---------------------------------------------------------------- comparisons (ms per training step)
// the faster native build per training row (avx512 or avx2), the reference for every comparison
// (of round r: 0 is the first, byKey's)
const fastestIn = (r) => ({ training: trainingKeys.flatMap((key) => {
  const runs = NATIVES.map((k) => findTraining(rounds[k][r], key)).filter(Boolean);
  return runs.length ? [runs.reduce((a, b) => (b.ms_per_step < a.ms_per_step ? b : a))] : [];
}) });
const nativeFastest = fastestIn(0);
const fastestName = (key) => NATIVES.find((k) => findTraining(byKey[k], key) === findTraining(nativeFastest, key)) ?? '';
// ratio of other/native per training row present in both; > 1 means slower than native
const ratios = (other, base = nativeFastest) => trainingKeys.flatMap((key) => {
  const a = findTraining(base, key);
  const b = findTraining(other, key);
  return a && b ? [{ key, r: b.ms_per_step / a.ms_per_step }] : [];
});
const short = (key) => (trainingKeys.every((k) => k.startsWith('tiny-char ')) ? key.replace('tiny-char ', '') : key);
out(`comparisons (ms per training step; native = the faster native build per row: ${trainingKeys.map((k) => `${short(k)} ${fastestName(k).replace('native-', '') || dash}`).join(', ')})`);
const compare = (title, other, phrase, base) => {
  const rs = ratios(other, base);
  out(`  ${pad(title, 24)}${rs.length ? rs.map(({ key, r }) => `${short(key)}: ${phrase(r)}`).join('   ') : `${dash} (not run)`}`);
  return rs;
};
compare('native vs PyTorch', byKey.pytorch,
  (r) => (r >= 1 ? `native ${times(r)} faster` : `native ${times(1 / r)} slower`));
const slower = (r) => (r >= 1 ? `${times(r)} slower` : `${times(1 / r)} faster`);
const vsChromium = compare('Chromium vs native', byKey.chromium, slower);
compare('wasm (node) vs native', byKey['wasm-node'], slower);
compare('Chromium vs PyTorch', byKey.chromium,
  (r) => (r <= 1 ? `Chromium ${times(1 / r)} faster` : `Chromium ${times(r)} slower`), byKey.pytorch);
if (byKey['chromium-simd128']) compare('relaxed vs mha.wasm', byKey.chromium, slower, byKey['chromium-simd128']);
if (byKey['native-avx512'] && byKey['native-avx2'])
  compare('avx512 vs avx2', byKey['native-avx512'], slower, byKey['native-avx2']);
out();

// ---------------------------------------------------------------- over the rounds (scripts/bench --rounds N)
// A shared VM slows a run now and then (another tenant), by up to half, for a platform's whole run: a ratio of two
// runs made a minute apart then says more about the neighbour than about the code. So each ratio is given as the
// ratio of the two platforms' medians over the rounds, which one slowed round cannot move far, and beside it the
// range of the rounds' own pairs; the targets on ratios are judged on the medians.
/** a training row's figure in each round it has one (pick: of the row; platform: else the faster native build) */
const overRounds = (key, platform, pick = (/** @type {any} */ t) => t?.ms_per_step) => Array.from({ length: lastRound },
  (_, r) => pick(findTraining(platform ? rounds[platform][r] : fastestIn(r), key))).filter(Number.isFinite);
/** @type {(other: string, base?: string) => {key: string, r: number, rs: number[]}[]} per training row: the ratio of
 * the medians over the rounds (other / base; base: the faster native build of each round), and each round's */
const roundRatios = (other, base) => trainingKeys.flatMap((key) => {
  const rs = rounds[other].flatMap((d, r) => {
    const a = findTraining(base ? rounds[base][r] : fastestIn(r), key);
    const b = findTraining(d, key);
    return a && b ? [b.ms_per_step / a.ms_per_step] : [];
  });
  return rs.length ? [{ key, r: range(overRounds(key, other)).median / range(overRounds(key, base)).median, rs }] : [];
});
if (lastRound > 1) {
  out(`over ${lastRound} rounds (scripts/bench --rounds ${lastRound}: every platform once per round, one after another), ` +
      'ms/step: the median of the rounds [min–max]');
  for (const key of trainingKeys) {
    out(row(`  ${key}`, cols.map((p) => {
      const xs = overRounds(key, p.key);
      if (!xs.length) return dash;
      const { min, median, max } = range(xs);
      return `${ms(median)} [${ms(min)}–${ms(max)}]`;
    })));
  }
  out('  the ratios: of the medians [each round\'s own pair, min–max]');
  // f turns a ratio (other / base ms) into the figure the line states
  const over = (title, list, phrase, f) => out(`  ${pad(title, 24)}${list.length
    ? list.map(({ key, r, rs }) => {
      const fs = rs.map(f);
      return `${short(key)}: ${phrase(f(r))} [${Math.min(...fs).toFixed(2)}–${Math.max(...fs).toFixed(2)}]`;
    }).join('   ')
    : `${dash} (not run)`}`);
  over('native vs PyTorch', roundRatios('pytorch'), (x) => `native ${times(x)} faster`, (r) => r);
  over('Chromium vs PyTorch', roundRatios('chromium', 'pytorch'), (x) => `Chromium ${times(x)} PyTorch's speed`, (r) => 1 / r);
  over('Chromium vs native', roundRatios('chromium'), (x) => `${times(x)} slower`, (r) => r);
  if (byKey['chromium-simd128']) {
    over('relaxed vs mha.wasm', roundRatios('chromium', 'chromium-simd128'), (x) => `${times(x)} faster`, (r) => 1 / r);
  }
  out();
}
const roundsNote = lastRound > 1 ? `, the medians of ${lastRound} rounds` : '';

// ---------------------------------------------------------------- the page (scripts/bench_page.mjs)
const kB = (b) => `${(b / 1024).toFixed(0)} KB`;
const MB = (b) => `${+(b / 1024 / 1024).toFixed(1)} MB`;
const line = (label, text) => out(pad(label, LABEL) + text);  // a label, then text of any length
const span = (xs, f) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
// one core's wasm ceiling in Chromium: the median of the ceilings measured between its training steps, else the
// run's best peak loop (scripts/bench_chromium.mjs)
const besides = (byKey.chromium?.training ?? []).map((t) => t.peak_beside_gflops).filter(Number.isFinite);
const ceiling = besides.length ? range(besides).median : byKey.chromium?.peak_gflops ?? NaN;
const ceilingSource = besides.length ? "the median of Chromium's ceilings between its training steps" : "Chromium's peak loop";
// the experiments by name, each measured once or more (--repeat), in the order first met
const experiments = new Map();
for (const e of page?.experiments ?? []) experiments.set(e.name, [...(experiments.get(e.name) ?? []), e]);
const efficiencies = new Map([...experiments].map(([name, list]) => [name, list.map((e) => pageEfficiency(e, ceiling))]));
// a figure over the repeats: "12.3" once, "12.3 (11.9–12.8)" as median (min–max) over several
const over = (list, f, digits = 1) => {
  const r = range(list.map(f));
  return r.n > 1 ? `${num(r.median, digits)} (${num(r.min, digits)}–${num(r.max, digits)})` : num(r.median, digits);
};
const overPct = (list, f) => {
  const r = range(list.map(f));
  return r.n > 1 ? `${pct(r.median)} (${pct(r.min)}–${pct(r.max)})` : Number.isFinite(r.median) ? pct(r.median) : dash;
};
const headsRuns = experiments.get('heads')?.[0]?.runs ?? [];
const mem = page?.worker_memory;
const workerBytes = mem ? mem.wasm_bytes_max + mem.js_heap_total_bytes_max : NaN;
if (page) {
  out(`the page (scripts/bench_page.mjs: public/ as built, in headless Chromium, from 127.0.0.1)`);
  line('  module (public/build/mha.wasm)', `${kB(page.module.bytes)}; gzip -9 ${kB(page.module.gzip_bytes)}; brotli ${kB(page.module.brotli_bytes)}`);
  if (page.first_heatmap) {
    line('  first heatmap after load', `${num(page.first_heatmap.median_ms, 0)} ms, median of ${page.first_heatmap.loads_ms.length} loads ` +
      `in a fresh profile each (${span(page.first_heatmap.loads_ms, (x) => num(x, 0))} ms; performance mark 'mha-first-heatmap')`);
  }
  const anyRepeat = [...experiments.values()].some((l) => l.length > 1);
  const cores = page.experiments?.[0]?.cores;
  out(`  the default experiments, each from the click to its verdict on ${cores} cores (one worker per core)` +
    `${anyRepeat ? '; over repeats: median (min–max)' : ''}`);
  out(`    machine limit = the runs' steps × each step's flops (the core's count) / (${cores} × ${num(ceiling)} GFLOP/s, ${ceilingSource})`);
  out(`    pure training = the workers' training seconds (the runs' and their helpers') / ${cores}; page efficiency = pure training / wall`);
  out(`    best schedule = the least wall time any order of these runs could take on ${cores} slots at their training times, ` +
    'each run on one slot (runs of unequal lengths leave a slot idle); of best = best schedule / wall. A run lent a ' +
    'helper on an idle core (web/js/helper.js) takes its steps on two, and the page can beat that schedule');
  out(row('    experiment (runs × steps)', ['wall s', 'pure training s', 'page efficiency', 'best schedule s', 'of best',
    'machine limit s', 'wall / limit', 'main thread s']));
  for (const [name, list] of experiments) {
    const effs = efficiencies.get(name);
    const e0 = list[0];
    // runs that end at a loss (the offsets task) each have their own length: their sum, not a list
    const lengths = [...new Set(e0.runs.map((r) => r.steps))];
    const size = lengths.length <= 2 ? `${e0.runs.length} × ${lengths.join('/')}`
      : `${e0.runs.length} runs, ${sum(e0.runs.map((r) => r.steps))} steps`;
    out(row(`    ${e0.title ?? name} (${size})`, [over(effs, (f) => f.wall), over(effs, (f) => f.pure),
      overPct(effs, (f) => f.efficiency), over(effs, (f) => f.best), overPct(effs, (f) => f.ofBest), over(effs, (f) => f.limit),
      over(effs, (f) => f.overLimit, 2), over(effs, (f) => f.mainThread)]));
    if (!effs.every((f) => f.complete)) out('      some runs did not end with their figures: the breakdown leaves them out');
  }
  out('    where the wall time goes, seconds per slot (each part summed over the runs / the slots; they add up to the wall);');
  out("    the cores over it: every thread's CPU time over the span (Linux's /proc: scripts/proc_cpu.mjs) as a share of the cores × wall;");
  out("    the renderer's other threads compile (the module's optimising tier, the workers' JavaScript), rasterise, collect garbage");
  for (const [name, list] of experiments) {
    const effs = efficiencies.get(name);
    const parts = PARTS.map(([key, label]) => ({ label, r: range(effs.map((f) => f.parts[key])) })).filter((p) => Math.abs(p.r.median) >= 0.05);
    const ahead = range(effs.map((f) => f.ahead)).median;
    out(`      ${list[0].title ?? name}: ${parts.map((p) => `${p.label} ${num(p.r.median)}`).join(', ')}` +
      `${ahead >= 0.05 ? `; beside them, the set-up of the runs set up ahead ${num(ahead)}` : ''}`);
    const lent = range(list.map((e) => sum(e.runs.map((r) => r.helpers?.length ?? 0)))).median;
    if (lent > 0) out(`        helpers lent on idle cores: ${num(lent, 0)} (their halves are in the training, their validation batches in evaluation, their set-up in start-up and set-up)`);
    const pm = range(effs.map((f) => f.mainThread)).median;
    const tally = (k) => range(effs.map((f) => (f.pageMs[k] ?? 0) / 1000)).median;
    out(`        main thread (beside the workers, on the same cores): ${num(pm)} s busy, of which receiving ${num(tally('receive'))}, ` +
      `drawing ${num(tally('draw'))}, saving ${num(tally('store'))}`);
    const shares = effs.map((f) => f.cores).filter((x) => x !== null);
    if (shares.length) {
      const roles = CPU_ROLES.map(([key, label]) => ({ label, r: range(shares.map((x) => x[key])) })).filter((p) => p.r.median >= 0.0005);
      // another process's share of the cores is taken from the page's: its figures are then not the page's alone
      const busy = range(shares.map((x) => x.others)).median >= 0.05 ? '; the machine was not idle' : '';
      out(`        the cores over it: ${roles.map((p) => `${p.label} ${(100 * p.r.median).toFixed(1)}%`).join(', ')}${busy}`);
      // the workers' own clocks run on while another thread has their core: the difference is time spent waiting
      const cpu = range(effs.map((f) => f.workersCpu)).median;
      const clocks = range(effs.map((f) => f.workersBusy)).median;
      out(`        the workers' CPU time ${num(cpu)} s against ${num(clocks)} s busy by their own clocks (all parts, all runs): ` +
        `${num(clocks - cpu)} s of it waiting for a core or starting up (a worker's start-up is timed from its creation)`);
    }
  }
  const heads = experiments.get('heads')?.[0];
  if (heads?.workers) {
    const { at_verdict: v, idle, idle_s: idleS } = heads.workers;
    line('  the heads comparison\'s workers', `${v.count} alive at its verdict (wasm ${MB(v.wasm_bytes)}), ${idle.count} ` +
      `${num(idleS, 0)} s later (wasm ${MB(idle.wasm_bytes)}): a finished run's worker goes when idle`);
  }
  if (mem) {
    line('  a training worker\'s memory', `wasm ${MB(mem.wasm_bytes_max)} (largest run) + JS heap ` +
      `${MB(mem.js_heap_total_bytes_max)} (largest of ${mem.js_heap_samples} samples, allocated)`);
  }
  for (const [what, list] of [['console errors', page.console_errors], ['requests off the machine', page.foreign_requests]])
    if (list?.length) line(`  ${what}`, `${list.length}: ${list.slice(0, 3).join(' | ')}`);
  out();
}

// ---------------------------------------------------------------- targets, as information
out('targets (information only; a miss does not fail the run)');
const verdict = (ok) => (ok === null ? '[n/a]    ' : ok ? '[met]    ' : '[NOT met]');
{
  // judged on the share against the ceiling of the step's own moment (see core/app/benchmark.cpp bench_training),
  // at every H (issue 33; issue 13 asked it of H = 4), each H's share the median of its rounds; the share against
  // the run's best ceiling, measured in other seconds, is printed beside it for the first round
  const shareOf = (t) => (Number.isFinite(t?.share_of_peak_beside) ? t.share_of_peak_beside : t?.share_of_peak);
  const perH = trainingKeys.filter((key) => key.startsWith('tiny-char ')).flatMap((key) => {
    const xs = overRounds(key, 'chromium', shareOf);
    return xs.length ? [{ key, ...range(xs) }] : [];
  });
  const ok = perH.length ? perH.every(({ median }) => median >= TARGET_CHROMIUM_SHARE) : null;
  const each = perH.map(({ key, median, min, max }) =>
    `${short(key)} ${pct(median)}${lastRound > 1 ? ` [${pct(min)}–${pct(max)}]` : ''}`).join(', ');
  const t4 = findTraining(byKey.chromium, 'tiny-char H=4');
  out(`  ${verdict(ok)} Chromium worker trains tiny-char at >= ${pct(TARGET_CHROMIUM_SHARE)} of its measured peak at every H` +
      `${ok === null ? ' (Chromium not run)' : ` (of the ceiling between its steps${lastRound > 1 ? `, the medians of ${lastRound} rounds [min–max]` : ''}: ${each}` +
        `${t4 ? `; H=4 against the run's best, ${num(byKey.chromium.peak_gflops)} GFLOP/s: ${pct(t4.share_of_peak)}` : ''})`}`);
}
{
  // r = Chromium ms / PyTorch ms: <= 1 means at least as fast (over rounds: of the medians)
  const rs = roundRatios('chromium', 'pytorch');
  const ok = rs.length ? rs.every(({ r }) => r <= 1) : null;
  const worst = rs.length ? rs.reduce((a, b) => (b.r > a.r ? b : a)) : null;
  out(`  ${verdict(ok)} Chromium at least as fast as PyTorch one-thread at every H` +
      `${worst ? ` (worst: ${short(worst.key)}, Chromium at ${times(1 / worst.r)} PyTorch's speed${roundsNote})` : ' (Chromium or PyTorch not run)'}`);
}
{
  const rs = roundRatios('pytorch');
  const ok = rs.length ? rs.every(({ r }) => r >= TARGET_NATIVE_VS_TORCH) : null;
  const worst = rs.length ? rs.reduce((a, b) => (b.r < a.r ? b : a)) : null;
  out(`  ${verdict(ok)} native (the faster build) >= ${TARGET_NATIVE_VS_TORCH}x PyTorch at every H` +
      `${worst ? ` (closest: ${short(worst.key)}, native ${times(worst.r)} PyTorch's speed${roundsNote})` : ' (PyTorch not run)'}`);
}
{
  // every share printed above: matmul shapes and training steps (both shares, and each step's), every platform.
  // Judged as printed, to the whole percent: a matmul that runs at the FP ports' limit ties the peak loop, and two
  // best-of timings of one limit differ in the fourth digit (measured: docs/experiments.md, "Speed of the kernels").
  const shares = present.flatMap((p) => [...(p.data.matmuls ?? []), ...(p.data.training ?? [])]
    .flatMap((e) => ['share_of_peak', 'share_of_peak_beside', 'share_of_peak_beside_max'].map((k) => e[k])
      .filter(Number.isFinite).map((s) => ({ p: p.title, e, s }))));
  const over = shares.filter(({ s }) => Math.round(s * 100) > 100);
  const max = shares.length ? shares.reduce((a, b) => (b.s > a.s ? b : a)) : null;
  out(`  ${verdict(shares.length ? !over.length : null)} every share of peak <= 100%, as printed` +
      `${max ? ` (largest: ${(max.s * 100).toFixed(1)}%, ${max.p} ${max.e.name ?? trainingKey(max.e)})` : ''}`);
  if (over.length)
    out('            a share above 100% means the peak loop ran slower than the code it is compared with: that "peak" is no ceiling');
}
{
  const ok = vsChromium.length ? vsChromium.every(({ r }) => r <= TARGET_CHROMIUM_RATIO) : null;
  const worst = vsChromium.length ? vsChromium.reduce((a, b) => (b.r > a.r ? b : a)) : null;
  out(`  ${verdict(ok)} Chromium within ${TARGET_CHROMIUM_RATIO}x of native${worst ? ` (worst: ${short(worst.key)} at ${times(worst.r)})` : ' (Chromium or native not run)'}`);
}
for (const p of present.filter((x) => x.data.matmuls?.length)) {
  const shares = p.data.matmuls.map((m) => m.share_of_peak);
  const hits = shares.filter((s) => s >= TARGET_MATMUL_SHARE).length;
  out(`  ${verdict(hits === shares.length)} matmuls >= ${pct(TARGET_MATMUL_SHARE)} of measured peak, ${p.title}: ` +
      `${hits}/${shares.length} shapes (min ${pct(Math.min(...shares))}, max ${pct(Math.max(...shares))})`);
}

if (page) {
  const defaults = !page.quick;
  out(`  ${verdict(page.module.gzip_bytes <= TARGET_WASM_GZIP_BYTES)} the module under ${kB(TARGET_WASM_GZIP_BYTES)} gzipped (${kB(page.module.gzip_bytes)})`);
  if (page.first_heatmap) {
    out(`  ${verdict(page.first_heatmap.median_ms <= TARGET_FIRST_HEATMAP_MS)} the first heatmap within ${TARGET_FIRST_HEATMAP_MS / 1000} s of load on localhost ` +
      `(median ${num(page.first_heatmap.median_ms, 0)} ms)`);
  }
  if (Number.isFinite(workerBytes)) {
    out(`  ${verdict(workerBytes <= TARGET_WORKER_BYTES)} a training worker under ${MB(TARGET_WORKER_BYTES)} for tiny-char ` +
      `(${MB(workerBytes)}: the largest wasm memory plus the largest JS heap)`);
  }
  const median = (name, f) => range((efficiencies.get(name) ?? []).map(f)).median;
  const judged = (ok) => verdict(defaults ? ok : null);
  const quickNote = ' (--quick: tiny budgets)';
  for (const [name, list] of experiments) {
    const eff = median(name, (f) => f.efficiency);
    const ofBest = median(name, (f) => f.ofBest);
    // the cores left idle (/proc): where they are many, the runs' unequal lengths are the cause, not the page
    const idle = median(name, (f) => f.cores?.idle ?? NaN);
    out(`  ${judged(eff >= TARGET_PAGE_EFFICIENCY)} page efficiency >= ${pct(TARGET_PAGE_EFFICIENCY)}: ${list[0].title ?? name} ` +
      `${Number.isFinite(eff) ? pct(eff) : dash}${Number.isFinite(ofBest) ? ` (${pct(ofBest)} of its runs' best schedule` +
      `${Number.isFinite(idle) ? `; the cores ${pct(idle)} idle` : ''})` : ''}${defaults ? '' : quickNote}`);
  }
  if (experiments.has('heads')) {
    const r = median('heads', (f) => f.overLimit);
    out(`  ${judged(r <= TARGET_OVER_LIMIT)} the heads comparison within ${TARGET_OVER_LIMIT}x of its machine limit (${num(r, 2)}x: ` +
      `${num(median('heads', (f) => f.wall))} s against ${num(median('heads', (f) => f.limit))} s)${defaults ? '' : quickNote}`);
    out(`  ${judged(median('heads', (f) => f.wall) <= TARGET_COMPARISON_S)} the H = 1/4/8 comparison at its defaults within a minute` +
      ` (${num(median('heads', (f) => f.wall))} s, ${plural(new Set(headsRuns.map((r) => r.seed)).size, 'seed')} per H)${defaults ? '' : quickNote}`);
  }
  const all = ['heads', 'offsets', 'break', 'induction'];
  if (all.every((n) => experiments.has(n))) {
    const total = sum(all.map((n) => median(n, (f) => f.wall)));
    out(`  ${judged(total <= TARGET_LESSON_S)} the lesson's default experiments under ${TARGET_LESSON_S / 60} minutes together ` +
      `(${num(total)} s: ${all.map((n) => `${n} ${num(median(n, (f) => f.wall))}`).join(', ')})${defaults ? '' : quickNote}`);
  }
}

if (notes.length) {
  out();
  out('notes');
  for (const n of notes) out(`  ${n}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
