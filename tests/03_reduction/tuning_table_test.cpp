// CPU tests of the adaptive stages' per-architecture table (cudatutorial/tuning.hpp): the
// fallback chain (exact compute capability, then the same major, then the generic default), the
// entries' provenance, and the per-device cache of choices both chapters' tuners use. No GPU.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cudatutorial/tuning.hpp"

namespace {

namespace tuning = cudatutorial::tuning;
using tuning::ArchitectureTuning;
using tuning::TuningMatch;

ArchitectureTuning entry(int major, int minor, double latency_ns) {
    ArchitectureTuning e;
    e.cc_major = major;
    e.cc_minor = minor;
    e.dram_latency_ns = latency_ns;
    return e;
}

}  // namespace

TEST(TuningTable, FallsBackFromExactToSameMajorToDefault) {
    // The default first and the whole-major entry before the exact one: order does not matter.
    const std::vector<ArchitectureTuning> table = {entry(0, -1, 100), entry(8, -1, 200),
                                                   entry(8, 6, 300), entry(9, 0, 400)};
    const auto expect = [&](int major, int minor, TuningMatch match, double latency) {
        const tuning::TuningLookup found = tuning::find_tuning(table, major, minor);
        ASSERT_NE(found.entry, nullptr);
        EXPECT_EQ(found.match, match) << major << "." << minor;
        EXPECT_EQ(found.entry->dram_latency_ns, latency) << major << "." << minor;
    };
    expect(8, 6, TuningMatch::kExact, 300);
    expect(9, 0, TuningMatch::kExact, 400);
    expect(8, 0, TuningMatch::kSameMajor, 200);
    expect(8, 9, TuningMatch::kSameMajor, 200);
    expect(9, 5, TuningMatch::kDefault, 100);  // 9.0 is exact only: no entry for every 9.x
    expect(7, 5, TuningMatch::kDefault, 100);
    expect(12, 0, TuningMatch::kDefault, 100);
    EXPECT_STREQ(tuning::match_name(TuningMatch::kSameMajor), "same major");
}

TEST(TuningTable, ATableWithoutADefaultIsAnError) {
    const std::vector<ArchitectureTuning> table = {entry(9, 0, 345)};
    EXPECT_EQ(tuning::find_tuning(table, 9, 0).match, TuningMatch::kExact);
    EXPECT_THROW(tuning::find_tuning(table, 8, 0), std::logic_error);
}

TEST(TuningTable, HopperIsMeasuredEverythingElseAnEstimate) {
    // H100 and H200 are both compute capability 9.0: the measured entry.
    const tuning::TuningLookup hopper = tuning::find_tuning(tuning::architecture_table(), 9, 0);
    EXPECT_EQ(hopper.match, TuningMatch::kExact);
    EXPECT_FALSE(hopper.entry->estimate);
    EXPECT_EQ(hopper.entry->dram_latency_ns, 345);
    EXPECT_EQ(hopper.entry->in_flight_margin, 8);
    EXPECT_EQ(hopper.entry->shared_atomic_bytes_per_sm_clock, 14.8);
    // Turing, Ampere, Ada, Blackwell: not measured, so the default, marked as an estimate.
    for (const auto& [major, minor] : {std::pair{7, 5}, {8, 0}, {8, 6}, {8, 9}, {10, 0}, {12, 0}}) {
        const tuning::TuningLookup other =
            tuning::find_tuning(tuning::architecture_table(), major, minor);
        EXPECT_EQ(other.match, TuningMatch::kDefault) << major << "." << minor;
        EXPECT_TRUE(other.entry->estimate) << major << "." << minor;
        EXPECT_EQ(&tuning::tuning_for(major, minor), other.entry);
    }
}

TEST(TuningTable, EveryEntrySaysWhereItsValuesComeFrom) {
    int defaults = 0;
    for (const ArchitectureTuning& e : tuning::architecture_table()) {
        const std::string source = e.source;
        EXPECT_FALSE(source.empty()) << e.cc_major << "." << e.cc_minor;
        EXPECT_EQ(source.rfind(e.estimate ? "estimate" : "measured", 0), 0u) << source;
        EXPECT_GT(e.dram_latency_ns, 0);
        EXPECT_GT(e.in_flight_margin, 0);
        EXPECT_GT(e.shared_atomic_bytes_per_sm_clock, 0);
        defaults += e.cc_major == 0;
    }
    EXPECT_EQ(defaults, 1);
}
