#include "inspector.hpp"

#include <algorithm>

#include "checkpoint.hpp"
#include "error.hpp"
#include "train.hpp"
#include "utf8.hpp"

namespace mha {

Inspector::Inspector(const Run& run)
    : model_(std::make_unique<Gpt<float>>(run.model().config())),
      tok_(run.tokenizer()),
      eval_(run.eval_batches()),
      task_(run.task()),
      probe_(run.probe_sequence()) {
    follow(run);
}

std::string Inspector::follow(const Run& run) {
    const Gpt<float>& src = run.model();
    if (!same_model(src.config(), model_->config())) return "the inspector follows another model than this run's.";
    std::copy(src.params(), src.params() + src.num_params(), model_->params());
    return "";
}

std::string Inspector::load(const std::uint8_t* data, std::size_t size) {
    Checkpoint c;
    std::string err = load_checkpoint(data, size, c);
    if (!err.empty()) return err;
    if (!same_model(c.config, model_->config()))
        return "this snapshot is of another model (" + config_to_json(c.config) + "), not of this run's (" +
               config_to_json(model_->config()) + ").";
    if (!c.vocab.empty() && c.vocab != tok_.to_string()) return "this snapshot has another vocabulary than this run.";
    std::copy(c.params.begin(), c.params.end(), model_->params());
    return "";
}

Inspection Inspector::look(const std::string& text, const HeadEdits& edits, bool with_loss) {
    std::vector<int> ids;
    std::vector<std::string> tokens;
    int unknown = 0;
    bool truncated = false;
    if (!task_row(task_).text) {
        // no text to type: the run's own probe sequence, the one its trace measures on
        ids = probe_.ids;
        tokens = probe_.tokens;
    } else {
        const std::vector<char32_t> cps = utf8_decode(text);
        if (cps.empty()) throw Error("Type at least one character to see the attention maps.");
        // the first T characters, each read as its symbol (unknown ones as the unknown symbol)
        const int T = std::min<int>(static_cast<int>(cps.size()), model_->config().max_seq_len);
        ids.resize(T);
        tokens.resize(T);
        for (int t = 0; t < T; ++t) {
            ids[t] = tok_.id_of(cps[t]);
            unknown += ids[t] == CharTokenizer::unknown_id;
            utf8_append(tokens[t], cps[t]);
        }
        truncated = static_cast<int>(cps.size()) > T;
    }
    Inspection r;
    r.with_loss = with_loss;
    if (with_loss) r.val_base = evaluate_loss(*model_, eval_);
    HeadEdit edit(*model_, edits.ablate, edits.tie);
    if (with_loss) r.val_modified = edit.changes_model() ? evaluate_loss(*model_, eval_) : r.val_base;
    r.maps = attention_maps(*model_, ids, std::move(tokens));
    r.maps.truncated = truncated;
    r.maps.unknown = unknown;
    r.scores = head_scores(*model_, r.maps);
    return r;
}

}  // namespace mha
