/// @file measurement.hpp
/// @brief Runs one scenario several times in one build and keeps what the tables need.
#pragma once

#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "streams.hpp"
#include "timeline.hpp"

namespace streams {

/// Repeated runs of one scenario in one build.
struct ScenarioMeasurement {
    int scenario = 0;
    Build build = Build::kLegacy;
    ScenarioConfig config;
    ScenarioRun shown;              ///< the last timed run: its timeline is printed and written
    RunSummary shown_summary;       ///< summarize_run(shown.kernels)
    std::vector<RunSummary> runs;   ///< every timed run
    cudatutorial::Stats wall_ms;    ///< span (wall time) of the timed runs, in ms
    int min_overlapping_pairs = 0;  ///< over the timed runs
    int max_overlapping_pairs = 0;  ///< over the timed runs
    int forbidden_overlaps = 0;     ///< total over all runs (warm-up included): must be 0
    bool outputs_ok = true;         ///< every run's outputs matched (warm-up included)
    std::string detail;             ///< the first failure, or empty

    /// Outputs correct and no kernel overlapped another that the stream rules order before it.
    bool passed() const { return outputs_ok && forbidden_overlaps == 0; }
};

/// Runs `scenario` in `build` `warmup` times untimed (still checked) and `repetitions` times
/// timed; each run gets its own salt, so that no run can pass on an earlier run's outputs.
ScenarioMeasurement measure_scenario(Build build, int scenario, const ScenarioConfig& config,
                                     int warmup, int repetitions);

/// The table row of a scenario measured its own way (the kernels' %globaltimer, events around a
/// copy, the host clock around a task): `stats` and `verdict` as measured, through
/// cudatutorial::reported_row, the path of every row that time_stage() does not time. Outside the
/// x prev chain (the scenarios are not steps of one optimization); not timed when `stats` holds
/// no sample; `verdict.detail` kept even when it passed (a note).
cudatutorial::ResultRow scenario_row(const std::string& id, const std::string& name,
                                     const cudatutorial::Stats& stats,
                                     const cudatutorial::Verification& verdict);

}  // namespace streams
