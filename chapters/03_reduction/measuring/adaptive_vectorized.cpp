// The tuning pass of stages 10-12 (adaptive_vectorized.hpp): every candidate timed on the
// program's input, the fastest chosen, the choice written into the run's header.
#include "adaptive_vectorized.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/report.hpp"
#include "reduction.hpp"
#include "stages/reduction_launchers.hpp"

namespace reduction {

namespace adaptive {
namespace {

using detail::kVectorizedVariantCount;
using detail::kVectorizedVariants;

using cudatutorial::format_fixed;

std::string candidate_label(int variant, int divisor) {
    return detail::describe_variant(variant) +
           (divisor > 1 ? ", resident/" + std::to_string(divisor) : std::string());
}

}  // namespace

TuningResult tune_vectorized(const int* d_in, std::size_t n, int block, int repetitions) {
    validate_configuration("12", std::max<std::size_t>(n, 1), block);
    const int device = cudatutorial::tuning::current_device();
    const DeviceFigures figures = cudatutorial::tuning::device_figures(device);
    TuningResult result;
    result.device = device;
    result.block = block;
    result.tuned_n = tuning_size(n);
    result.derived = derive_vectorized_choice(figures, block,
                                              detail::single_pass_atomic_blocks_per_sm(block, 1));

    cudatutorial::DeviceBuffer<int> d_sum(1);
    cudatutorial::BenchmarkConfig config;
    config.warmup = 1;
    config.repetitions = std::max(1, repetitions);
    bool have_reference = false;
    int reference = 0;
    for (int v = 0; v < kVectorizedVariantCount; ++v) {
        const int resident = detail::single_pass_atomic_blocks_per_sm(block, v);
        const bool one_shot = detail::is_one_shot(v);
        for (const int divisor : {1, 2}) {
            if (resident < divisor || (one_shot && divisor > 1)) {
                continue;  // a one-shot grid is the input's size, whatever the occupancy
            }
            const std::size_t grid =
                one_shot
                    ? config::one_shot_blocks(result.tuned_n, block, kVectorizedVariants[v].loads)
                    : config::grid_stride_blocks(result.tuned_n, block, 16, figures.sm_count,
                                                 resident / divisor);
            if (grid > static_cast<std::size_t>(INT_MAX)) {
                continue;  // a one-shot grid too large for a launch (not at tuning_size())
            }
            detail::KernelArgs args;
            args.in = d_in;
            args.out = d_sum.data();
            args.n = result.tuned_n;
            args.grid = static_cast<unsigned int>(grid);
            args.block = block;
            args.variant = v;
            detail::launch_single_pass_atomic(args);
            int sum = 0;
            d_sum.copy_to_host(&sum, 1);  // synchronizes
            if (!have_reference) {
                reference = sum;
                have_reference = true;
            } else if (sum != reference) {
                throw std::runtime_error("tuning pass: candidate " + candidate_label(v, divisor) +
                                         " summed to " + std::to_string(sum) + ", candidate " +
                                         candidate_label(0, 1) + " to " +
                                         std::to_string(reference));
            }
            const cudatutorial::Stats stats = cudatutorial::time_repeated(
                [&](cudaStream_t stream) {
                    detail::KernelArgs timed = args;
                    timed.stream = stream;
                    detail::launch_single_pass_atomic(timed);
                },
                config);
            result.candidates.push_back({v, divisor, args.grid, stats.median_ms});
        }
    }
    std::stable_sort(
        result.candidates.begin(), result.candidates.end(),
        [](const TunedCandidate& a, const TunedCandidate& b) { return a.median_ms < b.median_ms; });
    const TunedCandidate& best = result.candidates.front();
    const TunedCandidate& slowest = result.candidates.back();
    const TunedCandidate& persistent =
        *std::find_if(result.candidates.begin(), result.candidates.end(),
                      [](const TunedCandidate& c) { return !detail::is_one_shot(c.variant); });
    result.choice.variant = persistent.variant;
    result.choice.occupancy_divisor = persistent.occupancy_divisor;
    result.choice.tuned = true;
    double derived_ms = 0;
    for (const TunedCandidate& c : result.candidates) {
        if (c.variant == result.derived.variant && c.occupancy_divisor == 1) {
            derived_ms = c.median_ms;
        }
    }
    const std::string measured = "tuned: fastest of " + std::to_string(result.candidates.size()) +
                                 " candidates at N " + std::to_string(result.tuned_n) +
                                 " (stage 12's kernel, median of " +
                                 std::to_string(config.repetitions) + ")";
    const std::string rest =
        "slowest " + format_fixed(slowest.median_ms, 4) + " ms; the derived choice (" +
        candidate_label(result.derived.variant, 1) + ") " + format_fixed(derived_ms, 4) + " ms";
    result.choice.why = measured + ", " + format_fixed(best.median_ms, 4) + " ms; " + rest;
    result.single_pass_atomic_choice = result.choice;
    if (detail::is_one_shot(best.variant)) {
        result.single_pass_atomic_choice.variant = best.variant;
        result.single_pass_atomic_choice.occupancy_divisor = 1;
        result.single_pass_atomic_choice.why =
            measured + ": the one-shot " + candidate_label(best.variant, 1) + " (grid " +
            std::to_string(best.grid) + ") " + format_fixed(best.median_ms, 4) +
            " ms, run by stage 12; stages 10-11 run the fastest persistent one, " +
            candidate_label(persistent.variant, persistent.occupancy_divisor) + ", " +
            format_fixed(persistent.median_ms, 4) + " ms; " + rest;
    }
    for (const TunedCandidate& c : result.candidates) {
        result.table += (result.table.empty() ? "" : "; ") +
                        candidate_label(c.variant, c.occupancy_divisor) + " (grid " +
                        std::to_string(c.grid) + ") " + format_fixed(c.median_ms, 4);
    }
    return result;
}

void describe_choice(const TuningResult& tuning, cudatutorial::RunInfo& header) {
    const VectorizedChoice& atomic = tuning.single_pass_atomic_choice;
    const std::string persistent = detail::describe_variant(tuning.choice.variant) + ", resident/" +
                                   std::to_string(tuning.choice.occupancy_divisor) +
                                   " blocks per SM";
    if (atomic.variant == tuning.choice.variant) {
        header.set("stages 10-12 run", persistent);
    } else {  // a one-shot candidate measured fastest: stage 12 runs it
        header.set("stages 10-11 run", persistent);
        header.set("stage 12 runs",
                   detail::describe_variant(atomic.variant) + ", one block per tile of the input");
    }
    header.set("stages 10-12 why", atomic.why + "; " + tuning.derived.why);
    header.set("stages 10-12 candidates (ms)", tuning.table);
}

}  // namespace adaptive
}  // namespace reduction
