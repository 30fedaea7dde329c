// What stages 10-12 run: the choice derived from the device's figures, or the one a tuning pass
// measured (stages/vectorized_choice.hpp).
#include "stages/vectorized_choice.hpp"

#include <algorithm>
#include <stdexcept>

#include "cudatutorial/report.hpp"
#include "stages/reduction_launchers.hpp"

namespace reduction {

namespace adaptive {
namespace {

using detail::kVectorizedVariantCount;
using detail::kVectorizedVariants;

constexpr int kVectorBytes = 16;

using cudatutorial::format_fixed;

std::string kib(double bytes) {
    return format_fixed(bytes / 1024.0, 1) + " KiB";
}

}  // namespace

double bytes_in_flight_needed_per_sm(const DeviceFigures& device) {
    // GB/s is bytes per ns: ns x bytes/ns = bytes, for the whole GPU.
    const double latency_ns =
        cudatutorial::tuning::tuning_for(device.cc_major, device.cc_minor).dram_latency_ns;
    return device.bandwidth_gbs * latency_ns / std::max(1, device.sm_count);
}

VectorizedChoice derive_vectorized_choice(const DeviceFigures& device, int block,
                                          int resident_blocks_per_sm) {
    const cudatutorial::tuning::ArchitectureTuning& tuning =
        cudatutorial::tuning::tuning_for(device.cc_major, device.cc_minor);
    const double needed = bytes_in_flight_needed_per_sm(device);
    const double margin = tuning.in_flight_margin;
    const double threads = static_cast<double>(block) * std::max(1, resident_blocks_per_sm);
    const bool hint = device.cc_major >= 8;  // L2::256B needs sm_80
    const detail::LoadPolicy policy =
        hint ? detail::LoadPolicy::kPrefetchL2 : detail::LoadPolicy::kPlain;
    int chosen = -1;
    int most_loads = -1;
    for (int v = 0; v < kVectorizedVariantCount; ++v) {
        const detail::VectorizedVariant& c = kVectorizedVariants[v];
        if (c.layout != detail::Layout::kBlockTiles || c.policy != policy) {
            continue;
        }
        if (most_loads < 0 || c.loads > kVectorizedVariants[most_loads].loads) {
            most_loads = v;
        }
        const bool enough = threads * c.loads * kVectorBytes >= margin * needed;
        if (enough && (chosen < 0 || c.loads < kVectorizedVariants[chosen].loads)) {
            chosen = v;
        }
    }
    if (chosen < 0) {
        chosen = most_loads;  // none is enough: as many bytes in flight as the candidates offer
    }
    VectorizedChoice choice;
    choice.variant = chosen;
    choice.occupancy_divisor = 1;
    choice.tuned = false;
    const double provided = threads * kVectorizedVariants[chosen].loads * kVectorBytes;
    choice.why =
        "derived: " + format_fixed(tuning.dram_latency_ns, 0) + " ns x " +
        format_fixed(device.bandwidth_gbs, 0) + " GB/s / " + std::to_string(device.sm_count) +
        " SMs = " + kib(needed) + " in flight per SM (x" + format_fixed(margin, 0) +
        " margin: " + kib(margin * needed) + "); " + format_fixed(threads, 0) +
        " resident threads x " + std::to_string(kVectorizedVariants[chosen].loads) +
        " loads x 16 B = " + kib(provided) + (hint ? "" : "; no L2::256B hint before sm_80");
    return choice;
}

std::size_t tuning_size(std::size_t n) {
    return std::min(n, std::size_t{1} << 27);
}

VectorizedChoice vectorized_choice(const TuningResult* tuning, std::size_t n, int block,
                                   bool one_shot_allowed) {
    const int device = cudatutorial::tuning::current_device();
    if (tuning == nullptr) {
        return derive_vectorized_choice(cudatutorial::tuning::device_figures(device), block,
                                        detail::single_pass_atomic_blocks_per_sm(block, 1));
    }
    // A choice measured for other launches says nothing about these: refuse it rather than run
    // a candidate nobody timed here.
    if (tuning->device != device || tuning->block != block || tuning->tuned_n != tuning_size(n)) {
        throw std::invalid_argument(
            "the tuning pass was measured on device " + std::to_string(tuning->device) +
            " with block " + std::to_string(tuning->block) + " at N " +
            std::to_string(tuning->tuned_n) + ", not on device " + std::to_string(device) +
            " with block " + std::to_string(block) + " at N " + std::to_string(tuning_size(n)));
    }
    return one_shot_allowed ? tuning->single_pass_atomic_choice : tuning->choice;
}

}  // namespace adaptive
}  // namespace reduction
