#include "streams_report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cudatutorial/check.hpp"

namespace streams {

namespace {

std::string fixed(double value, int decimals) {
    return cudatutorial::format_fixed(value, decimals);
}

std::string us_from_ms(double ms) {
    return fixed(ms * 1000.0, 1);
}

std::string number(double value, const char* format = "%.3f") {
    char text[40];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string overlap_range(const ScenarioMeasurement& m) {
    return m.min_overlapping_pairs == m.max_overlapping_pairs
               ? std::to_string(m.max_overlapping_pairs)
               : std::to_string(m.min_overlapping_pairs) + "-" +
                     std::to_string(m.max_overlapping_pairs);
}

const char* rule_for(const ScenarioInfo& info, Build build) {
    return build == Build::kLegacy ? info.legacy_rule : info.per_thread_rule;
}

}  // namespace

std::string describe_measurement(const ScenarioMeasurement& m, const std::string& indent) {
    const RunSummary& s = m.shown_summary;
    std::ostringstream out;
    out << indent << "-> " << s.overlapping_pairs << " of " << s.worker_pairs
        << " worker pairs overlapped (the stream rules allow " << s.allowed_pairs << "); at most "
        << s.max_concurrent << " worker" << (s.max_concurrent == 1 ? "" : "s")
        << " running at once, on " << s.sms_used << " SM" << (s.sms_used == 1 ? "" : "s") << "\n";
    out << indent << "   wall time " << format_us(s.span_ns)
        << " µs; the workers' own times add up to " << format_us(s.sum_worker_ns)
        << " µs (sum / wall = " << fixed(s.concurrency(), 2) << ")\n";
    const double event_us = m.shown.legacy_event_ms * 1000.0;
    out << indent << "   two events on the legacy default stream around the launches: "
        << us_from_ms(m.shown.legacy_event_ms) << " µs";
    if (event_us < 0.9 * static_cast<double>(s.span_ns) / 1000.0) {
        out << " - shorter than the wall time: the second event did not wait for every stream";
    }
    out << "\n";
    out << indent << "   over " << m.runs.size() << " runs: wall median "
        << us_from_ms(m.wall_ms.median_ms) << " µs (" << us_from_ms(m.wall_ms.min_ms) << "-"
        << us_from_ms(m.wall_ms.max_ms) << "), overlapping pairs " << overlap_range(m)
        << (m.min_overlapping_pairs == m.max_overlapping_pairs ? " in every run" : "") << "; "
        << (m.outputs_ok ? "every kernel's output correct" : "WRONG OUTPUT") << "; "
        << (m.forbidden_overlaps == 0
                ? "no overlap the rules forbid"
                : std::to_string(m.forbidden_overlaps) + " overlaps the rules FORBID")
        << "\n";
    if (!m.detail.empty()) {
        out << indent << "   FAILED: " << m.detail << "\n";
    }
    return out.str();
}

void print_scenario(std::ostream& out, const std::vector<ScenarioMeasurement>& builds, int width) {
    if (builds.empty()) {
        return;
    }
    const ScenarioMeasurement& first = builds.front();
    const ScenarioInfo& info = scenario_info(first.scenario);
    const ScenarioConfig& config = first.config;
    out << "== scenario " << info.id << ": " << info.name << " ==\n" << info.idea << "\n";
    out << info.launches(config) << "\n";
    out << "shown: the last of " << first.runs.size() << " timed runs\n\n";

    TimeAxis axis;
    axis.width = width;
    axis.span_ns = 1;
    int most_at_once = 1;
    for (const auto& m : builds) {
        axis.span_ns = std::max(axis.span_ns, m.shown_summary.span_ns);
        most_at_once = std::max(most_at_once, m.shown_summary.max_concurrent);
    }
    for (const auto& m : builds) {
        out << build_name(m.build) << " build, compiled with " << build_compile_flag(m.build)
            << "\n";
        out << "  rule: " << rule_for(info, m.build) << "\n";
        if (info.concurrency_profile) {
            out << render_concurrency_profile(m.shown.kernels, axis.span_ns, 16, most_at_once,
                                              std::min(width, 64));
        } else {
            out << render_timeline(m.shown.kernels, axis);
        }
        out << describe_measurement(m) << "\n";
    }
}

cudatutorial::ResultRow summary_row(const ScenarioMeasurement& m) {
    const ScenarioInfo& info = scenario_info(m.scenario);
    cudatutorial::ResultRow row = scenario_row(info.id + (m.build == Build::kLegacy ? "L" : "P"),
                                               info.name, m.wall_ms, {m.passed(), m.detail});
    const RunSummary& s = m.shown_summary;
    row.with("build", build_name(m.build))
        .with("kernels", std::to_string(s.kernels))
        .with("overlapping pairs", overlap_range(m) + "/" + std::to_string(s.worker_pairs))
        .with("rules allow", std::to_string(s.allowed_pairs))
        .with("max at once", std::to_string(s.max_concurrent))
        .with("sum/wall", fixed(s.concurrency(), 2))
        .with("legacy-stream events ms", cudatutorial::format_ms(m.shown.legacy_event_ms));
    return row;
}

void write_timeline_csv(std::ostream& out, const cudatutorial::RunInfo& info,
                        const std::vector<ScenarioMeasurement>& measurements) {
    using cudatutorial::csv_cell;
    out << "program,gpu,timestamp,scenario,scenario_key,build,kernel,role,stream,stream_kind,"
           "stream_id,host_thread,sm,start_us,end_us,duration_us\n";
    for (const auto& m : measurements) {
        const auto& kernels = m.shown.kernels;
        const std::uint64_t origin = m.shown_summary.first_start_ns;
        for (const auto& k : kernels) {
            out << csv_cell(info.program) << "," << csv_cell(info.gpu_name) << ","
                << csv_cell(info.timestamp) << "," << m.scenario << ","
                << csv_cell(scenario_info(m.scenario).name) << "," << build_name(m.build) << ","
                << csv_cell(k.name) << "," << role_name(k.role) << "," << csv_cell(k.stream) << ","
                << csv_cell(stream_kind_name(k.stream_kind)) << "," << k.stream_id << ","
                << k.host_thread << "," << k.sm << ","
                << number(static_cast<double>(k.start_ns - origin) / 1000.0) << ","
                << number(static_cast<double>(k.end_ns - origin) / 1000.0) << ","
                << number(static_cast<double>(k.duration_ns()) / 1000.0) << "\n";
        }
    }
}

std::string timelines_json(const std::vector<ScenarioMeasurement>& measurements) {
    using cudatutorial::json_string;
    std::ostringstream out;
    out << "[";
    for (std::size_t i = 0; i < measurements.size(); ++i) {
        const ScenarioMeasurement& m = measurements[i];
        const RunSummary& s = m.shown_summary;
        const ScenarioInfo& info = scenario_info(m.scenario);
        out << (i ? "," : "") << "\n    {\"scenario\": " << m.scenario
            << ", \"key\": " << json_string(info.name)
            << ", \"build\": " << json_string(build_name(m.build))
            << ", \"compiled\": " << json_string(build_compile_flag(m.build))
            << ", \"timed_runs\": " << m.runs.size()
            << ",\n     \"summary\": {\"kernels\": " << s.kernels << ", \"workers\": " << s.workers
            << ", \"worker_pairs\": " << s.worker_pairs
            << ", \"overlapping_pairs\": " << s.overlapping_pairs
            << ", \"allowed_pairs\": " << s.allowed_pairs
            << ", \"forbidden_overlaps\": " << s.forbidden_overlaps
            << ", \"max_concurrent\": " << s.max_concurrent << ", \"sms_used\": " << s.sms_used
            << ", \"wall_us\": " << number(static_cast<double>(s.span_ns) / 1000.0)
            << ", \"sum_worker_us\": " << number(static_cast<double>(s.sum_worker_ns) / 1000.0)
            << ", \"legacy_stream_events_us\": " << number(m.shown.legacy_event_ms * 1000.0)
            << ", \"outputs_ok\": " << (m.outputs_ok ? "true" : "false")
            << "},\n     \"kernels\": [";
        for (std::size_t k = 0; k < m.shown.kernels.size(); ++k) {
            const KernelRecord& r = m.shown.kernels[k];
            out << (k ? "," : "") << "\n      {\"name\": " << json_string(r.name)
                << ", \"role\": " << json_string(role_name(r.role))
                << ", \"stream\": " << json_string(r.stream)
                << ", \"stream_kind\": " << json_string(stream_kind_name(r.stream_kind))
                << ", \"stream_id\": " << r.stream_id << ", \"host_thread\": " << r.host_thread
                << ", \"sm\": " << r.sm << ", \"start_us\": "
                << number(static_cast<double>(r.start_ns - s.first_start_ns) / 1000.0)
                << ", \"end_us\": "
                << number(static_cast<double>(r.end_ns - s.first_start_ns) / 1000.0) << "}";
        }
        out << "]}";
    }
    out << "\n  ]";
    return out.str();
}

void write_timeline_file(const std::string& csv_path, const cudatutorial::RunInfo& info,
                         const std::vector<ScenarioMeasurement>& measurements) {
    if (csv_path.empty()) {
        return;
    }
    std::ofstream file(csv_path);
    write_timeline_csv(file, info, measurements);
    if (!file) {
        throw cudatutorial::UsageError("--csv", "cannot write '" + csv_path + "'");
    }
}

}  // namespace streams
