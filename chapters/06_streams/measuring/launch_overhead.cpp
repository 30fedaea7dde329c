#include "launch_overhead.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "measurement.hpp"
#include "timeline.hpp"

namespace streams {

namespace {

std::string fixed(double value, int decimals) {
    return cudatutorial::format_fixed(value, decimals);
}

std::string hex(std::uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", value);
    return text;
}

std::string pad(const std::string& text, std::size_t width, bool left_align) {
    const std::size_t have = display_width(text);
    if (have >= width) {
        return text;
    }
    const std::string fill(width - have, ' ');
    return left_align ? text + fill : fill + text;
}

std::string setup_text(const LaunchMeasurement& m) {
    if (m.build_us == 0 && m.instantiate_us == 0) {
        return "–";
    }
    return fixed(m.build_us, 0) + "+" + fixed(m.instantiate_us, 0);
}

}  // namespace

std::string check_graph_run(const graph::Dag& dag, std::uint32_t salt, const graph::GraphRun& run) {
    if (run.times.size() != dag.nodes.size() || run.buffer.size() != dag.elements()) {
        return "the run returned " + std::to_string(run.times.size()) + " times and " +
               std::to_string(run.buffer.size()) + " elements, expected " +
               std::to_string(dag.nodes.size()) + " and " + std::to_string(dag.elements());
    }
    for (std::size_t i = 0; i < run.times.size(); ++i) {
        const graph::NodeTime& t = run.times[i];
        if (t.start_ns == ~0ull || t.ready_ns == ~0ull || t.end_ns == ~0ull ||
            t.ready_ns < t.start_ns || t.end_ns < t.ready_ns) {
            return "kernel " + dag.nodes[i].name + " did not record its times (did it run?)";
        }
    }
    const std::vector<std::uint32_t> want = graph::reference_buffer(dag, salt);
    for (std::size_t e = 0; e < want.size(); ++e) {
        if (run.buffer[e] != want[e]) {
            return "region " + std::to_string(e / graph::kRegionWidth) + " element " +
                   std::to_string(e % graph::kRegionWidth) + " is " + hex(run.buffer[e]) +
                   ", expected " + hex(want[e]);
        }
    }
    return {};
}

double median_of(std::vector<double> values) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
}

double LaunchMeasurement::cpu_us_per_kernel() const {
    return kernels ? enqueue_us / kernels : 0.0;
}

double LaunchMeasurement::gpu_us_per_kernel() const {
    return kernels ? span_ms.median_ms * 1000.0 / kernels : 0.0;
}

LaunchMeasurement measure_launch(const graph::Dag& dag, graph::LaunchMode mode, int warmup,
                                 int repetitions, std::uint32_t salt) {
    if (warmup < 0 || repetitions < 1) {
        throw std::invalid_argument("measure_launch: warmup >= 0 and repetitions >= 1");
    }
    graph::GraphRunner runner(dag, mode);
    LaunchMeasurement m;
    m.shape = dag.shape;
    m.mode = mode;
    m.kernels = static_cast<int>(dag.nodes.size());
    m.build_us = runner.build_us();
    m.instantiate_us = runner.instantiate_us();
    if (m.instantiate_us > 0) {
        // One build is a noisy figure, and the first graph of a process also pays one-time
        // setup: report the median of a few more builds of the same graph.
        std::vector<double> builds;
        std::vector<double> instantiations;
        for (int b = 0; b < std::min(repetitions, 5); ++b) {
            const graph::GraphRunner again(dag, mode);
            builds.push_back(again.build_us());
            instantiations.push_back(again.instantiate_us());
        }
        m.build_us = median_of(builds);
        m.instantiate_us = median_of(instantiations);
    }
    std::vector<double> spans_ms;
    std::vector<double> enqueue_us;
    std::vector<double> kernel_us;
    std::vector<double> gap_us;
    const auto note = [&m](const std::string& why) {
        if (m.detail.empty()) {
            m.detail = why;
        }
    };
    for (int r = 0; r < warmup + repetitions; ++r) {
        // A new salt every run: a graph replayed on stale data, or a kernel that did not run,
        // cannot pass on the previous run's result.
        const std::uint32_t run_salt = salt + static_cast<std::uint32_t>(r);
        graph::GraphRun run = runner.run(run_salt);
        ++m.runs;
        const std::string problem = check_graph_run(dag, run_salt, run);
        if (!problem.empty()) {
            m.outputs_ok = false;
            note("run " + std::to_string(r + 1) + ": " + problem);
            continue;  // times of a run that did not complete are meaningless
        }
        const graph::TimeSummary summary = graph::summarize_times(dag, run.times);
        if (summary.edges_out_of_order > 0) {
            m.out_of_order += summary.edges_out_of_order;
            note("run " + std::to_string(r + 1) + ": " + summary.first_out_of_order);
        }
        if (r < warmup) {
            continue;
        }
        spans_ms.push_back(static_cast<double>(summary.span_ns) / 1e6);
        enqueue_us.push_back(run.enqueue_us);
        kernel_us.push_back(summary.mean_kernel_ns / 1000.0);
        gap_us.push_back(summary.mean_gap_ns / 1000.0);
        m.shown = summary;
        m.shown_times = std::move(run.times);
    }
    if (!spans_ms.empty()) {
        m.span_ms = cudatutorial::summarize(spans_ms);
    }
    m.enqueue_us = median_of(enqueue_us);
    m.kernel_us = median_of(kernel_us);
    m.gap_us = median_of(gap_us);
    return m;
}

cudatutorial::ResultRow launch_row(const std::string& id, const LaunchMeasurement& m) {
    cudatutorial::ResultRow row = scenario_row(id, m.shape + ", " + graph::mode_name(m.mode),
                                               m.span_ms, {m.passed(), m.detail});
    row.with("kernels", std::to_string(m.kernels))
        .with("max at once", std::to_string(m.shown.max_at_once))
        .with("sum/wall", fixed(m.shown.sum_over_span, 2))
        .with("CPU µs/kernel", fixed(m.cpu_us_per_kernel(), 3))
        .with("GPU µs/kernel", fixed(m.gpu_us_per_kernel(), 2))
        .with("kernel µs", fixed(m.kernel_us, 2))
        .with("gap µs", fixed(m.gap_us, 2))
        .with("setup µs", setup_text(m));
    return row;
}

std::vector<KernelRecord> graph_kernel_records(const graph::Dag& dag,
                                               const std::vector<graph::NodeTime>& times,
                                               graph::LaunchMode mode) {
    if (times.size() != dag.nodes.size()) {
        throw std::invalid_argument("graph_kernel_records: one time per node");
    }
    const bool in_graph = mode == graph::LaunchMode::kCapturedGraph ||
                          mode == graph::LaunchMode::kExplicitGraph ||
                          mode == graph::LaunchMode::kProgrammaticGraph;
    std::vector<KernelRecord> records;
    records.reserve(times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        const graph::Node& node = dag.nodes[i];
        KernelRecord record;
        record.name = node.name;
        record.role = Role::kWorker;
        const bool branch_node = node.kind == graph::NodeKind::kStep && dag.shape == "fork-join";
        if (in_graph) {
            record.stream = branch_node ? "graph, branch " + std::to_string(node.stream + 1)
                                        : std::string("graph");
        } else {
            record.stream = "s" + std::to_string(node.stream + 1) + " non-blocking";
        }
        record.stream_kind = StreamKind::kNonBlocking;
        record.stream_id = static_cast<std::uint64_t>(node.stream + 1);
        record.sm = times[i].sm;
        record.start_ns = times[i].start_ns;
        record.end_ns = times[i].end_ns;
        records.push_back(std::move(record));
    }
    return records;
}

std::vector<cudatutorial::ResultRow> run_launch_overhead(std::ostream& out,
                                                         const ScenarioConfig& config, int warmup,
                                                         int repetitions, int width,
                                                         const cudatutorial::DeviceInfo& device) {
    const ScenarioInfo& info = scenario_info(kLaunchOverheadScenario);
    const std::vector<graph::Dag> shapes = launch_overhead_shapes(config);
    out << "== scenario " << info.id << ": " << info.name << " ==\n" << info.idea << "\n";
    out << "chain: " << shapes[0].nodes.size() << " kernels in one stream; fork-join: a root, "
        << config.graph_branches << " branches of " << launch_overhead_depth(config)
        << " kernels (one stream each when launched one by one), a join: " << shapes[1].nodes.size()
        << " kernels\n";
    out << "each kernel: one warp updating " << graph::kRegionWidth
        << " integers (x = 3x + c, c different for every kernel, so the result depends on the "
           "order); checked exactly after every run\n";
    out << "CPU µs/kernel: host time of the launch calls (one cudaGraphLaunch for a graph) / "
           "kernels; GPU µs/kernel: first kernel start to last kernel end (%globaltimer) / "
           "kernels;\nkernel µs: a kernel's own work; gap µs: from a kernel's end to its "
           "successor's start of work; setup µs: graph build + instantiate, paid once\n";
    out << "medians of " << repetitions << " timed runs (" << warmup
        << " warm-up runs checked too)\n";

    std::vector<graph::LaunchMode> modes;
    for (const auto mode : graph::launch_modes()) {
        const std::string why = graph::unsupported_reason(mode, device.cc_major, device.cc_minor);
        if (why.empty()) {
            modes.push_back(mode);
        } else {
            out << "note: " << graph::mode_name(mode) << " left out: " << why << "\n";
        }
    }
    out << "\n";

    const std::vector<std::string> header = {"shape",    "mode",      "kernels", "CPU µs/k",
                                             "GPU µs/k", "kernel µs", "gap µs",  "max at once",
                                             "setup µs", "result"};
    const std::vector<std::size_t> widths = {10, 15, 7, 9, 9, 9, 7, 11, 10, 6};
    const auto line = [&](const std::vector<std::string>& cells) {
        out << "  ";
        for (std::size_t c = 0; c < cells.size(); ++c) {
            out << pad(cells[c], widths[c], c < 2) << (c + 1 < cells.size() ? "  " : "\n");
        }
    };
    line(header);

    std::vector<cudatutorial::ResultRow> rows;
    std::vector<std::string> failures;
    char letter = 'a';
    for (const auto& dag : shapes) {
        for (const auto mode : modes) {
            const LaunchMeasurement m = measure_launch(dag, mode, warmup, repetitions, config.salt);
            line({m.shape, graph::mode_name(m.mode), std::to_string(m.kernels),
                  fixed(m.cpu_us_per_kernel(), 3), fixed(m.gpu_us_per_kernel(), 2),
                  fixed(m.kernel_us, 2), fixed(m.gap_us, 2), std::to_string(m.shown.max_at_once),
                  setup_text(m), m.passed() ? "PASS" : "FAIL"});
            if (!m.detail.empty()) {
                failures.push_back(m.shape + ", " + graph::mode_name(m.mode) + ": " + m.detail);
            }
            rows.push_back(launch_row(info.id + letter, m));
            ++letter;
        }
    }
    for (const auto& failure : failures) {
        out << "  FAILED: " << failure << "\n";
    }

    // The fork-join kernel by kernel, small enough for one row each: launched one by one and as
    // a graph, on one time axis.
    const graph::Dag demo = launch_overhead_demo_shape(config);
    out << "\nthe fork-join with " << config.graph_branches << " branches of "
        << kLaunchOverheadDemoDepth << ", kernel by kernel (the last of " << repetitions
        << " timed runs)\n";
    std::vector<LaunchMeasurement> demos;
    for (const auto mode : {graph::LaunchMode::kStreams, graph::LaunchMode::kCapturedGraph}) {
        demos.push_back(measure_launch(demo, mode, warmup, repetitions, config.salt));
    }
    TimeAxis axis;
    axis.width = width;
    for (const auto& m : demos) {
        axis.span_ns = std::max(axis.span_ns, m.shown.span_ns);
    }
    for (auto& m : demos) {
        out << graph::mode_name(m.mode) << "\n";
        if (!m.shown_times.empty()) {
            out << render_timeline(graph_kernel_records(demo, m.shown_times, m.mode), axis);
        }
        out << "  -> span " << format_us(m.shown.span_ns) << " µs, at most " << m.shown.max_at_once
            << (m.shown.max_at_once == 1 ? " kernel" : " kernels")
            << " at once, mean gap along an edge " << fixed(m.shown.mean_gap_ns / 1000.0, 2)
            << " µs; " << (m.passed() ? "every run correct" : "FAILED: " + m.detail) << "\n";
        if (!m.passed()) {
            // The demo has no row of its own: its failure fails the matching fork-join row.
            for (auto& row : rows) {
                if (row.name == std::string("fork-join, ") + graph::mode_name(m.mode)) {
                    row.passed = false;
                    if (row.detail.empty()) {
                        row.detail = "timeline demo: " + m.detail;
                    }
                }
            }
        }
    }
    out << "\n";
    return rows;
}

}  // namespace streams
