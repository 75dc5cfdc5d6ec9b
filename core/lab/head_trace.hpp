// What every head does on one fixed sequence, measured the same way at every evaluation of a run, so that the
// numbers of one head over training form a line: heads that start alike and end different.
//
//   HeadTrace t = head_trace(model, ids, tokens);   // one forward pass of ids (T), 1 <= T <= T_max
//   t.previous[l * H + h], t.profile[(l * H + h) * t.K + k]
//
// The scores are those of metrics.hpp on the head's attention A (T,T); the model is left as it was (its last
// activations are those of this sequence).
#pragma once
#include <string>
#include <vector>

#include "model.hpp"

namespace mha {

struct HeadTrace {
    int L = 0, H = 0, T = 0;
    int K = 0;                         // offsets in each profile: profile_offsets(T)
    std::vector<int> ids;              // (T) the probe sequence
    std::vector<std::string> tokens;   // (T) its symbols as text (a character, or a number where ids are not text)
    std::vector<double> previous;      // (L*H) previous-token score
    std::vector<double> first;         // (L*H) first-token score
    std::vector<double> entropy;       // (L*H) mean row entropy, nats
    std::vector<double> max_entropy;   // (L*H) its uniform maximum, uniform_row_entropy(T) (the same for every head)
    std::vector<double> distance;      // (L*H) mean attention distance, positions
    std::vector<double> profile;       // (L*H, K) attention by offset 0..K-1
};

// ids (T) in [0,V), 1 <= T <= max_seq_len; tokens (T) their text. Heads in layer-major order (l * H + h).
HeadTrace head_trace(Gpt<float>& model, const std::vector<int>& ids, std::vector<std::string> tokens);

}  // namespace mha
