// Stage 7's candidates and its tuning pass, without a GPU: the candidate list, the choice of the
// fastest, the header lines, and the Scanner's refusal of a candidate it cannot run.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "adaptive_lookback.hpp"
#include "scan.hpp"
#include "stages/lookback_candidates.hpp"
#include "stages/scan_launchers.hpp"

using scan::adaptive::TunedCandidate;
using scan::detail::kLookbackCandidateCount;
using scan::detail::kLookbackCandidates;

TEST(ScanTuning, CandidatesAreDistinctAndLaunchable) {
    std::set<std::tuple<int, int, bool, unsigned int, bool, int>> seen;
    for (int i = 0; i < kLookbackCandidateCount; ++i) {
        const scan::detail::LookbackCandidate& c = kLookbackCandidates[i];
        SCOPED_TRACE(scan::detail::describe_candidate(i));
        EXPECT_TRUE(
            seen.insert({c.block, c.vectors, c.resident, c.backoff_ns, c.release_acquire, c.staged})
                .second);
        EXPECT_TRUE(c.block >= 32 && c.block <= 1024 && (c.block & (c.block - 1)) == 0);
        EXPECT_GE(c.vectors, 1);
        EXPECT_LE(c.vectors, 16);  // 16 int4 = 64 registers of values per thread
        EXPECT_GE(c.staged, 0);
        EXPECT_FALSE(c.staged > 0 && c.resident);  // a staged tile is one tile per block
        EXPECT_EQ(scan::detail::candidate_tile_items(i), c.block * 4 * (c.vectors + c.staged));
    }
}

TEST(ScanTuning, TheDefaultIsStage7sDerivedShapeAtBlock256) {
    const scan::detail::LookbackCandidate& d =
        kLookbackCandidates[scan::detail::kDefaultLookbackCandidate];
    EXPECT_EQ(d.block, 256);
    EXPECT_EQ(d.vectors, 8);
    EXPECT_FALSE(d.resident);
    EXPECT_EQ(d.backoff_ns, 0u);
    EXPECT_FALSE(d.release_acquire);
    EXPECT_EQ(scan::detail::vectorized_items_per_thread(256), 4 * d.vectors);
    EXPECT_EQ(scan::detail::describe_candidate(scan::detail::kDefaultLookbackCandidate),
              "256 x 8 int4, one tile per block");
}

TEST(ScanTuning, DescriptionsNameTheTicketsTheBackoffTheOrderAndTheStaging) {
    bool resident = false;
    bool backoff = false;
    bool release_acquire = false;
    bool staged = false;
    for (int i = 0; i < kLookbackCandidateCount; ++i) {
        const std::string text = scan::detail::describe_candidate(i);
        if (kLookbackCandidates[i].resident) {
            resident = true;
            EXPECT_NE(text.find("resident blocks"), std::string::npos) << text;
        }
        if (kLookbackCandidates[i].backoff_ns != 0) {
            backoff = true;
            EXPECT_NE(
                text.find("backoff " + std::to_string(kLookbackCandidates[i].backoff_ns) + " ns"),
                std::string::npos)
                << text;
        }
        if (kLookbackCandidates[i].staged > 0) {
            staged = true;
            EXPECT_NE(text.find(" + " + std::to_string(kLookbackCandidates[i].staged) +
                                " in shared memory"),
                      std::string::npos)
                << text;
        }
        if (kLookbackCandidates[i].release_acquire) {
            release_acquire = true;
            EXPECT_NE(text.find("release/acquire"), std::string::npos) << text;
        } else {
            EXPECT_EQ(text.find("release"), std::string::npos) << text;
        }
    }
    EXPECT_TRUE(resident);
    EXPECT_TRUE(backoff);
    EXPECT_TRUE(release_acquire);
    EXPECT_TRUE(staged);
    EXPECT_THROW(scan::detail::describe_candidate(-1), std::invalid_argument);
    EXPECT_THROW(scan::detail::describe_candidate(kLookbackCandidateCount), std::invalid_argument);
}

TEST(ScanTuning, ChoosesTheFastestAndNamesTheRunnerUp) {
    const scan::adaptive::TuningResult r =
        scan::adaptive::choose_fastest({{0, 1.5}, {1, 0.9}, {2, 1.2}, {3, 0.9}}, 1000, 7);
    EXPECT_EQ(r.chosen, 1);  // 1 and 3 tie: the earlier candidate wins
    EXPECT_EQ(r.runner_up, 3);
    ASSERT_EQ(r.candidates.size(), 4u);
    EXPECT_EQ(r.candidates[2].candidate, 2);
    EXPECT_EQ(r.candidates[3].candidate, 0);
    EXPECT_EQ(r.n, 1000u);
    EXPECT_EQ(r.repetitions, 7);

    const scan::adaptive::TuningResult one = scan::adaptive::choose_fastest({{5, 2.0}}, 10, 3);
    EXPECT_EQ(one.chosen, 5);
    EXPECT_EQ(one.runner_up, -1);
    EXPECT_THROW(scan::adaptive::choose_fastest({}, 10, 3), std::invalid_argument);
}

TEST(ScanTuning, HeaderLinesSayWhatRunsWhyAndEveryTime) {
    const scan::adaptive::TuningResult r = scan::adaptive::choose_fastest(
        {{4, 0.925}, {11, 0.900}, {0, 0.990}}, std::size_t{1} << 28, 7);
    const auto lines = scan::adaptive::choice_lines(r);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].first, "stage 7 runs");
    EXPECT_EQ(lines[0].second, scan::detail::describe_candidate(11));
    EXPECT_EQ(lines[1].first, "stage 7 why");
    const std::string& why = lines[1].second;
    for (const std::string& word :
         {std::string("fastest of 3 candidates at N 268435456 (median of 7), 0.900 ms"),
          "runner-up " + scan::detail::describe_candidate(4) + ", 0.925 ms (+2.8%)"}) {
        EXPECT_NE(why.find(word), std::string::npos) << word << " in: " << why;
    }
    EXPECT_EQ(lines[2].first, "stage 7 candidates (ms)");
    EXPECT_EQ(lines[2].second, scan::detail::describe_candidate(11) + " 0.900; " +
                                   scan::detail::describe_candidate(4) + " 0.925; " +
                                   scan::detail::describe_candidate(0) + " 0.990");

    scan::adaptive::TuningResult with_skipped = r;
    with_skipped.skipped = {2, 3};
    const auto more = scan::adaptive::choice_lines(with_skipped);
    ASSERT_EQ(more.size(), 4u);
    EXPECT_EQ(more[3].first, "stage 7 not run (more shared memory per block than this GPU gives)");
    EXPECT_EQ(more[3].second,
              scan::detail::describe_candidate(2) + "; " + scan::detail::describe_candidate(3));
}

TEST(ScanTuning, OnlyStage7TakesACandidateAndOnlyAKnownOne) {
    for (const scan::StageInfo& stage : scan::stages()) {
        EXPECT_EQ(stage.uses_tuner, stage.id == "7") << stage.id;
    }
    // Both refusals come before any device work.
    EXPECT_THROW(
        scan::Scanner("6", 1000, 256, scan::Kind::kInclusive, scan::kDefaultWaitLimitNs, 0),
        std::invalid_argument);
    EXPECT_THROW(scan::Scanner("7", 1000, 256, scan::Kind::kInclusive, scan::kDefaultWaitLimitNs,
                               kLookbackCandidateCount),
                 std::invalid_argument);
}
