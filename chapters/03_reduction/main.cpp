// Chapter 3, parallel reduction: the nine textbook stages, the beyond-the-book stages and CUB,
// each producing the whole sum on the GPU, checked against the CPU reference and timed.
#include <cstdint>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "adaptive_vectorized.hpp"
#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
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
    const int expected = reduction::reference_sum(host);
    ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);

    ct::RunInfo info = ct::make_run_info(
        "reduction", "sum of N ints, whole sum on the GPU (all passes timed)", device);
    info.set("N", ct::describe_size(n));
    info.set("bytes read", ct::format_bytes(static_cast<double>(bytes)));
    info.set("block", std::to_string(o.block));
    info.set("data",
             std::string(reduction::pattern_name(pattern)) + ", seed " + std::to_string(o.seed));
    info.set("expected sum (mod 2^32)", std::to_string(expected));
    info.set("reps", std::to_string(o.common.repetitions));
    ct::TableRun table(info, o.common);
    table.set_baseline(reduction::kCubStageId, "CUB");

    // Stages 10-12 choose their candidate for this GPU: a short tuning pass on this input, once,
    // before the first of them is timed (adaptive_vectorized.hpp); the header says what it chose
    // and why. Its lines follow "reps": nothing else enters the header before finish().
    std::optional<reduction::adaptive::TuningResult> tuning;
    const auto tune = [&](ct::RunInfo& header) {
        if (!tuning) {
            tuning = reduction::adaptive::tune_vectorized(d_in.data(), n, o.block);
        }
        const reduction::adaptive::VectorizedChoice& atomic = tuning->single_pass_atomic_choice;
        const std::string persistent =
            reduction::detail::describe_variant(tuning->choice.variant) + ", resident/" +
            std::to_string(tuning->choice.occupancy_divisor) + " blocks per SM";
        if (atomic.variant == tuning->choice.variant) {
            header.set("stages 10-12 run", persistent);
        } else {  // a one-shot candidate measured fastest: stage 12 runs it
            header.set("stages 10-11 run", persistent);
            header.set("stage 12 runs", reduction::detail::describe_variant(atomic.variant) +
                                            ", one block per tile of the input");
        }
        header.set("stages 10-12 why", atomic.why + "; " + tuning->derived.why);
        header.set("stages 10-12 candidates (ms)", tuning->table);
    };

    const ct::BenchmarkConfig config = table.options().benchmark_config();
    for (const reduction::StageInfo* stage : selected) {
        // Made in `prepare`, after the tuning pass: stages 10-12 read its choice when made.
        std::optional<reduction::Reducer> reducer;
        ct::StageHooks hooks;
        hooks.prepare = [&](ct::RunInfo& header) {
            if (stage->uses_tuner) {
                tune(header);
            }
            reducer.emplace(stage->id, n, o.block);
        };
        hooks.poison = [&] { d_sum.fill_bytes(0xff); };
        hooks.launch = [&](cudaStream_t s) { reducer->run(d_in.data(), d_sum.data(), s); };
        hooks.verify = [&] {
            int got = 0;
            d_sum.copy_to_host(&got, 1);
            if (got == expected) {
                return ct::Verification::pass();
            }
            return ct::Verification::fail("sum " + std::to_string(got) + ", expected " +
                                          std::to_string(expected));
        };
        hooks.bytes = static_cast<double>(bytes);
        hooks.extras = [&](ct::ResultRow& row) {
            const ct::Stats first = ct::time_repeated(
                [&](cudaStream_t s) { reducer->run_first_pass(d_in.data(), d_sum.data(), s); },
                config);
            row.with("first pass ms", ct::format_ms(first.median_ms));
            // A memset before the kernel (stage 12) is one more operation on the stream, which
            // the column would otherwise hide.
            const bool cub = stage->role == ct::StageRole::kBaseline;
            const auto& passes = reducer->passes();
            row.with("launches", cub ? "cub"
                                     : std::to_string(passes.size()) +
                                           (stage->clears_output_with_memset ? " + memset" : ""));
            row.with("grid", cub ? "cub" : std::to_string(passes[0].grid));
        };
        table.run(*stage, hooks);
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
    std::string ids;
    for (const reduction::StageInfo& stage : reduction::stages()) {
        ids += " " + stage.id;
    }
    app.add_option("--stage", o.stages,
                   "'all', 'list' (the stages and their ideas, without a GPU; with --json: as "
                   "JSON), or a comma-separated list of stage ids or names:" +
                       ids +
                       " ('all' leaves out 5v, the historical volatile "
                       "form)")
        ->capture_default_str();
    app.add_option("--data", o.data, "input pattern: random, ones, alternating, extremes")
        ->capture_default_str();
    app.add_option("--seed", o.seed, "seed of the input generator")->capture_default_str();
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
