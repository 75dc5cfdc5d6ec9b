// Does any output position depend on a later input token? The check every "Break it" variant carries.
// Method: run the model on a sequence, then change the token at each position s in turn and see which output
// positions t change. A causal model changes only t >= s; a pair (t, s) with s > t that changes is a leak.
// Position-wise computations are bit-exact here (no output mixes rows of other positions in its arithmetic),
// so "changed" is a tolerance well below any real dependence, and the result is the exact dependency pattern.
#pragma once
#include <utility>
#include <vector>

#include "model.hpp"

namespace mha {

struct CausalityReport {
    int T = 0;
    std::vector<unsigned char> depends;       // (T,T): depends[t*T + s] = 1 if output t changes with input s
    std::vector<std::pair<int, int>> leaks;   // (t, s) with s > t and depends: output t reads the future token s
    bool causal() const { return leaks.empty(); }
};

// idx (T) token ids; the model's own weights (trained or not). Runs T+1 forward passes of one sequence.
template <class S>
CausalityReport check_causality(Gpt<S>& model, const std::vector<int>& idx, double tolerance = 1e-7);

}  // namespace mha
