// The compiled candidates of stage 8: where a block keeps its counts (shared-memory atomics on
// the 256 raw byte values, or register counters for at most 8 bins), how many 16-byte loads a
// thread issues per step, and whether the next step's loads are issued before this step's bytes
// are counted. stage8_raw_byte_counts.cu instantiates every candidate; which one runs is chosen
// for the GPU and the binning at run time (raw_count_choice.hpp), derived or measured by the
// tuning pass of measuring/adaptive_counts.hpp. Host and device code both read this table.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "histogram.hpp"

namespace histogram::adaptive {

/// Where stage 8's counts live while a block counts.
enum class Counters {
    kSharedAtomics,    ///< 256 raw-byte counters x 32 lane copies in shared memory (any binning)
    kRegisterNibbles,  ///< 8 four-bit counters packed in one register per thread (<= 8 bins)
};

/// One compiled candidate of stage 8.
struct RawCountVariant {
    Counters counters;
    int loads;       ///< 16-byte loads per thread per step
    bool pipelined;  ///< the next step's loads are issued before this step's bytes are counted
};

/// The candidates; index 0 is the stage as it was (the H100's fixed choice).
inline constexpr RawCountVariant kRawCountVariants[] = {
    {Counters::kSharedAtomics, 4, false},  {Counters::kSharedAtomics, 4, true},
    {Counters::kSharedAtomics, 2, true},   {Counters::kRegisterNibbles, 2, true},
    {Counters::kRegisterNibbles, 4, true},
};
inline constexpr int kRawCountVariantCount =
    static_cast<int>(sizeof(kRawCountVariants) / sizeof(kRawCountVariants[0]));

/// Bins the register counters hold: eight 4-bit fields of a 32-bit register.
inline constexpr int kMaxRegisterBins = 8;

/// "register nibbles, 2 loads, pipelined"
std::string describe_variant(int variant);

/// Whether candidate `variant` can count `binning` (register counters: at most 8 bins).
bool variant_applies(int variant, const Binning& binning);

/// Stage 8 with candidate `variant` (stage8_raw_byte_counts.cu); throws std::invalid_argument
/// when the candidate does not apply to args.binning.
LaunchShape launch_raw_byte_counts_variant(const StageArgs& args, int variant, cudaStream_t stream);

}  // namespace histogram::adaptive
