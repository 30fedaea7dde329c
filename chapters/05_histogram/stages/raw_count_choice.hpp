// Stage 8 adapts to the GPU it runs on and to the binning (this file: what a launch chooses;
// the tuning pass that measures is measuring/adaptive_counts.hpp). It used to count every byte with
// one shared-memory atomic (raw byte values, lane-replicated counters): on the H100 that reached
// 82% of the DRAM bandwidth, on the H200 only 68% (0.97x CUB on letters), because an H200 SM must
// count 18.4 bytes per clock to keep up with its 4.8 TB/s and its shared-memory atomics then
// sustained about 12.5 counted bytes per SM per clock (14.8 once the loads were pipelined;
// cudatutorial/tuning.hpp), while an H100 SM needs 12.8. With few bins (the letters' 7) no atomic
// is needed at all: each thread keeps its counts in one register, a 4-bit counter per bin,
// adding 1 << (4 x bin) per byte (the increment read from a 256-entry table in shared memory: no
// atomic, no bank conflict for letters).
//
// The stage compiles a few candidates (kRawCountVariants, stages/raw_count_candidates.hpp) and
// picks one:
//  (a) derive_raw_count_choice(): from the device's figures (bytes per SM per clock at the peak
//      bandwidth, bytes in flight needed by Little's law) and the binning;
//  (b) tune_raw_byte_counts(): a tuning pass on the program's input, a few runs of every
//      applicable candidate (a fraction of a millisecond each at 2^28); the executable runs it
//      before its table, prints the choice and hands it to stage 8 in its Workspace.
// launch_raw_byte_counts() keeps its signature: it runs the candidate its Workspace holds, or
// the derived one (raw_count_variant_for()).
#pragma once

#include <string>

#include "cudatutorial/tuning.hpp"
#include "histogram.hpp"
#include "stages/raw_count_candidates.hpp"

namespace histogram::adaptive {

/// What the derivation reads off the device (the SM count, clock, resident threads per SM and
/// bandwidth). The constants it combines them with (the DRAM latency Little's law assumes, the
/// margin over it, the rate shared-memory atomics sustained) come from the per-architecture
/// table of cudatutorial/tuning.hpp.
using DeviceFigures = cudatutorial::tuning::DeviceFigures;

/// Bytes each SM must count per clock to keep up with the DRAM bandwidth: bandwidth / (SMs x
/// SM clock). 12.8 on an H100 SXM, 18.4 on an H200.
double bytes_per_sm_clock(const DeviceFigures& device);

/// The parameters stage 8 runs with.
struct RawCountChoice {
    int variant = 0;     ///< index into kRawCountVariants
    bool tuned = false;  ///< measured by tune_raw_byte_counts(), not derived
    std::string why;     ///< one line for the run's header
};

/// (a) Register counters when the binning has at most 8 bins (no atomics; about 5 instructions
/// per byte, within the 128 / bytes_per_sm_clock() an SM can issue), else shared atomics
/// (pipelined); two loads per thread when max_threads_per_sm x 2 x 16 B reach the table's
/// in-flight margin x the bytes Little's law asks for (the table's latency x bandwidth / SMs),
/// else four (on an H100 and an H200 both ask for four: 2 loads measured 0.0954 against 0.0925
/// ms for the register counters on the H100). Pure arithmetic.
RawCountChoice derive_raw_count_choice(const DeviceFigures& device, const Binning& binning);

/// The candidate stage 8 runs for `args`: the one args.workspace holds for args.binning, else
/// the derived choice for the current device, which is then kept in args.workspace (when there
/// is one) for the next launches.
int raw_count_variant_for(const StageArgs& args);

}  // namespace histogram::adaptive
