// Chapter 3, parallel reduction: the nine textbook stages, the beyond-the-book stages and CUB,
// each producing the whole sum on the GPU, checked against the CPU reference and timed.
#include <algorithm>
#include <cstdint>
#include <iostream>
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

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        if (!item.empty()) {
            items.push_back(item);
        }
    }
    return items;
}

/// The stages to run, validated against n and the block size; all host-side, before any GPU
/// work. An explicit list must be valid as a whole; `all` skips (with a note) the stages that do
/// not support the block size.
std::vector<std::string> select_stages(const Options& o, std::vector<std::string>& notes) {
    std::vector<std::string> ids;
    const bool all = o.stages == "all";
    const std::vector<std::string> requested =
        all ? std::vector<std::string>{} : split_list(o.stages);
    if (!all && requested.empty()) {
        throw ct::UsageError("--stage: give 'all' or a comma-separated list of stage ids");
    }
    if (all) {
        for (const reduction::StageInfo& s : reduction::stages()) {
            if (!s.by_default) {
                continue;
            }
            try {
                reduction::validate_configuration(s.id, o.n, o.block);
                ids.push_back(s.id);
            } catch (const std::invalid_argument& e) {
                notes.push_back(std::string("skipped: ") + e.what());
            }
        }
    } else {
        for (const std::string& id : requested) {
            try {
                reduction::validate_configuration(id, o.n, o.block);
            } catch (const std::invalid_argument& e) {
                throw ct::UsageError(std::string("--stage/--block/--n: ") + e.what());
            }
            ids.push_back(id);
        }
    }
    if (ids.empty()) {
        throw ct::UsageError("no stage supports --block " + std::to_string(o.block));
    }
    return ids;
}

int run(const Options& o) {
    // 1. Everything that can be checked without a GPU.
    if (o.n < 1 || o.n > (std::uint64_t{1} << 40)) {
        throw ct::UsageError("--n must be between 1 and 2^40; got " + std::to_string(o.n));
    }
    if (!ct::is_power_of_two(static_cast<std::uint64_t>(o.block > 0 ? o.block : 0)) ||
        o.block < 32 || o.block > 1024) {
        throw ct::UsageError("--block must be a power of two from 32 to 1024; got " +
                             std::to_string(o.block));
    }
    reduction::Pattern pattern{};
    try {
        pattern = reduction::parse_pattern(o.data);
    } catch (const std::invalid_argument& e) {
        throw ct::UsageError(std::string("--data: ") + e.what());
    }
    std::vector<std::string> notes;
    const std::vector<std::string> ids = select_stages(o, notes);

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
    // Stages 10-12 choose their candidate for this GPU: a short tuning pass on this input, before
    // any table row (adaptive_vectorized.hpp); the header says what it chose and why.
    if (std::any_of(ids.begin(), ids.end(),
                    [](const std::string& id) { return id == "10" || id == "11" || id == "12"; })) {
        const reduction::adaptive::TuningResult tuning =
            reduction::adaptive::tune_vectorized(d_in.data(), n, o.block);
        info.set("stages 10-12 run",
                 reduction::detail::describe_variant(tuning.choice.variant) + ", resident/" +
                     std::to_string(tuning.choice.occupancy_divisor) + " blocks per SM");
        info.set("stages 10-12 why", tuning.choice.why + "; " + tuning.derived.why);
        info.set("stages 10-12 candidates (ms)", tuning.table);
    }
    ct::ResultTable table(info);
    table.set_baseline(reduction::kCubStageId, "CUB");

    const ct::BenchmarkConfig config = o.common.benchmark_config();
    for (const std::string& id : ids) {
        const reduction::Reducer reducer(id, n, o.block);
        d_sum.fill_bytes(0xff);  // poison: a stage that writes nothing cannot pass
        const auto verify = [&] {
            int got = 0;
            d_sum.copy_to_host(&got, 1);
            if (got == expected) {
                return ct::Verification::pass();
            }
            return ct::Verification::fail("sum " + std::to_string(got) + ", expected " +
                                          std::to_string(expected));
        };
        const ct::Measurement m = ct::measure(
            [&](cudaStream_t s) { reducer.run(d_in.data(), d_sum.data(), s); }, verify, config);
        const ct::Stats first = ct::time_repeated(
            [&](cudaStream_t s) { reducer.run_first_pass(d_in.data(), d_sum.data(), s); }, config);

        const reduction::StageInfo& stage = reducer.stage();
        ct::ResultRow row = ct::make_row(stage.id, stage.name, m, static_cast<double>(bytes));
        row.in_progression = stage.in_progression;
        const auto& passes = reducer.passes();
        row.with("first pass ms", ct::format_ms(first.median_ms));
        // Stage 12 clears its output with a cudaMemsetAsync before its one kernel: one more
        // operation on the stream, which the column would otherwise hide.
        const std::string launches =
            std::to_string(passes.size()) + (id == "12" ? " + memset" : "");
        row.with("launches", id == reduction::kCubStageId ? "cub" : launches);
        row.with("grid", id == reduction::kCubStageId ? "cub" : std::to_string(passes[0].grid));
        if (stage.historical) {
            // A data race is undefined behaviour: passing here proves nothing, failing is the
            // lesson. Either way it must not decide the exit code.
            row.expected_failure = !row.passed;
            row.detail = (row.passed ? std::string("matched this time, but ") : row.detail + "; ") +
                         "historical volatile form: a data race since Volta (see README)";
        }
        table.add(row);
    }

    table.print(std::cout);
    for (const std::string& note : notes) {
        std::cout << note << "\n";
    }
    table.write_files(o.common.csv_path, o.common.json_path);
    return ct::to_int(table.all_passed() ? ct::ExitCode::kSuccess
                                         : ct::ExitCode::kVerificationFailed);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 3 - parallel reduction: textbook stages 1-9, beyond-the-book stages 10-12 and "
        "CUB, each summing N ints on the GPU (sum modulo 2^32) and checked against the CPU"};
    Options o;
    ct::add_size_option(app, "--n", o.n, "number of ints to sum (2^25, 1<<25, 32Mi, ...)");
    app.add_option("--block", o.block, "threads per block (power of two, 32-1024)")
        ->capture_default_str();
    std::string stage_help = "'all' or a comma-separated list of stage ids:";
    for (const reduction::StageInfo& s : reduction::stages()) {
        stage_help += " " + s.id;
    }
    stage_help += " ('all' leaves out 5v, the historical volatile form)";
    app.add_option("--stage", o.stages, stage_help)->capture_default_str();
    app.add_option("--data", o.data, "input pattern: random, ones, alternating, extremes")
        ->capture_default_str();
    app.add_option("--seed", o.seed, "seed of the input generator")->capture_default_str();
    ct::add_common_options(app, o.common);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
