#include "measurement.hpp"

#include <algorithm>
#include <stdexcept>

#include "cudatutorial/clocks.hpp"

namespace streams {

ScenarioMeasurement measure_scenario(Build build, int scenario, const ScenarioConfig& config,
                                     int warmup, int repetitions) {
    if (warmup < 0 || repetitions < 1) {
        throw std::invalid_argument("measure_scenario: warmup >= 0 and repetitions >= 1");
    }
    ScenarioMeasurement measurement;
    measurement.scenario = scenario;
    measurement.build = build;
    measurement.config = config;
    std::vector<double> walls_ms;
    const auto note_failure = [&](const std::string& why) {
        if (measurement.detail.empty()) {
            measurement.detail = why;
        }
    };
    // Each run is one blocking call: the clocks are read beside it, every 50 ms.
    const cudatutorial::ClockSampler clocks;
    for (int run = 0; run < warmup + repetitions; ++run) {
        ScenarioConfig this_run = config;
        this_run.salt = config.salt + static_cast<std::uint32_t>(run);
        ScenarioRun result = run_scenario(build, scenario, this_run);
        const RunSummary summary = summarize_run(result.kernels);
        if (!result.outputs_ok) {
            measurement.outputs_ok = false;
            note_failure("run " + std::to_string(run + 1) + ": " + result.output_detail);
        }
        if (summary.forbidden_overlaps > 0) {
            measurement.forbidden_overlaps += summary.forbidden_overlaps;
            note_failure("run " + std::to_string(run + 1) + ": " + summary.first_forbidden +
                         " overlapped although the stream rules order them");
        }
        if (run < warmup) {
            continue;
        }
        walls_ms.push_back(static_cast<double>(summary.span_ns) / 1e6);
        if (measurement.runs.empty()) {
            measurement.min_overlapping_pairs = summary.overlapping_pairs;
            measurement.max_overlapping_pairs = summary.overlapping_pairs;
        }
        measurement.min_overlapping_pairs =
            std::min(measurement.min_overlapping_pairs, summary.overlapping_pairs);
        measurement.max_overlapping_pairs =
            std::max(measurement.max_overlapping_pairs, summary.overlapping_pairs);
        measurement.runs.push_back(summary);
        measurement.shown = std::move(result);
        measurement.shown_summary = summary;
    }
    measurement.wall_ms = cudatutorial::summarize(walls_ms);
    return measurement;
}

cudatutorial::ResultRow scenario_row(const std::string& id, const std::string& name,
                                     const cudatutorial::Stats& stats,
                                     const cudatutorial::Verification& verdict) {
    namespace ct = cudatutorial;
    ct::Measurement measured;
    measured.stats = stats;
    measured.before = verdict;
    measured.after = verdict;
    // Role baseline: a row of its own, outside the x prev chain.
    ct::ResultRow row = ct::reported_row(
        ct::StageDescriptor(id, name, "", ct::StageRole::kBaseline), ct::StageHooks(), measured);
    if (stats.samples == 0) {
        row.timed = false;
    }
    row.detail = verdict.detail;
    return row;
}

}  // namespace streams
