// Chapter 2, warp divergence: which lanes of each warp take which path (recorded by the GPU),
// and what it costs in time - nothing for the textbook's one-line branches (the compiler
// predicates them), about 2x for branches with long bodies.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/sections.hpp"
#include "cudatutorial/table_run.hpp"
#include "divergence.hpp"

namespace ct = cudatutorial;
namespace dv = divergence;

namespace {

struct Run;
// The chapter's sections as data (defined below, after the functions they run).
const ct::SectionTable<Run>& section_table();

std::string percent_text(long long part, long long whole) {
    return whole > 0 ? ct::format_fixed(100.0 * static_cast<double>(part) / whole, 0) + "%" : "-";
}

struct PathsResult {
    bool all_verified = true;
    std::vector<std::pair<dv::Recorded, dv::PathSummary>> summaries;
    std::string share_on_both_paths(dv::Recorded which) const {
        for (const auto& [recorded, summary] : summaries) {
            if (recorded == which) {
                return percent_text(summary.warps_on_both_paths, summary.warps);
            }
        }
        return "-";
    }
};

PathsResult print_paths(int n, int block) {
    PathsResult result;
    std::cout << "== Divergence made visible: the lanes of each warp that ran each path ==\n"
              << "Instrumented copies of the branch kernels; inside each path the lowest active "
                 "lane ORs __activemask() into its warp's slot.\n"
              << "lanes: mask of lanes (count) that ran the path; passes: separate executions of "
                 "a path, summed over both paths; join: groups of lanes that reached the "
                 "statement after the if/else separately (1.00 = the warp reconverged there).\n\n";
    std::vector<std::vector<std::string>> cells = {
        {"kernel", "branch", "warps", "warps on both paths", "lanes/pass", "passes/warp",
         "join passes/warp", "warp 0: if | else", "warp 1: if | else", "check"}};
    std::vector<std::string> failures;
    for (const dv::Recorded which : dv::kAllRecorded) {
        const dv::PathRecord record = dv::record_paths(which, n, block);
        const dv::PathSummary summary = dv::summarize(record);
        const ct::Verification check = dv::verify_record(record, dv::condition_of(which), n);
        result.summaries.emplace_back(which, summary);
        const auto warp_text = [&](std::size_t w) {
            if (w >= record.if_lanes.size()) {
                return std::string("-");
            }
            return dv::mask_text(record.if_lanes[w]) + " | " + dv::mask_text(record.else_lanes[w]);
        };
        cells.push_back(
            {dv::recorded_name(which), dv::recorded_branch(which), std::to_string(summary.warps),
             std::to_string(summary.warps_on_both_paths) + " (" +
                 percent_text(summary.warps_on_both_paths, summary.warps) + ")",
             ct::format_fixed(summary.lanes_per_pass, 1),
             summary.warps
                 ? ct::format_fixed(
                       static_cast<double>(summary.passes) / static_cast<double>(summary.warps), 2)
                 : "-",
             summary.warps ? ct::format_fixed(static_cast<double>(summary.join_passes) /
                                                  static_cast<double>(summary.warps),
                                              2)
                           : "-",
             warp_text(0), warp_text(1), check.passed ? "PASS" : "FAIL"});
        if (!check.passed) {
            result.all_verified = false;
            failures.push_back(dv::recorded_name(which) + ": " + check.detail);
        }
    }
    ct::print_aligned(std::cout, cells, {0, 1});
    for (const auto& failure : failures) {
        std::cout << "  FAILED " << failure << "\n";
    }
    std::cout << "\n";
    return result;
}

struct Options {
    std::string program = "divergence";  ///< argv[0], for the --profile-help commands
    std::uint64_t n = std::uint64_t{1} << 24;
    int block = 64;
    int work = 32;
    std::vector<std::string> sections;
    std::string stages = "all";  ///< the timing section's kernels
    bool profile_help = false;
    ct::CommonOptions common;
};

void add_options(CLI::App& app, Options& o) {
    ct::add_size_option(app, "--n", o.n, "threads (= output elements) per kernel");
    app.add_option("--block", o.block,
                   "threads per block (a power of two, 32 to the device's limit)")
        ->check(ct::power_of_two_validator())
        ->capture_default_str();
    app.add_option("--work", o.work,
                   "loop steps in each branch of the long-branch kernels (each step updates 4 "
                   "independent states)")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    section_table().add_option_named(app, "--section", o.sections, false);
    ct::add_stage_option(app, o.stages, " 0-4, 4t (short branches), 5a, 5b (long branches)",
                         " (the timing section's kernels)");
    ct::add_profile_help_flag(app, o.profile_help, "branch efficiency");
    ct::add_common_options(app, o.common);
}

// What the sections of one run share: the options checked before any GPU work, the device, the
// kernels --stage chose, and the warps the paths section recorded (the timing table shows them).
struct Run {
    const Options& o;
    ct::DeviceInfo info;
    int count = 0;
    std::vector<std::string> wanted;
    PathsResult paths;
};

int paths_section(Run& r) {
    r.paths = print_paths(r.count, r.o.block);
    return ct::to_int(r.paths.all_verified ? ct::ExitCode::kSuccess
                                           : ct::ExitCode::kVerificationFailed);
}

int timing_section(Run& r) {
    const Options& o = r.o;
    const ct::DeviceInfo& info = r.info;
    const int count = r.count;
    const PathsResult& paths = r.paths;
    const std::vector<std::string>& wanted = r.wanted;
    ct::RunInfo run = ct::make_run_info(
        "divergence", "branch kernels: same work, different branch granularity", info);
    run.set("n", ct::describe_size(o.n));
    run.set("block", std::to_string(o.block));
    run.set("work (long kernels)", std::to_string(o.work) + " steps per branch");
    run.set("timing", o.common.timing_description());
    ct::TableRun table(run, section_table().files_for(o.common, o.sections, "timing"));
    ct::DeviceBuffer<float> c(o.n);
    for (const dv::ShortKernel& kernel : dv::short_kernels()) {
        if (!ct::stage_chosen(kernel, wanted)) {
            continue;
        }
        ct::StageHooks hooks;
        hooks.poison = [&] { c.fill_bytes(0xff); };  // NaN: an element not written cannot pass
        hooks.launch = [&](cudaStream_t stream) {
            kernel.launch(c.data(), count, o.block, stream);
        };
        hooks.verify = [&] {
            return dv::verify_short_branch(c.to_host(), kernel.condition, info.warp_size);
        };
        hooks.bytes = ct::MemoryTraffic().writes<float>(o.n);  // each thread writes its float
        hooks.extras = [&](ct::ResultRow& row) {
            row.with("branch", kernel.branch);
            row.with("warps on both paths", paths.share_on_both_paths(kernel.recorded));
        };
        table.run(kernel, hooks);
    }

    const auto& long_kernels = dv::long_kernels();
    if (std::none_of(long_kernels.begin(), long_kernels.end(), [&](const dv::LongKernel& kernel) {
            return ct::stage_chosen(kernel, wanted);
        })) {
        return table.finish();
    }
    const dv::LongReference reference = dv::long_reference(count, o.work);
    ct::DeviceBuffer<std::uint32_t> out(o.n);
    table.set_baseline("5a", "5a");
    for (const dv::LongKernel& kernel : long_kernels) {
        if (!ct::stage_chosen(kernel, wanted)) {
            continue;
        }
        ct::StageHooks hooks;
        hooks.poison = [&] { out.fill_bytes(0xff); };
        hooks.launch = [&](cudaStream_t stream) {
            kernel.launch(out.data(), count, o.work, o.block, stream);
        };
        hooks.verify = [&] {
            return dv::verify_long_branch(out.to_host(), reference, kernel.condition,
                                          info.warp_size);
        };
        // Compute-bound: no GB/s column (bytes left at 0); the time is what matters.
        hooks.extras = [&](ct::ResultRow& row) {
            // The long pair is its own comparison (the "x 5a" column): chained after the short,
            // store-bound kernels its "x prev" and "x first" would compare unrelated work.
            row.in_progression = false;
            row.with("branch", kernel.branch);
            row.with("warps on both paths", paths.share_on_both_paths(kernel.recorded));
        };
        table.run(kernel, hooks);
    }
    return table.finish();
}

const ct::SectionTable<Run>& section_table() {
    using ct::section;
    static const ct::SectionTable<Run> table({
        ct::without_table(
            section<Run>("paths",
                         "which path each warp took, recorded on the GPU: the warps that ran both "
                         "sides of a branch",
                         paths_section)),
        section<Run>("timing", "the branch kernels (--stage) timed, each verified", timing_section),
    });
    return table;
}

int run(const Options& o) {
    const std::vector<ct::StageGroup> registries = {
        {"Short branches (the textbook's kernels)", ct::descriptors(dv::short_kernels())},
        {"Long branches (a pair, compared with each other)", ct::descriptors(dv::long_kernels())}};
    if (o.stages == "list") {  // registry information: no GPU needed
        return ct::list_stages(o.common, "divergence", registries);
    }
    if (o.profile_help) {
        std::cout << dv::profiling_help(o.program);
        return ct::to_int(ct::ExitCode::kSuccess);
    }
    const std::vector<std::string> wanted = ct::split_list(o.stages);
    ct::require_known_stages(registries, wanted, "--stage");
    ct::require_range(o.n, 1, std::uint64_t{1} << 30, "--n");
    // One warp to 1,024 threads, known without a device (exit 2 with or without a GPU); the
    // device's own limit is checked once it is open.
    ct::require_power_of_two_block(o.block);
    // The CPU reference of the long kernels runs 2 x 4 x n x work xorshift steps.
    if (o.n * static_cast<std::uint64_t>(o.work) > (std::uint64_t{1} << 31)) {
        throw ct::UsageError(
            "--n x --work", std::to_string(o.n * o.work) +
                                " is over 2^31: the CPU reference would take minutes; lower --n or "
                                "--work");
    }
    Run r{o, ct::select_device(o.common.device), static_cast<int>(o.n), wanted, {}};
    ct::require_block_size(o.block, r.info, r.info.warp_size, "--block");
    ct::require_device_memory(2 * o.n * sizeof(float), "the output arrays");
    return section_table().run(o.sections, r);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 2 - warp divergence: the textbook's branch kernels, a long-branch pair where "
        "divergence costs time, and the paths of each warp recorded on the GPU"};
    Options o;
    if (argc > 0) {
        o.program = argv[0];
    }
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
