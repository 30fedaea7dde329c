// Chapter 3, parallel reduction: the nine textbook stages, the beyond-the-book stages and CUB,
// each producing the whole sum on the GPU, checked against the CPU reference and timed.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <optional>
#include <stdexcept>
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
#include "measuring/adaptive_vectorized.hpp"
#include "reduction.hpp"

namespace ct = cudatutorial;

namespace {

struct Options {
    std::uint64_t n = std::uint64_t{1} << 25;  // the seed article's 32M ints
    int block = 256;
    std::string stages = "all";
    std::string data = "random";
    std::uint64_t seed = ct::kDefaultSeed;
    ct::CommonOptions common;
};

/// The stages to run, validated against n and the block size; all host-side, before any GPU
/// work. An explicit list must be valid as a whole; `all` skips (with a note in the table) the
/// stages that do not support the block size.
std::vector<const reduction::StageInfo*> select_stages(const Options& o,
                                                       std::vector<std::string>& notes) {
    const std::vector<std::string> requested = ct::split_list(o.stages);
    if (requested.empty()) {
        throw ct::UsageError("--stage",
                             "give 'all', 'list' or a comma-separated list of stage ids");
    }
    const bool all = requested == std::vector<std::string>{"all"};
    std::vector<const reduction::StageInfo*> runnable;
    for (const reduction::StageInfo* stage :
         ct::select_stages<reduction::StageInfo>(reduction::stages(), requested, "--stage",
                                                 [](const auto& s) { return s.by_default; })) {
        try {
            reduction::validate_configuration(stage->id, o.n, o.block);
            runnable.push_back(stage);
        } catch (const std::invalid_argument& e) {
            if (!all) {
                throw ct::UsageError("--block", e.what());
            }
            notes.push_back(std::string("skipped: ") + e.what());
        }
    }
    if (runnable.empty()) {
        throw ct::UsageError("--block", "no stage supports block size " + std::to_string(o.block));
    }
    return runnable;
}

/// The input on the device, where each stage writes its sum, and what the sum must be.
struct Input {
    ct::DeviceBuffer<int> d_in;
    ct::DeviceBuffer<int> d_sum{1};
    int expected = 0;
};

ct::Verification check_sum(int got, int expected) {
    if (got == expected) {
        return ct::Verification::pass();
    }
    return ct::Verification::fail("sum " + std::to_string(got) + ", expected " +
                                  std::to_string(expected));
}

/// The row's own measurement: the whole sum, every launch inside the timed region.
ct::StageHooks whole_sum_hooks(const reduction::Reducer& reducer, Input& input) {
    ct::StageHooks hooks;
    hooks.poison = [&] { input.d_sum.fill_bytes(0xff); };
    hooks.launch = [&](cudaStream_t s) { reducer.run(input.d_in.data(), input.d_sum.data(), s); };
    hooks.verify = [&] {
        int got = 0;
        input.d_sum.copy_to_host(&got, 1);
        return check_sum(got, input.expected);
    };
    hooks.bytes = ct::MemoryTraffic().reads<int>(reducer.n());
    return hooks;
}

/// The first launch alone, which is what the seed article timed (it added the partial sums on
/// the CPU): checked too, since the partial sums it leaves must add up to the sum.
ct::StageHooks first_pass_hooks(const reduction::Reducer& reducer, Input& input) {
    ct::StageHooks hooks;
    hooks.poison = [&] { reducer.poison_first_pass_output(input.d_sum.data()); };
    hooks.launch = [&](cudaStream_t s) {
        reducer.run_first_pass(input.d_in.data(), input.d_sum.data(), s);
    };
    hooks.verify = [&] {
        return check_sum(reduction::reference_sum(reducer.first_pass_output(input.d_sum.data())),
                         input.expected);
    };
    hooks.bytes = ct::MemoryTraffic().reads<int>(reducer.n());
    return hooks;
}

/// One stage's row: the whole sum timed, then its first pass timed on its own for the "first
/// pass ms" column, then what the stage launches. A first pass that fails fails the row.
void add_stage_row(ct::TableRun& table, const reduction::StageInfo& stage, Input& input,
                   std::size_t n, int block, const reduction::adaptive::TuningResult* tuning) {
    const reduction::Reducer reducer(stage.id, n, block, tuning);
    ct::ResultRow row = table.time_stage(stage, whole_sum_hooks(reducer, input));

    ct::StageDescriptor first_pass = stage;
    first_pass.name += " (first pass)";  // names its NVTX range in a timeline
    const ct::ResultRow first = table.time_stage(first_pass, first_pass_hooks(reducer, input));
    row.with("first pass ms", ct::format_ms(first.stats.median_ms));
    row.with("launches", reducer.describe_launches());
    row.with("grid", reducer.describe_grid());
    if (!first.passed && !first.expected_failure) {
        row.passed = false;
        row.detail += (row.detail.empty() ? "" : "; ") + std::string("first pass: ") + first.detail;
    }
    table.add(std::move(row));
}

int run(const Options& o) {
    if (o.stages == "list") {  // registry information: no GPU needed
        return ct::list_stages(o.common, "reduction", {{"", ct::descriptors(reduction::stages())}});
    }
    // 1. Everything that can be checked without a GPU.
    if (o.n < 1 || o.n > (std::uint64_t{1} << 40)) {
        throw ct::UsageError("--n", "must be between 1 and 2^40; got " + std::to_string(o.n));
    }
    ct::require_power_of_two_block(o.block);
    reduction::Pattern pattern{};
    try {
        pattern = reduction::parse_pattern(o.data);
    } catch (const std::invalid_argument& e) {
        throw ct::UsageError("--data", e.what());
    }
    std::vector<std::string> notes;
    const std::vector<const reduction::StageInfo*> selected = select_stages(o, notes);

    // 2. The device, and whether the input fits (input + at most 1/16 more for partial sums).
    const ct::DeviceInfo device = ct::select_device(o.common.device);
    ct::require_block_size(o.block, device, 32);
    const std::size_t n = static_cast<std::size_t>(o.n);
    const std::size_t bytes = n * sizeof(int);
    ct::require_device_memory(bytes + bytes / 16 + (1u << 20), "the input and partial sums");

    // 3. Input and the CPU reference.
    const std::vector<int> host = reduction::make_input(pattern, n, o.seed);
    Input input{ct::DeviceBuffer<int>(host)};
    input.expected = reduction::reference_sum(host);

    ct::RunInfo info = ct::make_run_info(
        "reduction", "sum of N ints, whole sum on the GPU (all passes timed)", device);
    info.set("N", ct::describe_size(n));
    info.set("bytes read", ct::format_bytes(static_cast<double>(bytes)));
    info.set("block", std::to_string(o.block));
    info.set("data",
             std::string(reduction::pattern_name(pattern)) + ", seed " + std::to_string(o.seed));
    info.set("expected sum (mod 2^32)", std::to_string(input.expected));
    info.set("reps", std::to_string(o.common.repetitions));

    // 4. Stages 10-12 run the candidate that a short tuning pass on this input measures fastest
    //    on this GPU (measuring/adaptive_vectorized.hpp): measured once, before any stage is
    //    timed, when one of them is selected; what it chose and why go into the header after
    //    "reps", and the result goes to each Reducer.
    std::optional<reduction::adaptive::TuningResult> tuning;
    if (std::any_of(selected.begin(), selected.end(),
                    [](const reduction::StageInfo* stage) { return stage->uses_tuner; })) {
        tuning = reduction::adaptive::tune_vectorized(input.d_in.data(), n, o.block);
        reduction::adaptive::describe_choice(*tuning, info);
    }

    // 5. The table: one row per stage.
    ct::TableRun table(info, o.common);
    table.set_baseline(reduction::kCubStageId, "CUB");
    for (const reduction::StageInfo* stage : selected) {
        add_stage_row(table, *stage, input, n, o.block, tuning ? &*tuning : nullptr);
    }
    for (const std::string& note : notes) {
        table.add_note(note);
    }
    return table.finish();
}

void add_options(CLI::App& app, Options& o) {
    ct::add_size_option(app, "--n", o.n, "number of ints to sum (2^25, 1<<25, 32Mi, ...)");
    app.add_option("--block", o.block, "threads per block (power of two, 32-1024)")
        ->capture_default_str();
    ct::add_stage_option(app, o.stages, ct::stage_ids(reduction::stages()),
                         " ('all' leaves out 5v, the historical volatile form)");
    app.add_option("--data", o.data, "input pattern: random, ones, alternating, extremes")
        ->capture_default_str();
    ct::add_seed_option(app, o.seed);
    ct::add_common_options(app, o.common);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 3 - parallel reduction: textbook stages 1-9, beyond-the-book stages 10-12 and "
        "CUB, each summing N ints on the GPU (sum modulo 2^32) and checked against the CPU"};
    Options o;
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
