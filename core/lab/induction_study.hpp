// Measuring induction heads (Olsson et al. 2022) in a model trained on the repeated-random-segment task: the
// per-head previous-token score of every layer and induction score of every layer, and the loss on the first copy
// (unpredictable: about ln(V-1)) against the loss on the repeated copy (predictable by copying from the first one,
// which is what an induction head does).
//
// The probes are sequences of the task itself (fill_shifted_batch): a segment of every length the model was trained
// on, at a random offset, in random filler. Not only [BOS, r, r] with the longest segment: that probe fills the
// short context from its first position, so the position alone says how far back the earlier copy is, and a 1-layer
// model that has learned to look a fixed distance back scores as if it could copy, while the 2-layer models score
// alike on both (the figures: docs/experiments.md, "Induction heads").
#pragma once
#include <cstdint>
#include <vector>

#include "induction_task.hpp"
#include "model.hpp"

namespace mha {

struct InductionMeasurement {
    int layers = 0, heads = 0;
    std::vector<double> previous;   // (L,H) previous-token score, averaged over the probes
    std::vector<double> induction;  // (L,H) induction score, averaged over the probes
    double loss_first = 0;          // mean loss predicting tokens inside the first copy
    double loss_repeat = 0;         // mean loss predicting tokens inside the repeated copy
    double best_induction = 0;      // max over the heads of the last layer
    int best_head = 0;              // that head
};

// n_probes sequences of length T of the task (segments of max(2, seg_min)..seg_max: a segment of 1 has no
// induction target), drawn from Rng(seed). Runs the model forward only. Throws mha::Error on a task that does not
// fit T or the model.
InductionMeasurement measure_induction(Gpt<float>& model, const InductionTaskConfig& task, int T, int n_probes,
                                       std::uint64_t seed);

}  // namespace mha
