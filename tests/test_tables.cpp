// The tables that everything else reads: the settings table (run_settings.hpp MHA_RUN_SETTINGS), the task table
// (run.hpp TaskRow, task_table.cpp) and the page's presets. Each row is complete and well formed, every default and
// every preset is a run the core accepts, and a task's settings survive a checkpoint.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <set>
#include <string>

#include "run.hpp"
#include "run_settings.hpp"

using namespace mha;

namespace {
// a value of field f that is not its default (whole: lo or hi; real: 0.5 × the default; a name: another word)
void change(const SettingField& f, RunSettings& s) {
    if (f.text) s.*f.text += "_other";
    if (f.boolean) s.*f.boolean = !(s.*f.boolean);
    if (f.number) s.*f.number = f.kind == FieldKind::whole ? (s.*f.number == f.lo ? f.hi : f.lo) : 0.5 * s.*f.number;
}
bool same_field(const SettingField& f, const RunSettings& a, const RunSettings& b) {
    return f.value_text(a) == f.value_text(b);
}
}  // namespace

TEST_CASE("the settings table: one row per field, each with one member, unique names, keys and flags", "[tables]") {
    std::set<std::string> names, keys, flags;
    for (const SettingField& f : setting_fields()) {
        INFO(f.name);
        CHECK(int(f.number != nullptr) + int(f.boolean != nullptr) + int(f.text != nullptr) == 1);
        CHECK(names.insert(f.name).second);
        CHECK(keys.insert(f.js).second);
        CHECK(flags.insert(f.flag).second);
        CHECK((f.kind == FieldKind::name) == (f.text != nullptr));
        CHECK((f.kind == FieldKind::flag) == (f.boolean != nullptr));
        if (f.text) CHECK(f.check != nullptr);
        if (f.kind == FieldKind::whole) CHECK(f.lo <= f.hi);
        // the task column names a task of the task table, or every task
        CHECK((f.task[0] == 0 || find_task(f.task) != nullptr));
        CHECK(std::string(f.label).size() > 0);
        CHECK(std::string(f.help).size() > 0);
        CHECK(find_setting(f.name) == &f);
    }
    // every member of the struct has its row: the struct is made from the same rows
    CHECK(names.size() == setting_fields().size());
    CHECK(find_setting("no_such_setting") == nullptr);
}

TEST_CASE("the defaults are a run the core accepts, and each whole field's range is its sentence", "[tables]") {
    const RunSettings d;
    RunSpec spec;
    REQUIRE(to_run_spec(d, spec).empty());
    CHECK(validate_setup(spec).empty());
    CHECK(spec.eval_batches == int(d.eval_batches));
    for (const SettingField& f : setting_fields()) {
        if (f.kind != FieldKind::whole) continue;
        INFO(f.name);
        for (double bad : {f.lo - 1, f.hi + 1, f.lo + 0.5, double(NAN)}) {
            RunSettings s;
            if (f.task[0]) s.task = f.task;  // a task's field is read only for its task
            s.*f.number = bad;
            const std::string err = to_run_spec(s, spec);
            CHECK(err.rfind(f.label, 0) == 0);
            CHECK(err.find("must be a whole number from") != std::string::npos);
        }
    }
    // the other tasks' fields are not read: nonsense there is not this run's mistake
    RunSettings text;
    text.symbols = 2.5, text.offsets = "x", text.vocab = -1;
    CHECK(to_run_spec(text, spec).empty());
}

TEST_CASE("every field's value reads back from its text: the form mha-train's flags and the JSDoc print", "[tables]") {
    for (const SettingField& f : setting_fields()) {
        INFO(f.name);
        RunSettings s, back;
        change(f, s);
        CHECK_FALSE(same_field(f, s, RunSettings{}));
        std::string err = set_setting(f, f.value_text(s), back);
        CHECK(err.empty());
        CHECK(same_field(f, s, back));
        if (f.number) CHECK(s.*f.number == back.*f.number);
    }
    RunSettings s;
    CHECK(set_setting(*find_setting("d_model"), "sixty", s) == "--d-model must be a number, not 'sixty'");
    CHECK(set_setting(*find_setting("mlp"), "maybe", s) == "--mlp must be true or false (1 or 0), not 'maybe'");
    CHECK(set_setting(*find_setting("mlp"), "0", s).empty());
    CHECK_FALSE(s.mlp);
}

TEST_CASE("mha-train's flags: none given is RunSettings{}; a preset, then the flags given over it", "[tables]") {
    RunSettings s;
    REQUIRE(settings_from_flags(nullptr, {}, s).empty());
    for (const SettingField& f : setting_fields()) CHECK(same_field(f, s, RunSettings{}));
    const Preset& offsets = *find_preset("offsets");
    REQUIRE(settings_from_flags(&offsets, {{"heads", "1"}, {"seed", "7"}}, s).empty());
    for (const SettingField& f : setting_fields()) {
        INFO(f.name);
        if (f.flag == std::string("heads")) CHECK(s.n_heads == 1);
        else if (f.flag == std::string("seed")) CHECK(s.seed == 7);
        else CHECK(same_field(f, s, offsets.settings));
    }
    CHECK(settings_from_flags(nullptr, {{"no-such-flag", "1"}}, s) == "--no-such-flag is not a setting");
}

TEST_CASE("the task table: unique names, a row per task, complete hooks, a preset of its own task", "[tables]") {
    std::set<std::string> names;
    for (const TaskRow& k : tasks()) {
        INFO(k.name);
        CHECK(names.insert(k.name).second);
        CHECK(&task_row(k.task) == &k);
        Task back = Task::text;
        CHECK(parse_task(k.name, back));
        CHECK(back == k.task);
        CHECK(task_name(k.task) == std::string(k.name));
        for (const char* words : {k.label, k.description, k.vocabulary, k.baseline, k.notes})
            CHECK(std::string(words).size() > 0);
        CHECK((k.read && k.write && k.validate && k.vocab));
        // a task without a text samples its own data and knows its baseline
        if (!k.text) CHECK((k.sampler != nullptr && k.baseline_loss != nullptr));
        const Preset* p = find_preset(k.preset);
        REQUIRE(p != nullptr);
        CHECK(p->task == k.name);
        CHECK(p->settings.task == k.name);
    }
    Task t = Task::text;
    CHECK_FALSE(parse_task("chess", t));
    RunSettings s;
    s.task = "chess";
    RunSpec spec;
    // the sentence names every task of the table, quoted, in its order, "or" before the last, and the wrong name
    // ("the task must be 'char', 'induction' or 'offsets', not 'chess'." for today's table)
    const std::string err = to_run_spec(s, spec);
    const std::string head = "the task must be ", tail = ", not 'chess'.";
    REQUIRE(err.size() > head.size() + tail.size());
    CHECK(err.compare(0, head.size(), head) == 0);
    CHECK(err.compare(err.size() - tail.size(), tail.size(), tail) == 0);
    std::size_t at = head.size();
    for (std::size_t i = 0; i < tasks().size(); ++i) {
        const std::string quoted = "'" + std::string(tasks()[i].name) + "'";
        const std::size_t found = err.find(quoted, at);
        REQUIRE(found != std::string::npos);
        if (i + 1 == tasks().size() && i > 0) CHECK(err.compare(found - 4, 4, " or ") == 0);
        at = found + quoted.size();
    }
    CHECK(at == err.size() - tail.size());
}

TEST_CASE("every preset is a run the core accepts, of its task, and builds", "[tables]") {
    std::set<std::string> names;
    for (const Preset& p : presets()) {
        INFO(p.name);
        CHECK(names.insert(p.name).second);
        CHECK(find_preset(p.name) == &p);
        RunSpec spec;
        REQUIRE(to_run_spec(p.settings, spec).empty());
        CHECK(validate_setup(spec).empty());
        CHECK(task_name(spec.task) == p.task);
        if (!task_row(spec.task).text) {
            std::unique_ptr<Run> run;
            REQUIRE(make_run(spec, run).empty());
            CHECK(run->facts().baseline_loss > 0);
        }
    }
    // the presets are the settings the rest of the core ships, not copies of them
    const RunSettings o = offsets_settings(64, 4, 1);
    for (const SettingField& f : setting_fields()) CHECK(same_field(f, find_preset("offsets")->settings, o));
    CHECK(find_preset("offsets")->eval_every == kOffsetsSetting.eval_every);
    CHECK(find_preset("offsets")->threshold == kOffsetsSetting.threshold);
    for (const InductionSetting& k : kInductionSettings) {
        const Preset& p = *find_preset(std::string("induction-") + k.name);
        RunSpec from_preset;
        REQUIRE(to_run_spec(p.settings, from_preset).empty());
        const RunSpec lab = induction_lab_spec(k, 2, 1);
        CHECK(same_model(from_preset.model, [&] {
            ModelConfig m = lab.model;
            m.vocab_size = from_preset.model.vocab_size;
            return m;
        }()));
        CHECK(from_preset.train.steps == lab.train.steps);
        CHECK(from_preset.train.lr == lab.train.lr);
        CHECK(from_preset.train.min_lr == lab.train.min_lr);
        CHECK(from_preset.train.warmup == lab.train.warmup);
        CHECK(from_preset.train.adamw.weight_decay == lab.train.adamw.weight_decay);
        CHECK(from_preset.induction.seg_max == lab.induction.seg_max);
        CHECK(from_preset.induction.vocab == lab.induction.vocab);
    }
    CHECK(find_preset("no-such-preset") == nullptr);
}

TEST_CASE("a task's own settings go into a checkpoint and come back, and into the run's facts", "[tables]") {
    for (const TaskRow& k : tasks()) {
        if (k.text) continue;  // the text's run needs a text; test_run.cpp covers it
        INFO(k.name);
        RunSettings s = find_preset(k.preset)->settings;
        s.d_model = 16, s.n_heads = 2, s.batch = 2, s.steps = 2, s.warmup = 0, s.eval_batches = 1;
        RunSpec spec;
        REQUIRE(to_run_spec(s, spec).empty());
        std::unique_ptr<Run> run;
        REQUIRE(make_run(spec, run).empty());
        RunSettings back;
        int step = -1;
        REQUIRE(settings_of_checkpoint(run->snapshot(false), back, step).empty());
        const RunSettings facts = settings_of(run->facts());
        for (const SettingField& f : setting_fields()) {
            if (!f.for_task(k.name) || f.name == std::string("eval_batches")) continue;
            INFO(f.name);
            CHECK(same_field(f, facts, s));
            if (f.task[0] || f.name == std::string("task")) CHECK(same_field(f, back, s));
        }
    }
}

TEST_CASE("the core's structs start where the settings table does", "[tables]") {
    // a RunSpec built from RunSettings{} is the structs' own defaults: one set of defaults, whichever way a run is made
    RunSpec spec;
    REQUIRE(to_run_spec(RunSettings{}, spec).empty());
    CHECK(same_model(spec.model, ModelConfig{}));
    const TrainConfig t;
    CHECK((spec.train.batch == t.batch && spec.train.steps == t.steps && spec.train.warmup == t.warmup));
    CHECK((spec.train.lr == t.lr && spec.train.min_lr == t.min_lr && spec.train.clip == t.clip));
    CHECK((spec.train.adamw.weight_decay == t.adamw.weight_decay && spec.train.seed == t.seed));
    CHECK(spec.eval_batches == RunSpec{}.eval_batches);
    RunSettings offsets;
    offsets.task = "offsets";
    REQUIRE(to_run_spec(offsets, spec).empty());
    CHECK(spec.offsets.symbols == OffsetTaskConfig{}.symbols);
    CHECK(spec.offsets.offsets == OffsetTaskConfig{}.offsets);
    // (InductionTaskConfig{} keeps its own segments, 8..15, for the tests written against it; the settings' 3..7 are
    // the page's short setting)
    RunSettings induction;
    induction.task = "induction";
    REQUIRE(to_run_spec(induction, spec).empty());
    CHECK(spec.induction.vocab == InductionTaskConfig{}.vocab);
}
