// libFuzzer target: the settings path and a run's operations in any order, as the page's worker calls them
// (web/bindings.cpp RunHandle: init, train, evaluate, set_schedule, the probes, sample, snapshot, restore), with
// arbitrary arguments, including a run made while memory runs out.
//
// The input, read front to back (a short input leaves the rest at the tiny run's settings):
//   one byte per field of the settings table (run_settings.hpp MHA_RUN_SETTINGS, in its order): below 200 keeps the
//     tiny run's value; 200 and up sets the field, from its text as mha-train's flags and the page take it, to one
//     of a list of awkward texts ("0", "-1", "1e9", "nan", "", "abc", "2.5", "65", "1,3", a variant's name, …)
//   one byte: the task (text, induction, offsets; the tiny run's sizes)
//   one byte: when not 0, the make_run that fails to allocate at its k-th allocation (k = the byte)
//   then one byte per operation and its arguments, until the input ends
// Properties besides "no crash, no UB": every refusal is a sentence in the user's terms (not empty, no "std::");
// a make_run that runs out of memory leaves no run behind, and the next make_run of the same settings works; a run
// restored from its own full snapshot is back at that snapshot's step; a refused restore leaves the run where it
// was; the operations of one task refuse the others' with a sentence, never a crash.
// Inputs: tests/fuzz/corpus/run/. Run: scripts/fuzz.
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "alloc_hook.hpp"
#include "error.hpp"
#include "fuzz_check.hpp"
#include "run.hpp"
#include "run_settings.hpp"

using namespace mha;

namespace {

// the bytes of the input, read front to back; 0 once they run out
struct Reader {
    const std::uint8_t* data;
    std::size_t size, at = 0;
    bool more() const { return at < size; }
    unsigned byte() { return at < size ? data[at++] : 0u; }
};

const char* const kTexts[] = {"0", "-1", "1", "2", "3", "7", "8", "16", "64", "65", "1025", "1e9", "4294967296",
                              "nan", "inf", "", "abc", "2.5", "1e-300", "0.5", "1,3", "1,1", "0,2", "9,1,3",
                              "canonical", "no_wo", "tied_heads", "char", "induction", "offsets", "true", "false"};

// a refusal in the user's terms
void check_sentence(const std::string& err, const char* where) {
    FUZZ_CHECK(!err.empty(), std::string(where) + ": an empty refusal");
    FUZZ_CHECK(err.find("std::") == std::string::npos, std::string(where) + ": " + err);
}

// an operation the core refuses by throwing mha::Error (the bindings turn it into a sentence)
template <class F>
void refusable(const char* where, F&& op) {
    try {
        op();
    } catch (const Error& e) {
        check_sentence(e.what(), where);
    }
}

const char* const kText =
    "To be, or not to be, that is the question: whether 'tis nobler in the mind to suffer the slings and arrows of "
    "outrageous fortune, or to take arms against a sea of troubles, and by opposing end them. To die: to sleep; no "
    "more; and by a sleep to say we end the heart-ache and the thousand natural shocks that flesh is heir to.";

// the settings of the input: the tiny run's, with the fields the input sets
RunSettings read_settings(Reader& in) {
    RunSettings s = fuzz::tiny_settings();
    s.steps = 40;  // a schedule a few operations can reach the end of
    for (const SettingField& f : setting_fields()) {
        const unsigned b = in.byte();
        if (b < 200) continue;
        const std::string err = set_setting(f, kTexts[(b - 200) % (sizeof kTexts / sizeof *kTexts)], s);
        if (!err.empty()) check_sentence(err, "set_setting");
    }
    const unsigned task = in.byte() % 3;
    if (task == 1) s.task = "induction", s.vocab = 8, s.seg_min = 2, s.seg_max = 3, s.mlp = false;
    if (task == 2) s.task = "offsets", s.symbols = 2, s.offsets = "1,2", s.mlp = false;
    return s;
}

// small enough to run in milliseconds: larger settings are the settings path's business only
bool tiny(const RunSpec& spec) {
    const ModelConfig& m = spec.model;
    return m.d_model <= 16 && m.n_layers <= 2 && m.max_seq_len <= 16 && spec.train.batch <= 4 && spec.eval_batches <= 2;
}

void operate(Run& run, Reader& in) {
    std::vector<std::uint8_t> snap;
    int snap_step = -1;
    for (int ops = 0; in.more() && ops < 24; ++ops) {
        const unsigned op = in.byte() % 12, arg = in.byte();
        switch (op) {
            case 0: refusable("train", [&] { run.train(int(arg % 5) - 1); }); break;  // 0 and -1 are refused
            case 1: (void)run.evaluate(); break;
            case 2: {
                TrainConfig t = run.trainer().train_config();
                t.steps = int(arg % 64) - 8, t.warmup = int(arg % 7), t.lr = arg % 2 ? 1e-3 : -1.0;
                const std::string err = run.set_schedule(t);
                if (!err.empty()) check_sentence(err, "set_schedule");
                break;
            }
            case 3: (void)run.causality(); break;
            case 4: {
                double loss = 0;
                const std::string err = run.evaluate_as(static_cast<AttentionVariant>(arg % kNumVariants), loss);
                if (!err.empty()) check_sentence(err, "evaluate_as");
                break;
            }
            case 5: refusable("measure_induction", [&] { (void)run.measure_induction(); }); break;
            case 6:
                refusable("measure_induction_without", [&] {
                    (void)run.measure_induction_without({{int(arg % 4) - 1, int(arg / 4 % 6) - 1}});
                });
                break;
            case 7: refusable("probe_attention", [&] { (void)run.probe_attention(); }); break;
            case 8: (void)run.trace(); break;
            case 9:
                refusable("sample", [&] { (void)run.sample("To", int(arg % 40) - 4, (arg % 13) * 0.5, arg); });
                break;
            case 10:
                snap = run.snapshot(arg % 2 == 0);
                snap_step = arg % 2 == 0 ? run.steps_done() : -1;
                break;
            case 11: {
                if (snap.empty()) break;
                std::vector<std::uint8_t> bytes = snap;
                const bool damaged = arg >= 128;
                if (damaged) bytes[(arg * 7919u) % bytes.size()] ^= std::uint8_t(1u << (arg % 8));
                const int before = run.steps_done();
                const std::string err = run.restore(bytes.data(), bytes.size());
                if (!err.empty()) {
                    check_sentence(err, "restore");
                    FUZZ_CHECK(run.steps_done() == before, "a refused restore moved the run");
                } else if (!damaged && snap_step >= 0) {
                    FUZZ_CHECK(run.steps_done() == snap_step, "a run restored from its full snapshot is elsewhere");
                }
                break;
            }
        }
        FUZZ_CHECK(run.facts().steps_done == run.steps_done(), "the facts and the run disagree on its step");
    }
    (void)run.end_sample();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Reader in{data, size};
    const RunSettings settings = read_settings(in);
    const unsigned fail_at = in.byte();
    RunSpec spec;
    std::string err = to_run_spec(settings, spec);
    if (!err.empty()) {
        check_sentence(err, "to_run_spec");
        return 0;
    }
    if (!tiny(spec)) return 0;
    if (spec.task == Task::text) spec.text = kText;
    std::unique_ptr<Run> run;
    if (fail_at != 0) {
        // the fail_at-th allocation of make_run fails (the Catch2 suite's operator new, tests/alloc_hook.cpp, linked
        // in here too; armed around make_run only, so the fuzzer's own allocations are outside the window)
        mha::test::FailAllocation fail{long(fail_at)};  // braces: with parentheses this declared a function
        try {
            err = make_run(spec, run);
            // fewer allocations than fail_at: it was made whole, or refused for another reason
            if (!err.empty()) check_sentence(err, "make_run");
            FUZZ_CHECK(err.empty() == (run != nullptr), "make_run's answer and its run disagree");
        } catch (const std::bad_alloc&) {
            FUZZ_CHECK(!run, "a run half built when memory ran out");
        }
    }
    run.reset();
    err = make_run(spec, run);  // the same settings, memory to spare
    if (!err.empty()) {
        check_sentence(err, "make_run");
        FUZZ_CHECK(!run, "a refused make_run left a run");
        return 0;
    }
    FUZZ_CHECK(run != nullptr, "make_run said yes without a run");
    operate(*run, in);
    return 0;
}
