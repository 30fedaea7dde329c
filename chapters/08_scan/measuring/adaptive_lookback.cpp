// Stage 7's tuning pass (adaptive_lookback.hpp): the choice (pure arithmetic, tested on the CPU),
// the timed runs, and the header lines.
#include "adaptive_lookback.hpp"

#include <algorithm>
#include <stdexcept>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "stages/lookback_candidates.hpp"

namespace scan::adaptive {
namespace {

/// The id of the stage the candidates belong to.
constexpr const char* kTunedStageId = "7";

std::string ms(double value) {
    return cudatutorial::format_fixed(value, 3) + " ms";
}

}  // namespace

TuningResult choose_fastest(std::vector<TunedCandidate> timed, std::size_t n, int repetitions) {
    if (timed.empty()) {
        throw std::invalid_argument("the tuning pass timed no candidate");
    }
    std::stable_sort(
        timed.begin(), timed.end(),
        [](const TunedCandidate& a, const TunedCandidate& b) { return a.median_ms < b.median_ms; });
    TuningResult result;
    result.chosen = timed.front().candidate;
    result.runner_up = timed.size() > 1 ? timed[1].candidate : -1;
    result.n = n;
    result.repetitions = repetitions;
    result.candidates = std::move(timed);
    return result;
}

TuningResult tune_lookback(const Value* d_in, Value* d_out, std::size_t n, Kind kind,
                           const OutputCheck& check, int repetitions) {
    cudatutorial::BenchmarkConfig config;
    config.warmup = 1;
    config.repetitions = std::max(1, repetitions);
    std::vector<TunedCandidate> timed;
    std::vector<int> skipped;
    for (int c = 0; c < detail::kLookbackCandidateCount; ++c) {
        if (!detail::candidate_fits(c)) {
            skipped.push_back(c);  // more shared memory per block than this GPU gives
            continue;
        }
        const Scanner scanner(kTunedStageId, n, detail::kLookbackCandidates[c].block, kind,
                              kDefaultWaitLimitNs, c);
        const auto fail = [&](const std::string& why) {
            throw std::runtime_error("tuning pass: stage 7's candidate " +
                                     detail::describe_candidate(c) + " is wrong: " + why);
        };
        check.poison();
        scanner.run(d_in, d_out, nullptr);
        CT_CHECK(cudaDeviceSynchronize());
        std::string why = scanner.device_error();
        if (why.empty()) {
            why = check.verify();
        }
        if (!why.empty()) {
            fail(why);
        }
        const cudatutorial::Stats stats = cudatutorial::time_repeated(
            [&](cudaStream_t stream) { scanner.run(d_in, d_out, stream); }, config);
        why = scanner.device_error();  // a wait that gave up during the timed runs
        if (!why.empty()) {
            fail(why);
        }
        timed.push_back({c, stats.median_ms});
    }
    TuningResult result = choose_fastest(std::move(timed), n, config.repetitions);
    result.skipped = std::move(skipped);
    return result;
}

std::vector<std::pair<std::string, std::string>> choice_lines(const TuningResult& tuning) {
    const TunedCandidate& best = tuning.candidates.front();
    std::string why = "tuned: fastest of " + std::to_string(tuning.candidates.size()) +
                      " candidates at N " + std::to_string(tuning.n) + " (median of " +
                      std::to_string(tuning.repetitions) + "), " + ms(best.median_ms);
    if (tuning.candidates.size() > 1) {
        const TunedCandidate& second = tuning.candidates[1];
        why +=
            "; runner-up " + detail::describe_candidate(second.candidate) + ", " +
            ms(second.median_ms) + " (+" +
            cudatutorial::format_fixed(
                100.0 * (second.median_ms - best.median_ms) / std::max(best.median_ms, 1e-9), 1) +
            "%)";
    }
    std::string times;
    for (const TunedCandidate& c : tuning.candidates) {
        times += (times.empty() ? "" : "; ") + detail::describe_candidate(c.candidate) + " " +
                 cudatutorial::format_fixed(c.median_ms, 3);
    }
    std::vector<std::pair<std::string, std::string>> lines = {
        {"stage 7 runs", detail::describe_candidate(tuning.chosen)},
        {"stage 7 why", why},
        {"stage 7 candidates (ms)", times}};
    if (!tuning.skipped.empty()) {
        std::string names;
        for (int c : tuning.skipped) {
            names += (names.empty() ? "" : "; ") + detail::describe_candidate(c);
        }
        lines.emplace_back("stage 7 not run (more shared memory per block than this GPU gives)",
                           names);
    }
    return lines;
}

void describe_choice(const TuningResult& tuning, cudatutorial::RunInfo& header) {
    for (const auto& [key, value] : choice_lines(tuning)) {
        header.set(key, value);
    }
}

}  // namespace scan::adaptive
