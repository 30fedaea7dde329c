// The FP32 peak of the running GPU (fp32_peak.hpp).
#include "fp32_peak.hpp"

#include <string>

#include "cudatutorial/report.hpp"

namespace matmul {

Fp32Lanes fp32_lanes_per_sm(int major, int minor) {
    // FP32 results per clock per SM (the Programming Guide's throughput table).
    switch (major) {
        case 5:
            return {128, true};
        case 6:
            return {minor == 0 ? 64 : 128, true};
        case 7:
            return {64, true};  // Volta and Turing
        case 8:
            return {minor == 0 ? 64 : 128, true};  // A100: 64; GA10x and Ada: 128
        case 9:
        case 10:
        case 12:
            return {128, true};  // Hopper, Blackwell
        default:
            return {128, false};
    }
}

namespace {
std::string clock_words(bool observed) {
    return observed ? "the highest SM clock seen while timing"
                    : "the device's peak clock: NVML saw none";
}
}  // namespace

std::string Fp32Peak::describe() const {
    return cudatutorial::format_fixed(tflops, 1) + " TFLOPS = " + std::to_string(sm_count) +
           " SMs x " + std::to_string(lanes.lanes) + " FP32 lanes" +
           (lanes.known ? "" : " (an estimate: this architecture is not in the table)") +
           " x 2 x " + cudatutorial::format_fixed(clock_mhz, 0) + " MHz (" +
           clock_words(clock_observed) + ")";
}

Fp32Peak fp32_peak(const cudatutorial::DeviceInfo& device,
                   const cudatutorial::ClockObservation& clocks) {
    Fp32Peak peak;
    peak.sm_count = device.sm_count;
    peak.lanes = fp32_lanes_per_sm(device.cc_major, device.cc_minor);
    peak.clock_observed = clocks.samples > 0 && clocks.sm_mhz_max > 0;
    peak.clock_mhz = peak.clock_observed ? clocks.sm_mhz_max : device.sm_clock_khz / 1000.0;
    peak.tflops = peak.sm_count * peak.lanes.lanes * 2.0 * peak.clock_mhz * 1e6 / 1e12;
    return peak;
}

int bf16_flops_per_clock_per_sm(int major, int minor) {
    if (major == 8 && minor == 0) {
        return 2048;
    }
    if (major == 9 && minor == 0) {
        return 4096;
    }
    return 0;
}

std::string Bf16Peak::describe() const {
    if (flops_per_clock == 0) {
        return "unknown for this GPU (no % of peak shown)";
    }
    return cudatutorial::format_fixed(tflops, 1) + " TFLOPS = " + std::to_string(sm_count) +
           " SMs x " + std::to_string(flops_per_clock) + " BF16 FLOP per clock x " +
           cudatutorial::format_fixed(clock_mhz, 0) + " MHz (" + clock_words(clock_observed) + ")";
}

Bf16Peak bf16_peak(const cudatutorial::DeviceInfo& device,
                   const cudatutorial::ClockObservation& clocks) {
    Bf16Peak peak;
    peak.sm_count = device.sm_count;
    peak.flops_per_clock = bf16_flops_per_clock_per_sm(device.cc_major, device.cc_minor);
    peak.clock_observed = clocks.samples > 0 && clocks.sm_mhz_max > 0;
    peak.clock_mhz = peak.clock_observed ? clocks.sm_mhz_max : device.sm_clock_khz / 1000.0;
    peak.tflops =
        peak.sm_count * static_cast<double>(peak.flops_per_clock) * peak.clock_mhz * 1e6 / 1e12;
    return peak;
}

}  // namespace matmul
