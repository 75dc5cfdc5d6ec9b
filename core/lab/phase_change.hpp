// The induction phase change (Olsson et al. 2022, "In-context learning and induction heads"): does the loss on the
// repeated copy drop when an induction head forms? From one run's evaluation points, two steps and the lag between
// them; over seeds, the lags' mean and 95% t-interval and whether the drop comes before, with or after the crossing.
//
//   crossing   the first evaluation at which the best last-layer induction score is at or above the threshold
//              (LabelThresholds::induction: what the page calls "crossed" and scripts/induction_budget counts)
//   drop       the first evaluation from which loss_repeat stays at or below kDropFraction · loss_first to the end
//              of the series (the repeat then costs a quarter of what an unpredictable copy costs)
//   lag        drop − crossing, in steps; its resolution is the evaluation interval (both steps are evaluations)
//
// Why this drop and not another (the measured curves: docs/experiments.md, "The induction phase change"):
//   - the midpoint between loss_repeat at the start and at the end sits on the plateau the model reaches long before
//     any head forms (it learns early to guess how far back the earlier copy is, as the 1-layer control does), so
//     noise crosses it far too early, at a step that says nothing about the heads;
//   - "below loss_first by a margin" in nats fires on that same early guess, which already saves a few nats;
//   - a fraction of loss_first is the same mark at any V and any run length, and a quarter lies below what one layer
//     ever reaches and above where the 2-layer runs end: it sits in the steep part of the fall (it is also what
//     tests/test_induction.cpp and scripts/induction_budget ask of the repeat);
//   - "stays at or below" rather than "first at or below": near the mark the measurement moves up and down from one
//     evaluation to the next, and a fall that the next measurement undoes is noise, not the drop. A live run's drop
//     is provisional until the run ends.
// The lag depends on the two marks (both curves move over the same stretch of training): the notebook has it under
// other marks too (scripts/induction_phase_definitions).
//
//   PhaseSeries s{{0, 50, 100, 150}, {0.1, 0.2, 0.5, 0.7}, {4.2, 4.2, 4.2, 4.2}, {4.1, 2.2, 1.5, 0.5}};
//   PhaseChange p;
//   find_phase_change(s, 0.4, 50, p);  // p.cross_step 100, p.drop_step 150, p.lag 50
#pragma once
#include <string>
#include <vector>

namespace mha {

// the drop's mark: loss_repeat at or below this fraction of loss_first (see above)
constexpr double kDropFraction = 0.25;

// one run's evaluation points (n), steps increasing; score: the best last-layer induction score (0..1); the copy
// losses in nats (InductionMeasurement's loss_first, loss_repeat)
struct PhaseSeries {
    std::vector<double> step, score, loss_first, loss_repeat;
};

struct PhaseChange {
    double threshold = 0;  // the induction score that counts as a head
    int eval_every = 0;    // steps between evaluations: the lag's resolution
    int last_step = 0;     // the series' last evaluation
    int cross_step = -1;   // the crossing, or -1: the score never reached the threshold
    int drop_step = -1;    // the drop, or -1: the repeat's loss never stayed under the mark
    int lag = 0;           // drop_step − cross_step when both happened, else 0
    bool happened() const { return cross_step >= 0 && drop_step >= 0; }
    std::string sentence;  // "The induction score reached 0.4 at step A; the repeat loss dropped at step B: …"
};

// "" and out, or a sentence (empty or ragged series, steps not increasing whole numbers, a value not finite, a
// threshold outside (0, 1], eval_every < 1)
std::string find_phase_change(const PhaseSeries& series, double threshold, int eval_every, PhaseChange& out);

// ---------------------------------------------------------------- over seeds
// where the drop falls against the crossing, from the 95% t-interval of the mean lag (student_t.hpp):
//   with       the interval lies within ± one evaluation interval (the resolution cannot separate them)
//   after      otherwise, the interval lies above 0
//   before     otherwise, the interval lies below 0
//   undecided  none of these (the interval is wide, or fewer than two seeds had both steps)
enum class PhaseOrder { with, after, before, undecided };
const char* phase_order_name(PhaseOrder o);  // "with", "after", "before", "undecided": the names the page reads

struct PhaseOverSeeds {
    int seeds = 0;                // runs given
    int happened = 0;             // runs with both a crossing and a drop: their lags are judged
    int never_crossed = 0;        // runs whose score never reached the threshold
    int never_dropped = 0;        // runs that crossed but whose loss never dropped
    int eval_every = 0;           // the runs' evaluation interval (all the same)
    std::vector<int> lags;        // (happened) in the runs' order
    double mean = 0, min = 0, max = 0;
    double low = 0, high = 0;     // the 95% t-interval of the mean lag (infinite with fewer than two lags)
    PhaseOrder order = PhaseOrder::undecided;
    std::string sentence;         // the finding in the user's terms
};

// runs (S >= 1): each seed's find_phase_change, all with the same eval_every and threshold. "" and out, or a sentence.
std::string phase_over_seeds(const std::vector<PhaseChange>& runs, PhaseOverSeeds& out);

}  // namespace mha
