// The compiled candidates of stage 7: the block size, how many int4 vectors each thread scans
// per tile, how blocks get their tiles (one tile per block, or resident blocks that take their
// next tile's ticket before they scan the current one), whether the look-back's wait sleeps
// between polls, how the status words are ordered, and how many more vectors per thread extend
// the tile in shared memory. stage7_vectorized_lookback.cu instantiates every candidate; which one
// runs is chosen for the GPU and the input at run time by the tuning pass of
// measuring/adaptive_lookback.hpp (without one, the stage runs the derived default below).
// Host and device code both read this table.
#pragma once

#include <string>

namespace scan::detail {

/// One compiled candidate of stage 7. Each thread scans 4 x (vectors + staged) values per tile:
/// the tile is block x 4 x (vectors + staged) values.
struct LookbackCandidate {
    int block;    ///< threads per block
    int vectors;  ///< int4 vectors per thread per tile
    /// false: one tile per block, the ticket taken before anything else (stage 7 as first
    /// written). true: a grid of resident blocks, each looping over tiles and taking the ticket
    /// of its next tile before it scans the current one, so that the atomic's latency is hidden
    /// behind a tile's work.
    bool resident;
    /// 0: the look-back polls its predecessors' status words back to back. Otherwise, between
    /// polls it sleeps (__nanosleep) 32 ns, doubling each time, up to this many ns.
    unsigned int backoff_ns;
    /// false: the status words are written and read with relaxed atomics, all the look-back
    /// needs (stage 7). true: with release and acquire, as stage 6 does, to measure what the
    /// stronger order costs on this GPU.
    bool release_acquire = false;
    /// 0: every vector of the tile in registers. Otherwise, int4 vectors per thread that extend
    /// the tile in shared memory (one tile per block): copied there with cp.async before the
    /// register vectors are loaded, so that each SM holds the bytes of its registers and of its
    /// shared memory in flight (scan_staged_lookback).
    int staged = 0;
};

/// The candidates. Kept: every one compiles without spills (ptxas -v, sm_90; the registers are
/// in the lesson's deep dive). Index kDefaultLookbackCandidate is the shape measured fastest on
/// an H100 before the tuning pass existed.
inline constexpr LookbackCandidate kLookbackCandidates[] = {
    // one tile per block
    {128, 8, false, 0},
    {128, 12, false, 0},
    {128, 16, false, 0},
    {256, 6, false, 0},
    {256, 8, false, 0},
    {256, 12, false, 0},
    {256, 16, false, 0},
    {512, 4, false, 0},
    {512, 8, false, 0},
    // resident blocks, the next ticket taken ahead
    {128, 8, true, 0},
    {128, 16, true, 0},
    {256, 8, true, 0},
    {256, 12, true, 0},
    {512, 4, true, 0},
    {512, 8, true, 0},
    // the look-back backs off between polls
    {256, 8, false, 256},
    {256, 8, true, 256},
    // stage 6's release/acquire instead of relaxed accesses, for the comparison
    {256, 8, false, 0, true},
    // the tile extended in shared memory: 32 to 112 KiB per block, which not every GPU has
    {256, 6, false, 0, false, 8},
    {256, 6, false, 0, false, 13},
    {512, 6, false, 0, false, 12},
    {512, 6, false, 0, false, 13},
    {512, 6, false, 0, false, 14},
};
inline constexpr int kLookbackCandidateCount =
    static_cast<int>(sizeof(kLookbackCandidates) / sizeof(kLookbackCandidates[0]));

/// Stage 7 without a tuning pass (the --stage list, the tests): 256 threads x 8 int4, one tile
/// per block, no backoff.
inline constexpr int kDefaultLookbackCandidate = 4;

/// Values one tile of candidate `index` holds: block x 4 x (vectors + staged).
constexpr int candidate_tile_items(int index) {
    return kLookbackCandidates[index].block * 4 *
           (kLookbackCandidates[index].vectors + kLookbackCandidates[index].staged);
}

/// "256 x 8 int4, one tile per block", "128 x 16 int4, resident blocks, backoff 256 ns".
std::string describe_candidate(int index);

/// Whether candidate `index` can run on the current device: false for a candidate whose shared
/// memory per block is more than the device gives (it also sets the kernel's shared-memory
/// attribute, once per device). Throws like check_candidate().
bool candidate_fits(int index);

/// Throws std::invalid_argument unless 0 <= index < kLookbackCandidateCount.
void check_candidate(int index);

}  // namespace scan::detail
