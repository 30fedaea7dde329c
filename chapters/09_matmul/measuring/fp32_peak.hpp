/// @file fp32_peak.hpp
/// @brief The FP32 peak of the running GPU: SMs x FP32 lanes per SM x 2 (a fused multiply-add is
/// two FLOP) x the SM clock seen while the rows were timed.
///
/// No device attribute gives the FP32 lanes of an SM, so they come from a table by compute
/// capability (the CUDA C++ Programming Guide's arithmetic-instruction throughputs); an
/// architecture the table does not know gets 128 and the header says it is an estimate. The
/// clock is the highest NVML saw during the timed runs (clocks.hpp): a card that slows under
/// load shows a lower % than its speed at full clock would, never a higher one. Without NVML,
/// the device's peak clock.
#pragma once

#include <string>

#include "cudatutorial/clocks.hpp"
#include "cudatutorial/device_info.hpp"

namespace matmul {

/// FP32 lanes per SM for compute capability major.minor, and whether the table knew it.
struct Fp32Lanes {
    int lanes = 128;
    bool known = false;
};
Fp32Lanes fp32_lanes_per_sm(int cc_major, int cc_minor);

/// The peak, with what it was made of.
struct Fp32Peak {
    double tflops = 0;            ///< SMs x lanes x 2 x clock
    int sm_count = 0;             ///< SMs
    Fp32Lanes lanes;              ///< lanes per SM
    double clock_mhz = 0;         ///< the SM clock used
    bool clock_observed = false;  ///< NVML's reading during timing (else the device's peak)
    /// "66.9 TFLOPS = 132 SMs x 128 FP32 lanes x 2 x 1980 MHz (the highest SM clock seen while
    /// timing)".
    std::string describe() const;
};

/// The peak of `device` at the highest clock of `clocks` (or its peak clock without them).
Fp32Peak fp32_peak(const cudatutorial::DeviceInfo& device,
                   const cudatutorial::ClockObservation& clocks);

}  // namespace matmul
