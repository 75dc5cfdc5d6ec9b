// Measuring induction heads (Olsson et al. 2022) in a model trained on the repeated-random-segment task:
// on probes [BOS, r_1..r_L, r_1..r_L], the per-head previous-token score of every layer and induction score of
// every layer, and the loss on the first copy (unpredictable: about ln(V-1)) against the loss on the repeated copy
// (predictable by copying from the first one, which is what an induction head does).
#pragma once
#include <cstdint>
#include <vector>

#include "model.hpp"

namespace mha {

struct InductionMeasurement {
    int layers = 0, heads = 0, segment = 0;
    std::vector<double> previous;   // (L,H) previous-token score, averaged over the probes
    std::vector<double> induction;  // (L,H) induction score, averaged over the probes
    double loss_first = 0;          // mean loss predicting tokens inside the first copy
    double loss_repeat = 0;         // mean loss predicting tokens inside the repeated copy
    double best_induction = 0;      // max over the heads of the last layer
    int best_head = 0;              // that head
};

// n_probes probes of segment length L (2L+1 <= the model's context), drawn from seed; V is the task's vocabulary
// (token 0 = BOS). Runs the model forward only.
InductionMeasurement measure_induction(Gpt<float>& model, int L, int n_probes, std::uint64_t seed);

}  // namespace mha
