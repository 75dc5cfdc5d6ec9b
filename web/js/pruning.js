// Head pruning on the page, the parts without DOM: which runs are pruned together (the chosen run and every finished
// run of the same kind and H, its other seeds), the finding the panel publishes, the rows of its text table and its
// mha-train command. The measurement and the verdict are the core's (core/lab/head_pruning.hpp; worker.js 'prune',
// engine.js pruningOverSeeds).
import { constants, taskRow } from './engine.js';

/**
 * @typedef {import('./engine.js').PruningVerdict} PruningVerdict
 * @typedef {import('./engine.js').PruningOutcome} PruningOutcome
 * @typedef {{seed: number, label: string, step: number, L: number, H: number, baseLoss: number,
 *   importance: number[], order: number[], loss: number[]}} PruningCurve  one run's pruning (Run.pruneHeads) with
 *   its seed and label: importance (L·H, layer-major), order (L·H head indices l·H + h, least important first),
 *   loss (L·H + 1, k = 0 … L·H heads off)
 * @typedef {{H: number, L: number, task: string, seeds: number, seedList: number[], steps: number, threshold: number,
 *   removable: number, risesAt: number, outcome: PruningOutcome, sentence: string, headsRemaining: number[],
 *   curves: number[][], meanCurve: number[], rise: Array<{mean: number, low: number, high: number}>,
 *   importance: number[][], order: number[][]}} PruningFinding
 *   what publishFinding('pruning', …) carries. L layers of H heads, trained on task; seeds: how many runs (seedList:
 *   their seeds, in the order of curves); steps: the budget they trained for; threshold: nats; removable: how many
 *   heads can surely go, least important first, before the loss rises by more than threshold (0 with one seed);
 *   risesAt: the first number of heads off whose rise is surely above it (−1: none); outcome: what the next head does
 *   (PruningOutcome); sentence: the core's answer in words. Per number of heads off k = 0 … L·H: headsRemaining[k] =
 *   L·H − k, curves[s][k] each seed's validation loss, meanCurve[k] their mean, rise[k] the mean rise over loss(0) and
 *   its 95% t-interval (±Infinity with one seed). importance[s] (L·H, layer-major) and order[s] (head indices l·H + h,
 *   least important first) per seed.
 */

/**
 * The runs pruned together with the chosen one: it, and every other finished run whose settings differ from its
 * only in the seed (the seeds of one H of the heads comparison), ordered by seed. A run without facts is left out.
 * @template {{status: string, facts: object|null, settings: Record<string, any>}} R  a Run (runs.js)
 * @param {R} chosen
 * @param {R[]} all
 * @returns {R[]}
 */
export function pruningPeers(chosen, all) {
  // of the same kind: every setting of the core's table but the seed
  const kind = constants().settingFields.map((f) => f.key).filter((k) => k !== 'seed');
  const same = (r) => kind.every((k) => r.settings?.[k] === chosen.settings?.[k]);
  const seeds = new Set([chosen.settings?.seed]);
  const peers = [chosen];
  for (const r of all) {
    if (r === chosen || !r.facts || r.status !== 'done' || !same(r) || seeds.has(r.settings.seed)) continue;
    seeds.add(r.settings.seed);
    peers.push(r);
  }
  return peers.filter((r) => r.facts).sort((a, b) => a.settings.seed - b.settings.seed);
}

/**
 * The finding published for the lesson (findings.js kind 'pruning').
 * @param {PruningCurve[]} curves (S) one per seed, in the order the verdict judged them
 * @param {PruningVerdict} verdict the core's, on these curves
 * @param {number} steps the budget the runs trained for
 * @param {string} task the task the runs trained on (the core's name: 'char', 'offsets', …)
 * @returns {PruningFinding}
 */
export function pruningFinding(curves, verdict, steps, task) {
  const n = verdict.L * verdict.H;
  return {
    H: verdict.H, L: verdict.L, task, seeds: curves.length, seedList: curves.map((c) => c.seed), steps,
    threshold: verdict.threshold, removable: verdict.removable, risesAt: verdict.risesAt, outcome: verdict.outcome,
    sentence: verdict.sentence,
    headsRemaining: Array.from({ length: n + 1 }, (_, k) => n - k),
    curves: curves.map((c) => [...c.loss]), meanCurve: [...verdict.meanLoss],
    rise: verdict.rise.map(({ mean, low, high }) => ({ mean, low, high })),
    importance: curves.map((c) => [...c.importance]), order: curves.map((c) => [...c.order]),
  };
}

/**
 * The mha-train command that measures the same over the same seeds: the run's preset, every setting that differs
 * from it, the seeds, --prune.
 * @param {Record<string, any>} settings a run's settings (constants().defaults' keys)
 * @param {number} seeds how many
 * @param {number} firstSeed
 * @returns {string}
 */
export function pruneCommand(settings, seeds, firstSeed) {
  const { presets, settingFields } = constants();
  const name = taskRow(settings.task).preset;
  const base = presets[name]?.settings ?? constants().defaults;
  const flags = [`--preset ${name}`];
  for (const f of settingFields) {
    if (f.key === 'seed' || !(f.key in settings) || settings[f.key] === base[f.key]) continue;
    const v = settings[f.key];
    flags.push(`--${f.flag} ${typeof v === 'boolean' ? (v ? 1 : 0) : v}`);
  }
  flags.push(`--seeds ${seeds}`, `--seed ${firstSeed}`, '--prune');
  return `mha-train ${flags.join(' ')}`;
}
