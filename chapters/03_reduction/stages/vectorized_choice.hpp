// Stages 10-12 adapt to the GPU they run on (this file: what a launch chooses; the tuning pass
// that measures is measuring/adaptive_vectorized.hpp). They used to take four constants (loads in
// flight, load flavour, layout, occupancy) from a sweep made once on an H100; on an H200 (same
// sm_90, 4.8 TB/s instead of 3.35 TB/s) the same constants left stage 12 at 0.94x CUB. Now the
// chapter compiles a small set of candidate kernels (kVectorizedVariants,
// stages/vectorized_candidates.hpp) and picks one per process:
//  (a) derive_vectorized_choice(): a first choice from the device's own figures - Little's law,
//      bytes in flight needed = DRAM bandwidth x latency, against the bytes the resident threads
//      keep in flight with L loads each - used whenever no measurement was made;
//  (b) tune_vectorized(): a tuning pass of a few milliseconds on the program's own input (every
//      candidate x two occupancies, median of a few runs each); the executable runs it before its
//      table, prints what it chose and why, and hands the result to each Reducer it makes, as
//      CUB hands a kernel its tuning policy (a Reducer given none derives its choice).
// Stage 12 has more candidates than stages 10 and 11: one-shot grids (Layout::kOneShot), one
// block per tile of the input and no loop, which only a stage that combines its blocks with
// atomics can afford (stage 10 would sum one partial per tile in its second pass, stage 11 in
// its last block). The tuning pass times them beside the persistent ones, and stage 12 runs a
// one-shot candidate only where one measured fastest.
// What to look for: the choice and the candidates' times in the run's header, and whether the
// derived choice agrees with the measured one (on an H100 and an H200 it need not).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cudatutorial/tuning.hpp"
#include "stages/vectorized_candidates.hpp"

namespace reduction::adaptive {

/// What the derivation reads off the device (cc_major: the L2 hint needs 8; the SM count,
/// resident threads per SM, bandwidth). The constants it combines them with (the DRAM latency
/// Little's law assumes, the margin over it) come from the per-architecture table of
/// cudatutorial/tuning.hpp.
using DeviceFigures = cudatutorial::tuning::DeviceFigures;

/// The parameters stages 10-12 run with.
struct VectorizedChoice {
    int variant = 1;            ///< index into detail::kVectorizedVariants
    int occupancy_divisor = 1;  ///< launch resident blocks per SM / this, per SM
    bool tuned = false;         ///< measured by tune_vectorized(), not derived
    std::string why;            ///< one line for the run's header
};

/// Bytes each SM must keep in flight to stream at the full bandwidth (Little's law, idle
/// latency): bandwidth x the table's DRAM latency for this architecture / SMs.
double bytes_in_flight_needed_per_sm(const DeviceFigures& device);

/// (a) The first choice, from the figures alone: the L2-prefetching block-tile candidate with the
/// fewest loads per thread whose bytes in flight (resident threads x loads x 16 B) reach the
/// table's in-flight margin x the need; the plain load before sm_80; full occupancy. Pure
/// arithmetic. `resident_blocks_per_sm`: what the occupancy calculator allows at `block` threads.
VectorizedChoice derive_vectorized_choice(const DeviceFigures& device, int block,
                                          int resident_blocks_per_sm);

/// One timed candidate of a tuning pass.
struct TunedCandidate {
    int variant = 0;
    int occupancy_divisor = 1;
    unsigned int grid = 0;
    double median_ms = 0;
};

/// What tune_vectorized() measured and chose, for one device, block size and tuning size: what
/// the executable passes to the Reducers of stages 10-12 (Reducer's constructor).
struct TuningResult {
    int device = -1;          ///< the CUDA device it was measured on
    int block = 0;            ///< threads per block it was measured with
    VectorizedChoice choice;  ///< stages 10 and 11: the fastest persistent (grid-stride) candidate
    /// Stage 12: the fastest candidate of all, one-shot ones included (equal to `choice` unless a
    /// one-shot candidate measured faster; its `why` then names it).
    VectorizedChoice single_pass_atomic_choice;
    VectorizedChoice derived;                ///< what (a) would have chosen
    std::size_t tuned_n = 0;                 ///< elements the pass timed (a prefix of the input)
    std::vector<TunedCandidate> candidates;  ///< every timed candidate, fastest first
    std::string table;                       ///< the candidates as one line for the header
};

/// Elements the tuning pass reads for an input of n: all of it up to 2^27 (512 MiB, far larger
/// than any L2, so the times are DRAM times), else that prefix.
std::size_t tuning_size(std::size_t n);

/// The candidate a stage runs over n ints in blocks of `block` on the current device: the one
/// `tuning` measured fastest (`one_shot_allowed`, stage 12: the fastest of all candidates; else
/// the fastest persistent one), or without a tuning pass (nullptr) derive_vectorized_choice()
/// with the device's figures (never one-shot). Throws std::invalid_argument when `tuning` was
/// measured on another device, with another block size, or at another tuning_size(n).
VectorizedChoice vectorized_choice(const TuningResult* tuning, std::size_t n, int block,
                                   bool one_shot_allowed = false);

}  // namespace reduction::adaptive
