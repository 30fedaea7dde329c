// Chapter 6, streams: the same scenario sources compiled with the legacy default stream and with
// `--default-stream per-thread`, run side by side; every kernel timed from inside with
// %globaltimer, so the timelines below are measured, not drawn.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "copy_bandwidth.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/sections.hpp"
#include "cudatutorial/stage.hpp"
#include "cudatutorial/table_run.hpp"
#include "launch_overhead.hpp"
#include "measurement.hpp"
#include "round_trip.hpp"
#include "scenarios/pipeline_overlap.hpp"
#include "streams.hpp"
#include "streams_report.hpp"
#include "timeline.hpp"

namespace ct = cudatutorial;

namespace {

struct Options {
    Options() {
        common.repetitions = 10;  // each run takes a few ms: ten timed runs per scenario and build
        common.warmup = 2;
    }
    std::vector<std::string> scenarios;  ///< ids 1..kScenarioCount, or "list"
    std::string build = "both";
    streams::ScenarioConfig config;
    std::uint64_t n = streams::ScenarioConfig{}.n;
    std::uint64_t copy_max = streams::ScenarioConfig{}.copy_max_bytes;
    std::uint64_t pipeline_n = streams::ScenarioConfig{}.pipeline_n;
    int width = 64;
    std::string summary_csv;
    ct::CommonOptions common;
};

void add_options(CLI::App& app, Options& o) {
    // --stage, as in every chapter; --scenario, its first name, still works.
    app.add_option("--stage,--scenario", o.scenarios,
                   "scenarios to run, comma-separated: 1 created/default/created, 2 the same with "
                   "a non-blocking stream, 3 default-stream kernels between N streams, 4 N host "
                   "threads, 5 the concurrent-kernel limit, 6 launch overhead and CUDA graphs, "
                   "7 pinned vs pageable copy bandwidth, 8 the copy/compute pipeline, 9 a "
                   "persistent kernel fed through a doorbell (default: 1-8; 9 runs only when "
                   "named: its kernel stays resident, spinning); or list (the scenarios, without a "
                   "GPU; with --json: as JSON)")
        ->delimiter(',')
        ->check(CLI::Validator(
            [](std::string& item) -> std::string {
                if (item == "list" || CLI::Range(1, streams::kScenarioCount)(item).empty()) {
                    return {};
                }
                return item + " is not a scenario: give 1 to " +
                       std::to_string(streams::kScenarioCount) +
                       " (comma-separated for several) or list (see --help)";
            },
            "1.." + std::to_string(streams::kScenarioCount) + " or list", "SCENARIO"));
    app.add_option("--build", o.build, "which compilation runs: legacy, per-thread or both")
        ->check(CLI::IsMember({"legacy", "per-thread", "both"}))
        ->capture_default_str();
    app.add_option("--streams", o.config.streams,
                   "N: created streams in scenario 3, host threads in scenario 4")
        ->check(CLI::Range(2, 64))
        ->capture_default_str();
    app.add_option(
           "--kernel-us", o.config.kernel_us,
           "how long each worker kernel of scenarios 1-4 runs, in microseconds (it spins "
           "on %globaltimer after writing its elements, so the time is the same on any GPU)")
        ->check(CLI::Range(1.0, 1e6))
        ->capture_default_str();
    ct::add_size_option(app, "--n", o.n,
                        "work size: elements each worker kernel writes and the program checks, "
                        "and each task of scenario 9 updates (1 to 2^20; a large n can make a "
                        "kernel outlast --kernel-us)");
    app.add_option("--probe-kernels", o.config.probe_kernels,
                   "K: kernels (one stream each) in scenario 5")
        ->check(CLI::Range(1, 2048))
        ->capture_default_str();
    app.add_option("--probe-us", o.config.probe_us,
                   "how long each kernel of scenario 5 runs, in microseconds")
        ->check(CLI::Range(1.0, 1e6))
        ->capture_default_str();
    app.add_option("--graph-kernels", o.config.graph_kernels,
                   "kernels of scenario 6's chain; its fork-join splits as many over the branches")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--graph-branches", o.config.graph_branches,
                   "branches (streams) of scenario 6's fork-join")
        ->check(CLI::Range(1, 32))
        ->capture_default_str();
    ct::add_size_option(app, "--copy-max", o.copy_max,
                        "largest copy of scenario 7 in bytes (sizes from 4 KiB in x16 steps up "
                        "to it; a multiple of 4, at most 1Gi)");
    ct::add_size_option(app, "--pipeline-n", o.pipeline_n,
                        "32-bit elements of scenario 8's vector (1 to 2^28)");
    app.add_option("--chunks", o.config.pipeline_chunks,
                   "K values of scenario 8, comma-separated (1 to 64 each, at most --pipeline-n); "
                   "the timelines show K = 8, or the largest K without an 8")
        ->delimiter(',')
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    app.add_option("--rounds", o.config.pipeline_rounds,
                   "steps per element of scenario 8's kernel (0: chosen so that the kernel takes "
                   "as long as the longer copy)")
        ->check(CLI::Range(0u, 1000000u))
        ->capture_default_str();
    app.add_option("--tasks", o.config.persistent_tasks,
                   "timed tasks of scenario 9 for each way, one at a time (after a tenth as many "
                   "warm-up tasks, at least 20)")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    app.add_option("--idle-limit-ms", o.config.idle_limit_ms,
                   "scenario 9's persistent kernel ends, with an error, after this long without a "
                   "task (milliseconds)")
        ->check(CLI::Range(10u, 60000u))
        ->capture_default_str();
    app.add_option("--width", o.width, "columns of the text timelines")
        ->check(CLI::Range(20, 400))
        ->capture_default_str();
    app.add_option("--summary-csv", o.summary_csv,
                   "also write the summary table as CSV to FILE (--csv writes the timeline)")
        ->check(ct::writable_file_validator());
    ct::add_common_options(app, o.common, ct::L2FlushOption::kNotListed);
    app.get_option("--reps")->description(
        "timed runs per scenario and build (median wall time reported, last run's timeline shown)");
    app.get_option("--warmup")->description("untimed (but checked) runs before the timed ones");
    app.get_option("--csv")->description(
        "also write the timeline (one line per kernel) as CSV to FILE");
    app.get_option("--json")->description(
        "also write the summary table and every timeline as JSON to FILE");
}

// --stage list: the scenarios, as stage descriptors (id, key, what is launched).
int list_scenarios(const Options& o) {
    return ct::list_stages(o.common, "streams", {{"", ct::descriptors(streams::scenario_list())}});
}

// Scenario 9's rows compare with their own baseline (9a, launch + synchronize), in a group of
// their own (the task), so that no other scenario's row is compared with it.
void prepare_persistent_rows(ct::TableRun& table, const streams::ScenarioConfig& config) {
    table.info().set(
        "tasks",
        std::to_string(config.persistent_tasks) + " timed + " +
            std::to_string(streams::persistent::warmup_tasks_for(config.persistent_tasks)) +
            " warm-up per way, idle limit " + std::to_string(config.idle_limit_ms) + " ms");
    table.set_group_column("task");
    table.set_baseline("9a", "launch+sync");
    table.add_note(
        "scenario 9: round trip of one task timed on the host (std::chrono::steady_clock, from "
        "posting the task to holding its receipt): a resident kernel has no launch per task for "
        "CUDA events to bracket");
}

// Everything the options can get wrong, rejected before any GPU work; returns the scenarios'
// configuration.
streams::ScenarioConfig checked_config(const Options& o) {
    streams::ScenarioConfig config = o.config;
    ct::require_range(o.n, 1, std::uint64_t{1} << 20, "--n");
    config.n = static_cast<std::uint32_t>(o.n);
    ct::require_range(o.copy_max, 4, std::uint64_t{1} << 30, "--copy-max");
    if (o.copy_max % 4 != 0) {
        throw ct::UsageError("--copy-max",
                             "must be a multiple of 4 bytes (the copies move checked 32-bit "
                             "words)");
    }
    config.copy_max_bytes = o.copy_max;
    ct::require_range(o.pipeline_n, 1, std::uint64_t{1} << 28, "--pipeline-n");
    config.pipeline_n = o.pipeline_n;
    for (const int k : config.pipeline_chunks) {
        if (static_cast<std::uint64_t>(k) > o.pipeline_n) {
            throw ct::UsageError("--chunks",
                                 std::to_string(k) + " chunks of " + std::to_string(o.pipeline_n) +
                                     " elements (--pipeline-n) would leave chunks empty");
        }
    }
    if (o.common.flush_l2) {
        throw ct::UsageError(
            "--flush-l2",
            "does not apply to this chapter: its kernels spin for a fixed time and "
            "barely touch memory");
    }
    if (o.common.batch > 1) {
        throw ct::UsageError(
            "--batch", "does not apply to this chapter: each scenario times its own launches");
    }
    return config;
}

// The scenarios to run, in order, each once: those named, or those a run without --stage runs.
std::vector<const streams::ScenarioInfo*> chosen_scenarios(const Options& o) {
    for (const std::string& item : o.scenarios) {
        if (item == "list") {
            throw ct::UsageError("--stage", "list stands alone: it lists the scenarios");
        }
    }
    return ct::select_stages(streams::scenario_list(), o.scenarios, "--stage",
                             std::function<bool(const streams::ScenarioInfo&)>(
                                 [](const streams::ScenarioInfo& s) { return s.by_default; }));
}

// The run's information (the table's header), printed as the run's first lines with each
// build's meaning of the default stream.
ct::RunInfo streams_run_info(const Options& o, const streams::ScenarioConfig& config,
                             const ct::DeviceInfo& device,
                             const std::vector<streams::Build>& builds) {
    ct::RunInfo info = ct::make_run_info(
        "streams", "legacy vs per-thread default stream, measured with %globaltimer", device);
    info.set("wall", "first kernel start to last kernel end (%globaltimer), ms");
    info.set("kernel_us", ct::format_fixed(config.kernel_us, 1));
    info.set("n", ct::describe_size(config.n));
    info.set("streams", std::to_string(config.streams));
    info.set("probe", std::to_string(config.probe_kernels) + " kernels of " +
                          ct::format_fixed(config.probe_us, 1) + " us");
    info.set("graph", "chain of " + std::to_string(config.graph_kernels) + ", fork-join of " +
                          std::to_string(config.graph_branches) + " branches");
    std::string chunk_list;
    for (const int k : config.pipeline_chunks) {
        chunk_list += (chunk_list.empty() ? "" : ",") + std::to_string(k);
    }
    info.set("copies", "4 KiB to " + ct::format_bytes(static_cast<double>(o.copy_max)));
    info.set("pipeline", "n " + ct::describe_size(o.pipeline_n) + ", K " + chunk_list +
                             ", rounds " +
                             (config.pipeline_rounds ? std::to_string(config.pipeline_rounds)
                                                     : std::string("calibrated")));
    info.set("runs", std::to_string(o.common.warmup) + " warm-up + " +
                         std::to_string(o.common.repetitions) + " timed");

    std::cout << "== streams: " << info.title << " ==\n"
              << "GPU " << info.gpu_name << " (compute capability " << info.compute_capability
              << ", " << info.sm_count
              << " SMs, concurrent kernels: " << (device.concurrent_kernels ? "yes" : "no") << "), "
              << info.versions() << ", " << info.timestamp << "\n";
    for (const auto b : builds) {
        std::cout << streams::build_name(b) << " build: " << streams::default_stream_meaning(b)
                  << "\n";
    }
    std::cout << "times: %globaltimer read by each kernel's block at its start and end, in "
                 "µs from the run's first kernel start\n\n";
    return info;
}

// What the scenarios of one run share: the options, the checked configuration, the builds, the
// device, and the timelines of scenarios 1-5 (the JSON and the --csv file carry them).
struct Run {
    const Options& o;
    streams::ScenarioConfig config;
    std::vector<streams::Build> builds;
    ct::DeviceInfo device;
    std::vector<streams::ScenarioMeasurement> timelines;
    ct::TableRun* table = nullptr;  ///< the summary table every scenario adds its rows to
};

int add_rows(Run& r, std::vector<ct::ResultRow> rows) {
    for (ct::ResultRow& row : rows) {
        r.table->add(std::move(row));
    }
    return ct::to_int(ct::ExitCode::kSuccess);  // the rows' verdicts decide, at finish()
}

// Scenarios 1-5: the stream rules, the same scenario in every build, side by side.
void run_stream_rules(Run& r, const streams::ScenarioInfo& scenario) {
    const int id = std::stoi(scenario.id);
    std::vector<streams::ScenarioMeasurement> side_by_side;
    for (const auto b : r.builds) {
        side_by_side.push_back(
            streams::measure_scenario(b, id, r.config, r.o.common.warmup, r.o.common.repetitions));
    }
    streams::print_scenario(std::cout, side_by_side, r.o.width);
    std::vector<ct::ResultRow> rows;
    for (auto& m : side_by_side) {
        rows.push_back(streams::summary_row(m));
        r.timelines.push_back(std::move(m));
    }
    add_rows(r, std::move(rows));
}

// Scenarios 6-9 measure their own way, once (not in each build): sections of the run, named as
// their scenarios are, each adding its rows to the table.

int launch_overhead_section(Run& r) {
    return add_rows(r, streams::run_launch_overhead(std::cout, r.config, r.o.common.warmup,
                                                    r.o.common.repetitions, r.o.width, r.device));
}

int copy_bandwidth_section(Run& r) {
    return add_rows(r, streams::run_copy_bandwidth_scenario(std::cout, r.config, r.o.common.warmup,
                                                            r.o.common.repetitions));
}

int pipeline_section(Run& r) {
    return add_rows(r,
                    streams::pipeline::run_pipeline_scenario(std::cout, r.config, r.o.common.warmup,
                                                             r.o.common.repetitions, r.o.width));
}

int persistent_section(Run& r) {
    prepare_persistent_rows(*r.table, r.config);
    return add_rows(r, streams::persistent::run_persistent_scenario(std::cout, r.config));
}

const ct::SectionTable<Run>& own_sections() {
    const auto section = [](const char* key, int (*run)(Run&)) {
        const streams::ScenarioInfo* scenario =
            ct::find_stage_in(streams::scenario_list(), std::string(key));
        return ct::section<Run>(key, scenario->idea, run);
    };
    static const ct::SectionTable<Run> table({
        section("launch_overhead", launch_overhead_section),
        section("copy_bandwidth", copy_bandwidth_section),
        section("copy_compute_pipeline", pipeline_section),
        section("persistent_kernel", persistent_section),
    });
    return table;
}

int run(const Options& o) {
    if (o.scenarios == std::vector<std::string>{"list"}) {  // registry information: no GPU needed
        return list_scenarios(o);
    }
    Run r{o, checked_config(o), {}, {}, {}};
    const std::vector<const streams::ScenarioInfo*> scenarios = chosen_scenarios(o);
    if (o.build != "per-thread") {
        r.builds.push_back(streams::Build::kLegacy);
    }
    if (o.build != "legacy") {
        r.builds.push_back(streams::Build::kPerThread);
    }
    r.device = ct::select_device(o.common.device);
    r.config.device = o.common.device;
    std::size_t largest = 0;
    for (const streams::ScenarioInfo* s : scenarios) {
        largest = std::max(largest, streams::device_bytes(std::stoi(s->id), r.config));
    }
    ct::require_device_memory(largest, "the kernels' outputs");

    // --csv is the timeline here (one line per kernel), --summary-csv the table's CSV; the
    // table's JSON carries the timelines too.
    ct::CommonOptions table_files = o.common;
    table_files.csv_path = o.summary_csv;
    ct::TableRun table(streams_run_info(o, r.config, r.device, r.builds), table_files);
    r.table = &table;
    // In scenario order: the stream rules (run in each build), then the sections named.
    std::vector<std::string> sections;
    for (const streams::ScenarioInfo* s : scenarios) {
        if (s->launch != nullptr) {
            run_stream_rules(r, *s);
        } else {
            sections.push_back(s->name);
        }
    }
    if (!sections.empty()) {
        own_sections().run(sections, r);
    }
    table.attach("timelines", streams::timelines_json(r.timelines));
    const int status = table.finish();
    streams::write_timeline_file(o.common.csv_path, table.info(), r.timelines);
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 6 - streams: the legacy and the per-thread default stream, with measured "
        "concurrency.\nRuns scenarios 1-5 in both builds and prints a timeline of every kernel "
        "(from %globaltimer read inside the kernels); scenario 6 measures launch overhead and "
        "CUDA graphs, once; scenarios 7 and 8 move data: copy bandwidth and a copy/compute "
        "pipeline; scenario 9 (only when named) runs tasks through a persistent kernel."};
    Options o;
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
