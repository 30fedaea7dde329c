// The tuning pass of stage 8 (b below): it times the candidates on the program's input and hands
// the choice to stage 8 in its Workspace; what stage 8 runs without it, and the whole story, is
// stages/raw_count_choice.hpp.
#pragma once

#include <string>
#include <vector>

#include "histogram.hpp"
#include "stages/raw_count_choice.hpp"

namespace histogram::adaptive {

/// One timed candidate of a tuning pass.
struct TunedCandidate {
    int variant = 0;
    int grid = 0;
    double median_ms = 0;
};

/// What tune_raw_byte_counts() measured and chose.
struct TuningResult {
    RawCountChoice choice;
    RawCountChoice derived;
    std::vector<TunedCandidate> candidates;  ///< fastest first
    std::string table;                       ///< the candidates in one line
};

/// (b) Runs every applicable candidate on `args` (its input, binning, block and grid) `reps`
/// times (median), checks that all produce the same histogram (throws std::runtime_error if
/// not) and returns what it measured, the fastest as its choice: the caller hands it to stage 8
/// (Workspace::raw_count_variant). Leaves the last candidate's histogram in args.histogram.
TuningResult tune_raw_byte_counts(const StageArgs& args, int reps = 9);

}  // namespace histogram::adaptive
