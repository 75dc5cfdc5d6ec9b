// "Prune the heads", a section of the Look-inside panel: asks the chosen run and every finished run of its kind and H
// (its other seeds) for their pruning curves (each run's worker, Run.pruneHeads), asks the core for the verdict over
// the seeds (engine.js pruningOverSeeds), draws them (PruningView) and publishes the finding ('pruning').
import { constants, pruningOverSeeds } from '../engine.js';
import { publishFinding } from '../findings.js';
import { pruneCommand, pruningFinding, pruningPeers } from '../pruning.js';
import { inTurn } from '../runs.js';
import { buttonById, showAlert } from '../views/dom.js';
import { PruningView } from '../views/pruning_view.js';

const $ = (id) => document.getElementById(id);

/**
 * @param {{readable: (msg: string) => string, shows: (panel: string) => boolean}} app
 * @param {{current: () => any, allRuns: () => any[]}} runs the chosen run, and every run there is to look at
 * @returns {{onRunsChanged: () => void, onChosen: () => void, onReset: () => void}}
 */
export function setupPruning(app, runs) {
  const ui = { button: buttonById('i-prune'), status: $('i-prune-status'), error: $('i-prune-error'), command: $('i-prune-command') };
  const view = new PruningView({ chart: $('i-prune-chart'), verdict: $('i-prune-verdict'), curveTable: $('i-prune-curves'),
    importanceTable: $('i-prune-importance') });
  let busy = false;
  let generation = 0;  // a reset while pruning makes the answer stale

  // what the button would prune now, said before it is pressed
  function describe() {
    const run = runs.current();
    const peers = run?.facts ? pruningPeers(run, runs.allRuns()) : [];
    ui.button.disabled = busy || peers.length === 0 || run.status === 'failed' || run.status === 'restarting';
    if (busy) return;
    if (!peers.length) {
      ui.status.textContent = '';
      ui.command.textContent = '';
      return;
    }
    const seeds = peers.map((r) => r.settings.seed);
    ui.status.textContent = peers.length > 1
      ? `${peers.length} runs of this kind: seeds ${seeds.join(', ')}.`
      // (no panel named: Look inside may be embedded alone, where a loaded file is the only run)
      : `One run of this kind: its curve, but no verdict over seeds (train 3 or more seeds${app.shows('heads') ? ' in panel 4' : ''} for one).`;
    ui.command.textContent = pruneCommand(run.settings, peers.length, seeds[0]);
  }

  async function prune() {
    const run = runs.current();
    if (!run?.facts || busy) return;
    const peers = pruningPeers(run, runs.allRuns());
    const mine = ++generation;
    busy = true;
    ui.button.disabled = true;
    ui.status.textContent = `Pruning ${peers.length} run${peers.length === 1 ? '' : 's'}…`;
    showAlert(ui.error, '');
    // a sleeping run starts a worker again to answer (Run.sleep), about 50 MB each: the runs are asked in turn, and the
    // other seeds' runs woken for this go back to sleep once answered, so that a few workers live at once, not 12
    const answers = await inTurn(peers, async (r) => {
      const asleep = !r.awake;
      const answer = await r.pruneHeads();
      if (asleep && r !== run) r.sleep();
      return answer;
    });
    busy = false;
    if (mine !== generation) return;
    const failed = answers.find((a) => a.ok === false);
    if (failed && failed.ok === false) {
      showAlert(ui.error, app.readable(failed.error));
      describe();
      return;
    }
    const curves = answers.map((a, i) => ({ seed: peers[i].settings.seed, label: `seed ${peers[i].settings.seed}`,
      step: a.step, L: a.L, H: a.H, baseLoss: a.baseLoss, importance: [...a.importance], order: [...a.order], loss: [...a.loss] }));
    const verdict = pruningOverSeeds(curves[0].L, curves[0].H, curves.map((c) => c.loss), constants().pruningThreshold);
    if (verdict.ok === false) {
      showAlert(ui.error, app.readable(verdict.error));
      describe();
      return;
    }
    view.update({ curves, verdict });
    publishFinding('pruning', pruningFinding(curves, verdict, run.settings.steps, run.settings.task));
    describe();
    ui.status.textContent = `Pruned ${curves.length} run${curves.length === 1 ? '' : 's'} (seeds ` +
      `${curves.map((c) => c.seed).join(', ')}) at step ${[...new Set(curves.map((c) => c.step))].join(', ')}.`;
    document.documentElement.dataset.pruning = String((Number(document.documentElement.dataset.pruning) || 0) + 1);
  }

  ui.button.addEventListener('click', prune);
  view.clear();

  return {
    /** runs were added, finished or chosen: what the button would prune */
    onRunsChanged: describe,
    /** another run was chosen: the curves shown were another model's */
    onChosen() {
      ++generation;
      busy = false;
      view.clear();
      showAlert(ui.error, '');
      describe();
    },
    onReset() {
      ++generation;
      busy = false;
      view.clear();
      showAlert(ui.error, '');
      publishFinding('pruning', null);
      describe();
    },
  };
}
