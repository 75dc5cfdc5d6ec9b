#include "profile.hpp"

#include <cstring>

#include "error.hpp"

namespace mha {

Profile*& profile_sink() {
    thread_local Profile* sink = nullptr;
    return sink;
}

void Profile::enter(const char* label) noexcept {
    const int parent = open_.empty() ? -1 : open_.back().first;
    std::vector<int>& siblings = parent < 0 ? roots_ : nodes_[parent].children;
    int id = -1;
    for (int s : siblings)
        if (nodes_[s].label == label || std::strcmp(nodes_[s].label, label) == 0) {
            id = s;
            break;
        }
    if (id < 0) {
        id = static_cast<int>(nodes_.size());
        nodes_.push_back(Node{label, parent, 0, 0, {}});
        // a reference into nodes_ may have moved with push_back: look the sibling list up again
        (parent < 0 ? roots_ : nodes_[parent].children).push_back(id);
    }
    open_.emplace_back(id, Clock::now());  // the clock last, so the bookkeeping above is not timed
}

void Profile::leave() noexcept {
    const Clock::time_point now = Clock::now();
    if (open_.empty()) return;  // ProfileLap pairs every leave with an enter
    Node& n = nodes_[open_.back().first];
    n.seconds += std::chrono::duration<double>(now - open_.back().second).count();
    ++n.calls;
    open_.pop_back();
}

std::vector<Profile::Row> Profile::rows() const {
    std::vector<Row> out;
    // depth first from each root; a node's exclusive time is its inclusive time minus its children's
    auto visit = [&](auto&& self, int id, const std::string& prefix) -> void {
        const Node& n = nodes_[id];
        const std::string path = prefix.empty() ? n.label : prefix + "/" + n.label;
        double children = 0;
        for (int c : n.children) children += nodes_[c].seconds;
        out.push_back(Row{path, n.seconds - children, n.calls});
        for (int c : n.children) self(self, c, path);
    };
    for (int r : roots_) visit(visit, r, "");
    return out;
}

double Profile::total_seconds() const {
    double s = 0;
    for (int r : roots_) s += nodes_[r].seconds;
    return s;
}

void Profile::clear() {
    MHA_CHECK(open_.empty(), "Profile::clear while a lap is open");
    nodes_.clear();
    roots_.clear();
}

}  // namespace mha
