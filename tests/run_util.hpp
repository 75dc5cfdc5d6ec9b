// Building a Run in a test: make_run, and a failed test (with the sentence) when it does not build.
#pragma once
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "run.hpp"

namespace mha::test {

inline std::unique_ptr<Run> built(const RunSpec& spec) {
    std::unique_ptr<Run> r;
    const std::string err = make_run(spec, r);
    INFO(err);
    REQUIRE(err.empty());
    return r;
}

}  // namespace mha::test
