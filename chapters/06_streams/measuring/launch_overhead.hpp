/// @file launch_overhead.hpp
/// @brief Scenario 6: a chain and a fork-join of tiny kernels, launched one by one, as a captured
/// graph, as an explicit graph and with programmatic dependent launch; every run checked, timed
/// on the host (the launch calls) and on the GPU (%globaltimer in every kernel).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "scenarios/graph_dag.hpp"
#include "scenarios/graph_launch.hpp"
#include "streams.hpp"

namespace streams {

/// The number of the launch-overhead scenario in scenario_list().
inline constexpr int kLaunchOverheadScenario = 6;

/// Empty when `run` is right for run `salt` of `dag`: every kernel recorded its times and the
/// buffer equals the CPU reference exactly; otherwise the first problem.
std::string check_graph_run(const graph::Dag& dag, std::uint32_t salt, const graph::GraphRun& run);

/// Median of `values` (any order); 0 for none.
double median_of(std::vector<double> values);

/// Repeated runs of one shape in one mode.
struct LaunchMeasurement {
    std::string shape;
    graph::LaunchMode mode = graph::LaunchMode::kStreams;
    int kernels = 0;
    cudatutorial::Stats span_ms;  ///< GPU span of the timed runs (first start to last end)
    double enqueue_us = 0;        ///< median host time of the launch calls, per run
    double kernel_us = 0;         ///< median over runs of the mean kernel work (end - ready)
    double gap_us = 0;            ///< median over runs of the mean gap along an edge
    double build_us = 0;          ///< graph capture or node adding, median of a few (0: no graph)
    double instantiate_us = 0;    ///< cudaGraphInstantiate, median of the same builds (0: none)
    graph::TimeSummary shown;     ///< the last timed run
    std::vector<graph::NodeTime> shown_times;
    int runs = 0;            ///< runs checked, warm-up included
    int out_of_order = 0;    ///< edges whose kernels' times contradict the edge, all runs
    bool outputs_ok = true;  ///< every run's buffer matched the CPU reference
    std::string detail;      ///< the first failure, or empty

    /// Host µs per kernel to issue a run (for a graph: one cudaGraphLaunch over all kernels).
    double cpu_us_per_kernel() const;
    /// GPU span per kernel (median span / kernels).
    double gpu_us_per_kernel() const;
    /// Correct outputs and no kernel ahead of a predecessor.
    bool passed() const { return outputs_ok && out_of_order == 0; }
};

/// Runs `dag` in `mode` `warmup` + `repetitions` times with salts salt, salt + 1, ..., checking
/// every run (check_graph_run, and the edges against the kernels' times).
LaunchMeasurement measure_launch(const graph::Dag& dag, graph::LaunchMode mode, int warmup,
                                 int repetitions, std::uint32_t salt);

/// A measurement as a row of the chapter's summary table.
cudatutorial::ResultRow launch_row(const std::string& id, const LaunchMeasurement& measurement);

/// The node times as kernel records (for the chapter's timeline renderer): kernel b2.3 on
/// stream "s2" (launched one by one) or "branch 2" (in a graph).
std::vector<KernelRecord> graph_kernel_records(const graph::Dag& dag,
                                               const std::vector<graph::NodeTime>& times,
                                               graph::LaunchMode mode);

/// Runs scenario 6 on the current device: prints what it does, a line per measurement and the
/// demo's timelines to `out`, and returns the rows for the summary table. Modes the device cannot
/// run are left out with a note.
std::vector<cudatutorial::ResultRow> run_launch_overhead(std::ostream& out,
                                                         const ScenarioConfig& config, int warmup,
                                                         int repetitions, int width,
                                                         const cudatutorial::DeviceInfo& device);

}  // namespace streams
