// How stage 8 picks its candidate: the derivation from the device's figures and the binning
// (pure arithmetic, tested on the CPU), the tuning pass, and the choice a launch makes when it
// is handed none (adaptive_counts.hpp).
#include "adaptive_counts.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"

namespace histogram::adaptive {
namespace {

std::string fixed(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

namespace tuning = cudatutorial::tuning;

}  // namespace

double bytes_per_sm_clock(const DeviceFigures& device) {
    const double per_second = device.bandwidth_gbs * 1e9;
    const double sm_clocks =
        std::max(1, device.sm_count) * std::max(1.0, device.sm_clock_mhz) * 1e6;
    return per_second / sm_clocks;
}

RawCountChoice derive_raw_count_choice(const DeviceFigures& device, const Binning& binning) {
    const tuning::ArchitectureTuning& constants =
        tuning::tuning_for(device.cc_major, device.cc_minor);
    const double atomic_rate = constants.shared_atomic_bytes_per_sm_clock;
    const double per_clock = bytes_per_sm_clock(device);
    const double needed =
        device.bandwidth_gbs * constants.dram_latency_ns / std::max(1, device.sm_count);
    const double two_loads = std::max(1, device.max_threads_per_sm) * 2.0 * 16.0;
    const int loads = two_loads >= constants.in_flight_margin * needed ? 2 : 4;
    const bool registers = binning.bins() <= kMaxRegisterBins;
    RawCountChoice choice;
    choice.tuned = false;
    int chosen = -1;
    for (int v = 0; v < kRawCountVariantCount; ++v) {
        const RawCountVariant& c = kRawCountVariants[v];
        const bool kind =
            c.counters == (registers ? Counters::kRegisterNibbles : Counters::kSharedAtomics);
        if (!kind || !c.pipelined) {
            continue;
        }
        // The candidate with the wanted loads, or else the nearest one.
        if (chosen < 0 ||
            std::abs(c.loads - loads) < std::abs(kRawCountVariants[chosen].loads - loads)) {
            chosen = v;
        }
    }
    choice.variant = chosen;
    const std::string budget = fixed(device.bandwidth_gbs, 0) + " GB/s / (" +
                               std::to_string(device.sm_count) + " SMs x " +
                               fixed(device.sm_clock_mhz, 0) + " MHz) = " + fixed(per_clock, 1) +
                               " bytes per SM per clock";
    choice.why =
        "derived: " + budget +
        (registers ? " (shared atomics sustain about " + fixed(atomic_rate, 1) + "; an SM issues " +
                         fixed(128.0 / per_clock, 1) + " thread instructions per byte); " +
                         std::to_string(binning.bins()) +
                         " bins fit one register per thread: no atomic per byte"
                   : "; " + std::to_string(binning.bins()) +
                         " bins do not fit a register: shared atomics, whose ceiling is about " +
                         fixed(std::min(1.0, atomic_rate / per_clock) * 100, 0) +
                         "% of the bandwidth here") +
        "; " + std::to_string(kRawCountVariants[chosen].loads) +
        " loads per thread (Little's law: " + fixed(needed / 1024, 1) + " KiB in flight per SM)";
    return choice;
}

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
                        " (grid " + std::to_string(c.grid) + ") " + fixed(c.median_ms, 4);
    }
    result.choice.why = "tuned: fastest of " + std::to_string(result.candidates.size()) +
                        " candidates on this input (median of " +
                        std::to_string(config.repetitions) + "), " + fixed(best.median_ms, 4) +
                        " ms; the derived choice " + fixed(derived_ms, 4) + " ms";
    return result;
}

int raw_count_variant_for(const StageArgs& args) {
    Workspace* const workspace = args.workspace;
    if (workspace != nullptr && workspace->raw_count_variant >= 0 &&
        workspace->raw_count_binning == args.binning) {
        return workspace->raw_count_variant;
    }
    // Device queries and text: host time that a launch should not pay every time, hence kept.
    const int derived =
        derive_raw_count_choice(tuning::device_figures(tuning::current_device()), args.binning)
            .variant;
    if (workspace != nullptr) {
        workspace->raw_count_variant = derived;
        workspace->raw_count_binning = args.binning;
    }
    return derived;
}

}  // namespace histogram::adaptive
