// Looking inside a trained model, as the page's "Look inside" panel does while a run trains or after it: the
// model's config and weights, its vocabulary, and a copy of the run's fixed validation batches (for the loss with
// and without a head). No dataset and no re-tokenising of the training text; every look leaves the model as it was.
//
//   Inspector in(run);                                   // config, vocabulary, validation batches, weights
//   in.follow(run);                                      // later: the run's weights now
//   Inspection i = in.look("In the beginning", {{{0, 2}}, false}, true);   // head 2 of layer 0 off
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "probes.hpp"
#include "run.hpp"

namespace mha {

// what a look changes, for that look only
struct HeadEdits {
    std::vector<std::pair<int, int>> ablate;  // (layer, head) pairs switched off
    bool tie = false;                         // "force all heads to the same weights" (those of head 0)
};

struct Inspection {
    AttentionMaps maps;                  // (L,H,T,T) on the text, with the edits
    HeadScoreTable scores;               // of those maps (and the induction probe), with the edits
    bool with_loss = false;
    double val_base = 0, val_modified = 0;  // validation loss without and with the edits (with_loss)
};

class Inspector {
public:
    explicit Inspector(const Run& run);
    // the run's weights now (it must be of the same model). "" or a sentence.
    std::string follow(const Run& run);
    // the weights of a snapshot of the same model (scrubbing through training). "" or a sentence.
    std::string load(const std::uint8_t* data, std::size_t size);
    // the attention maps and head scores on the first T characters of text, with edits applied for this look
    // only; on a task without text (induction, offsets) text is ignored and the run's probe sequence is looked at.
    // Throws mha::Error for an empty text on the text task, or a head that does not exist.
    Inspection look(const std::string& text, const HeadEdits& edits, bool with_loss);
    const Gpt<float>& model() const { return *model_; }

private:
    std::unique_ptr<Gpt<float>> model_;
    CharTokenizer tok_;
    EvalBatches eval_;
    Task task_;
    ProbeSequence probe_;  // tasks without text: what a look shows
};

}  // namespace mha
