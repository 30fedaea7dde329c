/// @file fp32_peak.hpp
/// @brief The FP32 peak (and the BF16 tensor-core peak) of the running GPU: SMs x FP32 lanes per SM
/// x 2 (a fused multiply-add is two FLOP) x the SM clock seen while the rows were timed.
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

/// Dense BF16 tensor-core FLOP per clock per SM with FP32 sums: 2,048 on compute capability 8.0
/// (A100: 312 TFLOPS at 1410 MHz on 108 SMs), 4,096 on 9.0 (H100: 989 TFLOPS at 1830 MHz on
/// 132 SMs), from NVIDIA's data sheets; 0 where this table does not know it (GeForce parts of
/// one compute capability differ from workstation parts), and then no % of peak is shown.
int bf16_flops_per_clock_per_sm(int cc_major, int cc_minor);

/// The BF16 tensor-core peak, with what it was made of (tflops 0: unknown).
struct Bf16Peak {
    double tflops = 0;
    int sm_count = 0;
    int flops_per_clock = 0;
    double clock_mhz = 0;
    bool clock_observed = false;
    /// "1046.1 TFLOPS = 132 SMs x 4096 BF16 FLOP per clock x 1935 MHz (...)".
    std::string describe() const;
};
Bf16Peak bf16_peak(const cudatutorial::DeviceInfo& device,
                   const cudatutorial::ClockObservation& clocks);

}  // namespace matmul
