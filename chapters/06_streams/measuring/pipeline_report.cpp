// What scenario 8 prints: the stage times, the K sweep, and a timeline per schedule.
#include <algorithm>
#include <ostream>
#include <sstream>

#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "measurement.hpp"
#include "scenarios/pipeline_overlap.hpp"
#include "timeline.hpp"

namespace streams::pipeline {

namespace ct = cudatutorial;

namespace {

char stage_mark(Stage stage) {
    switch (stage) {
        case Stage::kCopyIn:
            return 'H';
        case Stage::kKernel:
            return 'K';
        case Stage::kCopyOut:
            return 'D';
    }
    return '?';
}

std::string us(std::uint64_t ns) {
    return format_us(ns);
}

std::string ms(double value) {
    return ct::format_ms(value);
}

// Copies and kernels of one timeline as intervals, for the overlap sums.
std::vector<Interval> intervals_of(const Timeline& timeline, bool kernels) {
    std::vector<Interval> result;
    for (const auto& op : timeline.ops) {
        if ((op.stage == Stage::kKernel) == kernels) {
            result.push_back(op.interval);
        }
    }
    return result;
}

}  // namespace

std::string render_pipeline_timeline(const Timeline& timeline, std::uint64_t axis_ns, int width,
                                     const std::string& indent) {
    int streams_used = 0;
    for (const auto& op : timeline.ops) {
        streams_used = std::max(streams_used, op.stream + 1);
    }
    TimeAxis axis;
    axis.span_ns = std::max<std::uint64_t>(axis_ns, 1);
    axis.width = width;
    std::ostringstream out;
    out << indent << "stream  "
        << " " << axis_labels(axis) << "\n";
    for (int s = 0; s < streams_used; ++s) {
        std::string row(static_cast<std::size_t>(width), ' ');
        for (const auto& op : timeline.ops) {
            if (op.stream != s) {
                continue;
            }
            // timeline_bar marks the columns an interval touches ('#'); the waiting part of a
            // copy goes in first, so that the copy's own letters overwrite shared columns.
            const auto overlay = [&](std::uint64_t start, std::uint64_t end, char mark) {
                KernelRecord record;
                record.start_ns = start;
                record.end_ns = end;
                const std::string bar = timeline_bar(record, 0, axis);
                for (std::size_t c = 0; c < row.size(); ++c) {
                    if (bar[c] == '#' || bar[c] == '>') {
                        row[c] = mark;
                    }
                }
            };
            if (op.waited_ns > 0 && op.waited_ns <= op.interval.start_ns) {
                overlay(op.interval.start_ns - op.waited_ns, op.interval.start_ns, '.');
            }
            overlay(op.interval.start_ns, op.interval.end_ns, stage_mark(op.stage));
        }
        std::string label = "s" + std::to_string(s);
        label.resize(8, ' ');
        out << indent << label << "|" << row << "|\n";
    }
    return out.str();
}

void print_pipeline(std::ostream& out, const PipelineResult& r, int width) {
    out << "vector: " << r.n << " 32-bit elements ("
        << ct::format_bytes(static_cast<double>(r.n) * 4) << " each way), pinned host memory; "
        << "kernel: " << r.rounds << " steps of x -> a x + b per element"
        << (r.calibrated ? " (chosen so that it takes about as long as the longer copy)" : "")
        << "\ncopy engines (cudaDevAttrAsyncEngineCount): " << r.copy_engines << "\n"
        << "each stage alone over the whole vector (median): H2D " << ms(r.stages.copy_in_ms)
        << " ms, kernel " << ms(r.stages.kernel_ms) << " ms, D2H " << ms(r.stages.copy_out_ms)
        << " ms, H2D and D2H at once " << ms(r.stages.both_copies_ms) << " ms; sum "
        << ms(r.stages.sum_ms()) << " ms, slowest resource "
        << ms(steady_state_bound_ms(r.stages, r.copy_engines)) << " ms"
        << (r.stages_passed ? "" : "  FAILED: " + r.stages_detail) << "\n"
        << "ideal for K chunks = (sum + (K - 1) x slowest) / K: the first chunk alone, then one "
           "slot of the bottleneck per chunk\n\n";

    // The sweep: one line per K, the three schedules side by side.
    std::vector<std::vector<std::string>> rows = {{"K", "one_stream ms", "depth_first ms",
                                                   "breadth_first ms", "ideal ms", "sum ms",
                                                   "best / ideal"}};
    std::vector<int> ks;
    for (const auto& run : r.runs) {
        if (std::find(ks.begin(), ks.end(), run.chunks) == ks.end()) {
            ks.push_back(run.chunks);
        }
    }
    for (const int k : ks) {
        std::vector<std::string> row = {std::to_string(k),     "", "", "", "",
                                        ms(r.stages.sum_ms()), ""};
        double best = 0.0;
        double ideal = 0.0;
        for (const auto& run : r.runs) {
            if (run.chunks != k) {
                continue;
            }
            const std::size_t column = 1 + static_cast<std::size_t>(run.schedule);
            row[column] = ms(run.total_ms.median_ms) + (run.passed ? "" : " FAIL");
            if (run.schedule != Schedule::kOneStream) {
                ideal = run.ideal_ms;
                best =
                    best == 0.0 ? run.total_ms.median_ms : std::min(best, run.total_ms.median_ms);
            }
        }
        row[4] = ms(ideal);
        row[6] = ideal > 0 ? ct::format_fixed(best / ideal, 2) : "-";
        rows.push_back(row);
    }
    ct::print_aligned(out, rows, {});
    out << "\n";

    out << "timelines: kernels from %globaltimer (earliest block start, latest block end); each "
           "copy from two events in its stream (ready, done), moved onto the same axis. Copies "
           "of one direction are drawn one after another in the order they completed: that the "
           "engine was busy is measured, which chunk it was moving at each moment is inferred.\n";
    std::uint64_t axis_ns = 1;
    for (const auto& run : r.runs) {
        if (run.has_timeline) {
            axis_ns = std::max(axis_ns, run.timeline.span_ns);
        }
    }
    for (const auto& run : r.runs) {
        if (!run.has_timeline) {
            continue;
        }
        const Timeline& t = run.timeline;
        const std::vector<Interval> copies = intervals_of(t, false);
        const std::vector<Interval> kernels = intervals_of(t, true);
        out << schedule_key(run.schedule) << ", K = " << run.chunks
            << " (one instrumented pass; H copy in, K kernel, D copy out, . a copy waiting for "
               "its engine)\n"
            << render_pipeline_timeline(t, axis_ns, width);
        out << "  -> span " << us(t.span_ns) << " µs; kernels busy " << us(busy_ns(kernels))
            << " µs, copies busy " << us(busy_ns(copies)) << " µs, both at once "
            << us(overlap_ns(copies, kernels)) << " µs; median of the timed passes "
            << ms(run.total_ms.median_ms) << " ms (ideal " << ms(run.ideal_ms) << " ms)\n";
        out << "     copies placed on the %globaltimer axis within ±"
            << ct::format_fixed(t.offset.uncertainty_ns() / 1000.0, 1) << " µs"
            << (t.offset.consistent ? ""
                                    : " (the event and kernel clocks disagreed: bracket "
                                      "empty, midpoint used)")
            << "\n";
        if (!run.passed) {
            out << "     FAILED: " << run.detail << "\n";
        }
        out << "\n";
    }
}

std::vector<ct::ResultRow> pipeline_rows(const PipelineResult& r, int shown_chunks) {
    std::vector<ct::ResultRow> rows;
    for (const auto& run : r.runs) {
        if (run.chunks != shown_chunks) {
            continue;
        }
        // The row stands for its schedule at every K: a failure at another K fails it too, so the
        // program's exit code cannot miss it.
        ct::ResultRow row = scenario_row(
            "8." + std::to_string(1 + static_cast<int>(run.schedule)),
            std::string("pipeline_") + schedule_key(run.schedule), run.total_ms,
            {r.stages_passed, r.stages_passed ? "" : "stage runs: " + r.stages_detail});
        for (const auto& other : r.runs) {
            if (other.schedule == run.schedule && !other.passed && row.passed) {
                row.passed = false;
                row.detail = "K = " + std::to_string(other.chunks) + ": " + other.detail;
            }
        }
        row.with("K", std::to_string(run.chunks))
            .with("ideal ms", ms(run.ideal_ms))
            .with("sum ms", ms(r.stages.sum_ms()))
            .with("x one stream", "");
        rows.push_back(std::move(row));
    }
    // Speed-up against the one-stream row of the same K.
    double one_stream = 0.0;
    for (const auto& row : rows) {
        if (row.id == "8.1") {
            one_stream = row.stats.median_ms;
        }
    }
    for (auto& row : rows) {
        for (auto& cell : row.extra) {
            if (cell.first == "x one stream") {
                cell.second = one_stream > 0 && row.stats.median_ms > 0
                                  ? ct::format_fixed(one_stream / row.stats.median_ms, 2)
                                  : "-";
            }
        }
    }
    return rows;
}

int shown_chunk_count(const std::vector<int>& chunk_counts) {
    if (chunk_counts.empty()) {
        return 1;
    }
    if (std::find(chunk_counts.begin(), chunk_counts.end(), 8) != chunk_counts.end()) {
        return 8;
    }
    return *std::max_element(chunk_counts.begin(), chunk_counts.end());
}

std::vector<ct::ResultRow> run_pipeline_scenario(std::ostream& out, const ScenarioConfig& config,
                                                 int warmup, int repetitions, int width) {
    const ScenarioInfo& info = scenario_info(kPipelineScenario);
    out << "== scenario " << info.id << ": " << info.name << " ==\n" << info.idea << "\n";
    PipelineConfig pipeline;
    pipeline.n = config.pipeline_n;
    pipeline.chunk_counts = config.pipeline_chunks;
    pipeline.shown_chunks = shown_chunk_count(config.pipeline_chunks);
    pipeline.rounds = config.pipeline_rounds;
    pipeline.warmup = warmup;
    pipeline.repetitions = repetitions;
    const PipelineResult result = run_pipeline(pipeline, config.device);
    print_pipeline(out, result, width);
    return pipeline_rows(result, pipeline.shown_chunks);
}

}  // namespace streams::pipeline
