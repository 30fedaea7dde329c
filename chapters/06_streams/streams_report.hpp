/// @file streams_report.hpp
/// @brief What the streams program prints and writes: a text timeline per scenario and build,
/// a summary table (cudatutorial::ResultTable), the timeline as CSV (one line per kernel) and
/// JSON (the summary table's document with a "timelines" member added).
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

/// The timelines as a JSON array (one object per scenario and build, with its kernels).
std::string timelines_json(const std::vector<ScenarioMeasurement>& measurements);

/// Adds `"key": value_json` as the last member of the JSON object `object_json`. Throws
/// std::invalid_argument when `object_json` does not end with a closing brace.
std::string add_json_member(const std::string& object_json, const std::string& key,
                            const std::string& value_json);

/// Writes the files the options asked for (empty path: skipped): `csv_path` the timeline CSV,
/// `json_path` the summary table's JSON with "timelines" added, `summary_csv_path` the summary
/// table's CSV. Throws cudatutorial::UsageError when a file cannot be opened.
void write_result_files(const cudatutorial::ResultTable& table,
                        const std::vector<ScenarioMeasurement>& measurements,
                        const std::string& csv_path, const std::string& json_path,
                        const std::string& summary_csv_path);

}  // namespace streams
