// Stage 8's tuning pass (tile_tuning.hpp).
#include "tile_tuning.hpp"

#include <stdexcept>
#include <string>

#include "cudatutorial/benchmark.hpp"

namespace matmul::tuning {

bool shape_allows_tuning(const Shape& shape) {
    return shape.k % 4 == 0 && shape.n % 4 == 0;
}

TuningResult tune_tiles(const Shape& shape, const CheckCandidate& check,
                        const LaunchCandidate& launch) {
    TuningResult result;
    if (!shape_allows_tuning(shape)) {
        result.skipped_because =
            "k and n are not both multiples of 4: no 16-byte loads, so "
            "stage 8 runs stage 7's kernel with one-float loads";
        return result;
    }
    cudatutorial::BenchmarkConfig config;
    config.warmup = 2;
    config.repetitions = 10;
    for (int index = 0; index < tuning_candidates(); ++index) {
        const Multiplier multiplier("8", shape, index);
        CandidateTiming timing;
        timing.index = index;
        timing.name = tuning_candidate_name(index);
        timing.detail = check(multiplier);
        timing.passed = timing.detail.empty();
        if (timing.passed) {
            config.label = "stage 8 candidate " + timing.name;
            timing.median_ms =
                cudatutorial::time_repeated([&](cudaStream_t s) { launch(multiplier, s); }, config)
                    .median_ms;
            if (result.chosen < 0 || timing.median_ms < result.timings[result.chosen].median_ms) {
                result.chosen = index;
            }
        }
        result.timings.push_back(timing);
    }
    if (result.chosen < 0) {
        throw std::runtime_error("no candidate of stage 8 computed the product correctly: " +
                                 result.timings.front().detail);
    }
    return result;
}

void describe_choice(const TuningResult& result, cudatutorial::RunInfo& info) {
    if (result.chosen < 0) {
        info.set("stage 8's shape", result.skipped_because);
        return;
    }
    std::string others;
    for (const CandidateTiming& t : result.timings) {
        if (t.index == result.chosen) {
            continue;
        }
        others += (others.empty() ? "" : "; ") + t.name + ": " +
                  (t.passed ? cudatutorial::format_fixed(t.median_ms, 3) + " ms"
                            : "FAIL (" + t.detail + ")");
    }
    const CandidateTiming& best = result.timings[result.chosen];
    if (result.timings.size() == 1) {
        info.set("stage 8's shape", best.name + " (" +
                                        cudatutorial::format_fixed(best.median_ms, 3) +
                                        " ms), the only candidate this build compiled: it was "
                                        "built for the fallback architectures, not for this "
                                        "GPU (configure with the GPU visible for the others)");
        return;
    }
    info.set("stage 8's shape", best.name + ", the fastest of " +
                                    std::to_string(result.timings.size()) +
                                    " candidates measured here on this run's data (" +
                                    cudatutorial::format_fixed(best.median_ms, 3) +
                                    " ms; median of 10); the others: " + others);
}

}  // namespace matmul::tuning
