// Chapter 4, nested reduction with dynamic parallelism (CDP2): the textbook's recursive
// reductions, launched level by level from the GPU, timed and launch-counted next to the flat,
// host-launched reduction of Chapter 3 and CUB. `--hello` runs the nested hello world instead.
#include <CLI/CLI.hpp>

#include <climits>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "nested_reduction.hpp"
#include "reduction.hpp"

namespace ct = cudatutorial;
namespace nr = nested_reduction;

namespace {

constexpr const char* kDemoId = "overflow_demo";

// The labelled demonstration: version sync with the default pending-launch pool.
ct::StageDescriptor overflow_demo_stage() {
    return {kDemoId, nr::info(nr::Version::kPerBlockSync).name + " (default pool)",
            "version sync with the default pending-launch pool: more device launches than it "
            "holds",
            ct::StageRole::kExpectedFailure};
}

// One row to measure, decided (and validated) before any GPU work.
struct PlannedRow {
    enum class Kind { kNested, kOverflowDemo, kFlat, kCub } kind;
    nr::Version version = nr::Version::kPerLevelTail;  // kNested, kOverflowDemo
    std::string stage;                                 // kFlat
};

struct Plan {
    std::vector<PlannedRow> rows;
    std::vector<std::string> notes;  // versions skipped in `--version all`, and why
};

Plan make_plan(const std::string& version, std::uint64_t n, int block,
               const std::vector<std::string>& flat_stages) {
    Plan plan;
    // N and the block size are checked against the version that accepts the most; a version
    // that cannot run this configuration is an error when asked for by name, a note in "all".
    nr::validate(nr::Version::kPerLevelTail, n, block);
    const bool all = version == "all";
    const auto sync = nr::Version::kPerBlockSync;
    const bool demo_possible = nr::unsupported_reason(sync, n, block).empty() &&
                               nr::device_launches(sync, n, block) > nr::kDefaultPendingLaunches;
    if (version == kDemoId) {
        nr::validate(sync, n, block);
        if (!demo_possible) {
            throw ct::UsageError(
                "--version",
                "overflow_demo needs more device launches than the default pool of " +
                    std::to_string(nr::kDefaultPendingLaunches) + " slots holds (it has " +
                    nr::formula_with_numbers(sync, n, block) + "): try --n 2^20 --block 512");
        }
    }
    if ((all && demo_possible) || version == kDemoId) {
        plan.rows.push_back({PlannedRow::Kind::kOverflowDemo, sync, {}});
    }
    for (const auto& entry : nr::versions()) {
        if (!all && version != entry.id) {
            continue;
        }
        const std::string reason = nr::unsupported_reason(entry.version, n, block);
        if (!reason.empty()) {
            if (!all) {
                nr::validate(entry.version, n, block);  // throws, naming the option
            }
            plan.notes.push_back("skipped " + entry.id + ": " + reason);
            continue;
        }
        plan.rows.push_back({PlannedRow::Kind::kNested, entry.version, {}});
    }
    for (const auto& stage : flat_stages) {
        const reduction::StageInfo* info = reduction::find_stage(stage);
        if (!info || stage == reduction::kCubStageId) {
            throw ct::UsageError("--flat", "'" + stage + "' is not a Chapter 3 stage id");
        }
        try {
            reduction::validate_configuration(stage, n, block);
        } catch (const std::invalid_argument& error) {
            throw ct::UsageError("--flat", stage + ": " + error.what());
        }
        plan.rows.push_back({PlannedRow::Kind::kFlat, nr::Version::kPerLevelTail, stage});
    }
    plan.rows.push_back({PlannedRow::Kind::kCub, nr::Version::kPerLevelTail, {}});
    return plan;
}

// Makes the pool at least `slots` (exactly `slots` when `exact`); returns the pool in effect.
std::size_t ensure_pool(std::size_t slots, bool exact) {
    const std::size_t now = nr::pending_launch_pool();
    if (now == slots || (!exact && now > slots)) {
        return now;
    }
    nr::set_pending_launch_pool(slots);
    return slots;
}

// A nested version's row, or the overflow demonstration's, added to `table`.
void measure_nested(ct::TableRun& table, const PlannedRow& planned, std::uint64_t n, int block,
                    std::uint64_t pending_option, const int* d_in, ct::DeviceBuffer<int>& d_sum,
                    int reference) {
    const bool demo = planned.kind == PlannedRow::Kind::kOverflowDemo;
    const nr::VersionInfo& entry = nr::info(planned.version);
    const ct::StageDescriptor overflow_demo = overflow_demo_stage();
    const ct::StageDescriptor& stage = demo ? overflow_demo : entry;

    std::size_t pool = 0;
    try {
        const std::uint64_t wanted =
            demo ? nr::kDefaultPendingLaunches
                 : (pending_option ? pending_option
                                   : nr::pending_launches_needed(planned.version, n, block));
        pool = ensure_pool(static_cast<std::size_t>(wanted), demo || pending_option != 0);
    } catch (const ct::CudaError& error) {
        ct::ResultRow row;
        ct::apply_stage(stage, row);
        row.detail = std::string("could not set the pending-launch pool: ") + error.what();
        table.add(std::move(row));
        return;
    }

    nr::NestedReducer reducer(planned.version, n, block);
    const std::uint64_t expected = reducer.expected_device_launches();
    std::uint64_t runs = 0;
    std::optional<nr::LaunchCounters> first_run;

    ct::StageHooks hooks;
    hooks.poison = [&] {
        reducer.poison_workspace();
        d_sum.fill_bytes(0xff);
        reducer.reset_counters();
    };
    hooks.launch = [&](cudaStream_t stream) {
        reducer.run(d_in, d_sum.data(), stream);
        ++runs;
    };
    hooks.verify = [&]() -> ct::Verification {
        const nr::LaunchCounters counters = reducer.counters();
        if (!first_run) {
            first_run = counters;
        }
        int sum = 0;
        d_sum.copy_to_host(&sum, 1);
        std::string problems;
        const auto add = [&](const std::string& problem) {
            problems += (problems.empty() ? "" : "; ") + problem;
        };
        if (counters.failed != 0) {
            add(nr::describe_failures(counters, pool));
        }
        if (counters.launched + counters.failed != runs * expected) {
            add(std::to_string(counters.launched + counters.failed) + " device launches in " +
                std::to_string(runs) + " runs, the formula gives " + std::to_string(expected) +
                " per run");
        }
        if (sum != reference) {
            add("sum " + std::to_string(sum) + ", CPU reference " + std::to_string(reference));
        } else if (counters.failed != 0) {
            add("the sum matches the CPU reference only because partial sums left by earlier "
                "runs filled the gaps: a check of the output alone would have passed");
        }
        return problems.empty() ? ct::Verification::pass() : ct::Verification::fail(problems);
    };
    hooks.bytes = ct::MemoryTraffic().reads<int>(n);
    hooks.extras = [&](ct::ResultRow& row) {
        std::string counted = std::to_string(first_run->launched);
        if (first_run->failed != 0) {
            counted += " (+" + std::to_string(first_run->failed) + " failed)";
        }
        row.with("host launches", std::to_string(nr::kHostLaunches))
            .with("device launches", counted)
            .with("formula",
                  entry.formula + ": " + nr::formula_with_numbers(planned.version, n, block))
            .with("pool", std::to_string(pool));
        if (demo && row.passed) {
            row.detail = "the pool of " + std::to_string(pool) +
                         " did not overflow on this run (it depends on how fast children start)";
        }
    };
    table.run(stage, hooks);
}

// A comparison row: a flat Chapter 3 stage or CUB, host-launched, added to `table`.
void measure_reducer(ct::TableRun& table, const ct::StageDescriptor& stage,
                     const reduction::Reducer& reducer, const std::string& host_launches,
                     std::uint64_t n, const int* d_in, ct::DeviceBuffer<int>& d_sum,
                     int reference) {
    ct::StageHooks hooks;
    hooks.poison = [&] { d_sum.fill_bytes(0xff); };
    hooks.launch = [&](cudaStream_t stream) { reducer.run(d_in, d_sum.data(), stream); };
    hooks.verify = [&]() -> ct::Verification {
        int sum = 0;
        d_sum.copy_to_host(&sum, 1);
        if (sum != reference) {
            return ct::Verification::fail("sum " + std::to_string(sum) + ", CPU reference " +
                                          std::to_string(reference));
        }
        return ct::Verification::pass();
    };
    hooks.bytes = ct::MemoryTraffic().reads<int>(n);
    hooks.extras = [&](ct::ResultRow& row) {
        row.with("host launches", host_launches)
            .with("device launches", "0")
            .with("formula", "-")
            .with("pool", "-");
    };
    table.run(stage, hooks);
}

int run_hello(int blocks, int threads) {
    int status = ct::to_int(ct::ExitCode::kSuccess);
    const std::vector<std::uint64_t> expected_lines = nr::expected_hello_lines(blocks, threads);
    for (const auto variant :
         {nr::HelloVariant::kOneBlockChildren, nr::HelloVariant::kSameGridChildren}) {
        const bool one_block = variant == nr::HelloVariant::kOneBlockChildren;
        std::cout << "\n== nested hello world, "
                  << (one_block ? "one-block children (nestedHelloWorld): thread 0 of every "
                                  "block launches <<<1, T/2>>>"
                                : "same-grid children (nestedHelloWorld2): thread 0 of block 0 "
                                  "launches <<<G, T/2>>>")
                  << "; first grid " << blocks << " x " << threads << " ==" << std::endl;
        const nr::HelloResult result = nr::run_nested_hello(variant, blocks, threads);

        std::vector<std::vector<std::string>> cells = {
            {"depth", "grid", "lines expected", "lines counted", ""}};
        for (std::size_t depth = 0; depth < expected_lines.size(); ++depth) {
            const int per_block = threads >> depth;
            const std::string grid =
                one_block
                    ? std::to_string(blocks) + " grid(s) of 1 x " + std::to_string(per_block)
                    : "1 grid of " + std::to_string(blocks) + " x " + std::to_string(per_block);
            const bool ok = result.lines_per_depth[depth] == expected_lines[depth];
            if (!ok) {
                status = ct::to_int(ct::ExitCode::kVerificationFailed);
            }
            cells.push_back(
                {std::to_string(depth),
                 depth == 0
                     ? std::to_string(blocks) + " x " + std::to_string(threads) + " (host launch)"
                     : grid,
                 std::to_string(expected_lines[depth]),
                 std::to_string(result.lines_per_depth[depth]), ok ? "ok" : "MISMATCH"});
        }
        std::cout << "\nlines per depth (counted on the device by an atomic counter):\n";
        ct::print_aligned(std::cout, cells, {1});
        const std::uint64_t launches = nr::expected_hello_launches(variant, blocks, threads);
        const bool launches_ok =
            result.launches.failed == 0 && result.launches.launched == launches;
        if (!launches_ok) {
            status = ct::to_int(ct::ExitCode::kVerificationFailed);
        }
        std::cout << "device-side launches: " << result.launches.launched << " (formula "
                  << (one_block ? "G*log2 T = " : "log2 T = ") << launches << ")";
        if (result.launches.failed != 0) {
            std::cout << "; " << nr::describe_failures(result.launches, nr::pending_launch_pool());
        }
        std::cout << (launches_ok ? "" : "  MISMATCH") << "\n";
    }
    return status;
}

struct Options {
    std::uint64_t n = std::uint64_t{1} << 24;
    int block = 512;
    std::string version = "all";
    std::vector<std::string> flat_stages = {"3", "10"};
    std::uint64_t pending = 0;
    std::uint64_t seed = ct::kDefaultSeed;
    bool hello = false;
    int blocks = 1;
    int threads = 8;
    ct::CommonOptions common;
};

void add_options(CLI::App& app, Options& o) {
    ct::add_size_option(app, "--n", o.n, "number of ints to sum (e.g. 2^20, 16Mi, 1000003)");
    app.add_option("--block", o.block,
                   "threads per block of the first level, a power of two in [32, 1024]; every "
                   "chunk of this many ints becomes one partial sum")
        ->capture_default_str();
    // --stage, as in every chapter; --version, its first name, still works.
    app.add_option("--stage,--version", o.version,
                   "all, one of sync | nosync | per_level, overflow_demo (version sync with "
                   "the default pending-launch pool), or list (the versions and their ideas, "
                   "without a GPU; with --json: as JSON)")
        ->check(CLI::IsMember({"all", "sync", "nosync", "per_level", kDemoId, "list"}))
        ->capture_default_str();
    app.add_option("--flat", o.flat_stages,
                   "Chapter 3 stages shown as flat, host-launched comparison rows (comma list)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--pending-launches", o.pending,
                   "device-runtime pending-launch pool for the nested versions "
                   "(cudaLimitDevRuntimePendingLaunchCount); 0: as many as each version launches")
        ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 22))
        ->capture_default_str();
    ct::add_seed_option(app, o.seed, "the random input");
    app.add_flag("--hello", o.hello, "run the nested hello world (both variants) instead");
    app.add_option("--blocks", o.blocks, "hello world: blocks of the first grid")
        ->capture_default_str();
    app.add_option("--threads", o.threads, "hello world: threads per block of the first grid")
        ->capture_default_str();
    ct::add_common_options(app, o.common);
}

int run(const Options& o) {
    if (o.version == "list") {  // registry information: no GPU needed
        const ct::StageDescriptor demo = overflow_demo_stage();
        std::vector<const ct::StageDescriptor*> stages = ct::descriptors(nr::versions());
        stages.push_back(&demo);
        return ct::list_stages(o.common, "nested_reduction", {{"", stages}});
    }
    if (o.hello) {
        nr::validate_hello(o.blocks, o.threads);
        const ct::DeviceInfo device = ct::select_device(o.common.device);
        std::cout << "GPU: " << device.name << " (compute capability "
                  << device.compute_capability() << ")\n";
        return run_hello(o.blocks, o.threads);
    }
    const std::uint64_t n = o.n;
    const int block = o.block;
    const Plan plan = make_plan(o.version, n, block, o.flat_stages);  // exit 2 before GPU work
    const ct::DeviceInfo device = ct::select_device(o.common.device);
    const std::uint64_t chunks = nr::chunk_count(n, block);
    ct::require_device_memory(4 * n + 4 * chunks * static_cast<std::uint64_t>(block / 2) +
                                  16 * chunks + (std::uint64_t{64} << 20),
                              "the input, the nested workspace and the flat reduction's");

    const std::vector<int> host = ct::random_ints(n, o.seed, INT_MIN, INT_MAX);
    const int reference = reduction::reference_sum(host.data(), host.size());
    const ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);

    ct::RunInfo info =
        ct::make_run_info("nested_reduction",
                          "nested reduction (CDP2) vs the flat reduction and CUB, int sum", device);
    info.set("n", ct::describe_size(n));
    info.set("block", std::to_string(block));
    info.set("chunks G", std::to_string(chunks));
    info.set("data", "random ints over the whole int range, seed " + std::to_string(o.seed));
    info.set("pending-launch pool at start", std::to_string(nr::pending_launch_pool()));
    ct::TableRun table(info, o.common);
    table.set_baseline("cub", "CUB");

    for (const PlannedRow& planned : plan.rows) {
        switch (planned.kind) {
            case PlannedRow::Kind::kNested:
            case PlannedRow::Kind::kOverflowDemo:
                measure_nested(table, planned, n, block, o.pending, d_in.data(), d_sum, reference);
                break;
            case PlannedRow::Kind::kFlat: {
                const reduction::Reducer flat(planned.stage, n, block);
                const ct::StageDescriptor stage{"ch3-" + planned.stage, "flat " + flat.stage().name,
                                                flat.stage().idea, ct::StageRole::kBaseline};
                measure_reducer(table, stage, flat, std::to_string(flat.passes().size()), n,
                                d_in.data(), d_sum, reference);
                break;
            }
            case PlannedRow::Kind::kCub: {
                const reduction::Reducer cub = reduction::make_cub_reducer(n);
                measure_reducer(table, cub.stage(), cub, "1 call", n, d_in.data(), d_sum,
                                reference);
                break;
            }
        }
    }

    for (const auto& note : plan.notes) {
        table.add_note(note);
    }
    table.add_note(
        "launch counts: 'device launches' were counted on the GPU (an atomic counter "
        "after each successful launch) in the first, validated run; G = " +
        std::to_string(chunks) + " chunks, B = " + std::to_string(block));
    return table.finish();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 4 - nested reduction with dynamic parallelism (CDP2): the textbook's recursive "
        "reductions launched from the GPU, with device-side launch counts, against the flat "
        "reduction of Chapter 3 and CUB. --hello runs the nested hello world instead."};
    Options o;
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
