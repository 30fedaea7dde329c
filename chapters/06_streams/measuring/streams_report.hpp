/// @file streams_report.hpp
/// @brief What the streams program prints and writes: a text timeline per scenario and build,
/// a summary table (cudatutorial::ResultTable), the timeline as CSV (one line per kernel) and
/// JSON (a "timelines" document attached to the summary table's JSON).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cudatutorial/report.hpp"
#include "measurement.hpp"

namespace streams {

/// Prints one scenario: its description, then for each build in `builds` (the same scenario)
/// the rule, the timeline (one row per kernel; for scenario 5 a concurrency profile) on a time
/// axis shared by all builds, and the summary lines.
void print_scenario(std::ostream& out, const std::vector<ScenarioMeasurement>& builds, int width);

/// The summary lines under one timeline ("0 of 28 worker pairs overlapped (the rules allow 0)...").
std::string describe_measurement(const ScenarioMeasurement& measurement,
                                 const std::string& indent = "  ");

/// One row of the summary table: wall time statistics and the overlap columns.
cudatutorial::ResultRow summary_row(const ScenarioMeasurement& measurement);

/// The timeline as CSV: one line per kernel of each shown run, times in µs from the run's first
/// kernel start, with the GPU and date on every line.
void write_timeline_csv(std::ostream& out, const cudatutorial::RunInfo& info,
                        const std::vector<ScenarioMeasurement>& measurements);

/// The timelines as a JSON array (one object per scenario and build, with its kernels), which
/// the program attaches to the summary table's JSON as "timelines" (ResultTable::attach).
std::string timelines_json(const std::vector<ScenarioMeasurement>& measurements);

/// Writes the timeline CSV (write_timeline_csv) to `csv_path`; an empty path: nothing. Throws
/// cudatutorial::UsageError when the file cannot be written.
void write_timeline_file(const std::string& csv_path, const cudatutorial::RunInfo& info,
                         const std::vector<ScenarioMeasurement>& measurements);

}  // namespace streams
