/// @file tile_tuning.hpp
/// @brief Stage 8's tuning pass: every candidate shape of stages/stage8_tuned_warp_tiling.cu run
/// on the run's own data, checked, timed; the fastest correct one handed to stage 8's Multiplier
/// and named in the header. Chapter 3's way: few candidates, measured on the GPU that runs, the
/// choice and why printed, nothing cached behind the stage's back.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cudatutorial/report.hpp"
#include "matmul.hpp"

namespace matmul::tuning {

/// One candidate's showing.
struct CandidateTiming {
    int index = 0;
    std::string name;
    double median_ms = 0;  ///< 0 when it failed its check (not timed)
    bool passed = false;
    std::string detail;  ///< why it failed
};

/// What the pass found.
struct TuningResult {
    int chosen = -1;  ///< the fastest correct candidate; -1 when the shape allows no choice
    std::string skipped_because;  ///< why no candidate was timed (rows not a multiple of 4)
    std::vector<CandidateTiming> timings;
};

/// Whether the candidates differ on this shape: only where 16-byte loads are allowed (k and n
/// multiples of 4); elsewhere every candidate runs stage 7's scalar-load kernel.
bool shape_allows_tuning(const Shape& shape);

/// How a candidate's output is checked: run it (the callback runs the Multiplier it is given,
/// poisoned first) and return "" or why it is wrong.
using CheckCandidate = std::function<std::string(const Multiplier&)>;
/// Launches a Multiplier on the timed data, on a stream.
using LaunchCandidate = std::function<void(const Multiplier&, cudaStream_t)>;

/// Runs the pass: each candidate checked, then timed (median of 10 single calls after 2 warm-up
/// runs); the fastest correct one chosen. Throws std::runtime_error when none is correct.
TuningResult tune_tiles(const Shape& shape, const CheckCandidate& check,
                        const LaunchCandidate& launch);

/// Adds the choice to the header: "stage 8's shape": the chosen candidate, its time, and the
/// others' times.
void describe_choice(const TuningResult& result, cudatutorial::RunInfo& info);

}  // namespace matmul::tuning
