// What stage 8 runs: the candidate derived from the device's figures and the binning (pure
// arithmetic, tested on the CPU), or the one a tuning pass left in its Workspace
// (stages/raw_count_choice.hpp).
#include "stages/raw_count_choice.hpp"

#include <algorithm>
#include <cstdlib>

#include "cudatutorial/report.hpp"

namespace histogram::adaptive {
namespace {

using cudatutorial::format_fixed;

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
    const std::string budget = format_fixed(device.bandwidth_gbs, 0) + " GB/s / (" +
                               std::to_string(device.sm_count) + " SMs x " +
                               format_fixed(device.sm_clock_mhz, 0) +
                               " MHz) = " + format_fixed(per_clock, 1) + " bytes per SM per clock";
    choice.why =
        "derived: " + budget +
        (registers ? " (shared atomics sustain about " + format_fixed(atomic_rate, 1) +
                         "; an SM issues " + format_fixed(128.0 / per_clock, 1) +
                         " thread instructions per byte); " + std::to_string(binning.bins()) +
                         " bins fit one register per thread: no atomic per byte"
                   : "; " + std::to_string(binning.bins()) +
                         " bins do not fit a register: shared atomics, whose ceiling is about " +
                         format_fixed(std::min(1.0, atomic_rate / per_clock) * 100, 0) +
                         "% of the bandwidth here") +
        "; " + std::to_string(kRawCountVariants[chosen].loads) +
        " loads per thread (Little's law: " + format_fixed(needed / 1024, 1) +
        " KiB in flight per SM)";
    return choice;
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
