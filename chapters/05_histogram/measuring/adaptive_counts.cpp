// Stage 8's tuning pass (adaptive_counts.hpp): every applicable candidate timed on the program's
// input, checked to agree, the fastest chosen.
#include "adaptive_counts.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/report.hpp"

namespace histogram::adaptive {
namespace {

using cudatutorial::format_fixed;

namespace tuning = cudatutorial::tuning;

}  // namespace

TuningResult tune_raw_byte_counts(const StageArgs& args, int reps) {
    TuningResult result;
    result.derived =
        derive_raw_count_choice(tuning::device_figures(tuning::current_device()), args.binning);
    cudatutorial::BenchmarkConfig config;
    config.warmup = 1;
    config.repetitions = std::max(1, reps);
    const std::size_t bins = static_cast<std::size_t>(args.binning.bins());
    std::vector<unsigned int> reference;
    std::vector<unsigned int> counts(bins);
    for (int v = 0; v < kRawCountVariantCount; ++v) {
        if (!variant_applies(v, args.binning)) {
            continue;
        }
        LaunchShape shape = launch_raw_byte_counts_variant(args, v, nullptr);
        CT_CHECK(cudaMemcpy(counts.data(), args.histogram, bins * sizeof(unsigned int),
                            cudaMemcpyDeviceToHost));
        if (reference.empty()) {
            reference = counts;
        } else if (counts != reference) {
            throw std::runtime_error("stage 8 tuning pass: candidate " + describe_variant(v) +
                                     " counted differently from candidate " +
                                     describe_variant(result.candidates.front().variant));
        }
        const cudatutorial::Stats stats = cudatutorial::time_repeated(
            [&](cudaStream_t stream) { shape = launch_raw_byte_counts_variant(args, v, stream); },
            config);
        result.candidates.push_back({v, shape.grid, stats.median_ms});
    }
    std::stable_sort(
        result.candidates.begin(), result.candidates.end(),
        [](const TunedCandidate& a, const TunedCandidate& b) { return a.median_ms < b.median_ms; });
    const TunedCandidate& best = result.candidates.front();
    result.choice.variant = best.variant;
    result.choice.tuned = true;
    double derived_ms = 0;
    for (const TunedCandidate& c : result.candidates) {
        derived_ms = c.variant == result.derived.variant ? c.median_ms : derived_ms;
        result.table += (result.table.empty() ? "" : "; ") + describe_variant(c.variant) +
                        " (grid " + std::to_string(c.grid) + ") " + format_fixed(c.median_ms, 4);
    }
    result.choice.why = "tuned: fastest of " + std::to_string(result.candidates.size()) +
                        " candidates on this input (median of " +
                        std::to_string(config.repetitions) + "), " +
                        format_fixed(best.median_ms, 4) + " ms; the derived choice " +
                        format_fixed(derived_ms, 4) + " ms";
    return result;
}

}  // namespace histogram::adaptive
