/// @file adaptive_lookback.hpp
/// @brief Stage 7's tuning pass: every candidate of stages/lookback_candidates.hpp timed on the
/// run's own input, each checked first, and the fastest handed to stage 7's Scanner.
///
/// Stage 7's shape (block size, int4 vectors per thread, one tile per block or resident blocks,
/// a backoff in the look-back or none) was once a constant measured on an H100. Which shape is
/// fastest depends on the GPU (its SMs, its memory, how fast its atomics answer) and on n, so the
/// executable now measures: before the table, tune_lookback() runs each candidate once (checked
/// against the CPU reference, like every row of the table), times a few runs of it, and returns
/// the fastest; the executable writes the choice, the runner-up and every time into the table's
/// header and passes the choice to the Scanner it makes for stage 7 (as CUB hands a kernel its
/// tuning policy: no cache, nothing global). Without a tuning pass (the tests, a Scanner made
/// without a candidate) stage 7 runs its derived default, 256 threads x 8 int4 per tile.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cudatutorial/report.hpp"
#include "scan.hpp"

namespace scan::adaptive {

/// One timed candidate.
struct TunedCandidate {
    int candidate = 0;     ///< index into detail::kLookbackCandidates
    double median_ms = 0;  ///< median of the timed runs
};

/// What the tuning pass measured and chose.
struct TuningResult {
    int chosen = -1;                         ///< the fastest candidate: stage 7 runs it
    int runner_up = -1;                      ///< the second fastest (-1 with one candidate)
    std::size_t n = 0;                       ///< values each run scanned (the run's n)
    int repetitions = 0;                     ///< timed runs per candidate (median)
    std::vector<TunedCandidate> candidates;  ///< every timed candidate, fastest first
    /// Candidates not timed because they do not fit on this GPU (their shared memory per block).
    std::vector<int> skipped;
};

/// The result for these times: sorted fastest first (ties keep the candidates' order), the
/// first chosen, the second the runner-up. Throws std::invalid_argument when `timed` is empty.
/// Pure arithmetic.
TuningResult choose_fastest(std::vector<TunedCandidate> timed, std::size_t n, int repetitions);

/// How the tuning pass checks a candidate's output.
struct OutputCheck {
    std::function<void()> poison;         ///< fills the output with what no right answer holds
    std::function<std::string()> verify;  ///< "" when the output is the right scan, else why
};

/// Runs every candidate of stage 7 that fits on the current GPU (detail::candidate_fits; the others
/// are listed in `skipped`) over d_in[0..n) into d_out: once, checked with `check`
/// (throws std::runtime_error naming the candidate and why when it is wrong or a look-back wait
/// gave up), then `repetitions` timed runs after one untimed one (median). Keeps nothing: the
/// caller passes the result on (Scanner's `candidate`). At n = 2^28 the times take about 20 ms
/// a candidate on a GPU like an H100; the checks, which read 1 GiB back each, take longer.
TuningResult tune_lookback(const Value* d_in, Value* d_out, std::size_t n, Kind kind,
                           const OutputCheck& check, int repetitions = 7);

/// The header lines for `tuning`, in order: what stage 7 runs, why (with the runner-up and the
/// margin between them), every candidate's time, and (when there are any) the candidates that
/// did not fit on the GPU.
std::vector<std::pair<std::string, std::string>> choice_lines(const TuningResult& tuning);

/// Writes choice_lines() into the run's header.
void describe_choice(const TuningResult& tuning, cudatutorial::RunInfo& header);

}  // namespace scan::adaptive
