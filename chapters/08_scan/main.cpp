// Chapter 8, scan (prefix sum): seven stages from the naive block scan to a single pass with
// decoupled look-back, a labelled wrong stage, CUB and the copy ceiling, each scanning the same
// N values on the GPU, checked against the CPU reference and timed.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "adaptive_lookback.hpp"
#include "copy_ceiling.hpp"
#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "scan.hpp"

namespace ct = cudatutorial;

namespace {

struct Options {
    std::uint64_t n = std::uint64_t{1} << 24;  // 64 MiB in, 64 MiB out
    int block = 256;
    std::string stages = "all";
    std::string kind = "inclusive";
    std::string data = "random";
    std::uint64_t seed = ct::kDefaultSeed;
    ct::CommonOptions common;
};

/// The options, checked before any GPU work.
struct Checked {
    scan::Kind kind = scan::Kind::kInclusive;
    scan::Pattern pattern = scan::Pattern::kRandom;
    /// The chosen stages in table order, the copy left out (it is always timed, first), each
    /// with why it cannot run with these options (a stage of `all` only; empty: it runs).
    std::vector<std::pair<const scan::StageInfo*, std::string>> stages;
};

Checked check_options(const Options& o) {
    if (o.n < 1 || o.n > (std::uint64_t{1} << 40)) {
        throw ct::UsageError("--n", "must be between 1 and 2^40; got " + std::to_string(o.n));
    }
    ct::require_power_of_two_block(o.block);
    Checked c;
    try {
        c.kind = scan::parse_kind(o.kind);
    } catch (const std::invalid_argument& e) {
        throw ct::UsageError("--kind", e.what());
    }
    try {
        c.pattern = scan::parse_pattern(o.data);
    } catch (const std::invalid_argument& e) {
        throw ct::UsageError("--data", e.what());
    }
    const std::vector<std::string> requested = ct::split_list(o.stages);
    if (requested.empty()) {
        throw ct::UsageError("--stage",
                             "give 'all', 'list' or a comma-separated list of stage ids");
    }
    const bool all = requested == std::vector<std::string>{"all"};
    for (const scan::StageInfo* stage : ct::select_stages<scan::StageInfo>(
             scan::stages(), requested, "--stage", [](const auto& s) { return s.by_default; })) {
        std::string reason;
        try {
            scan::validate_configuration(stage->id, o.n, o.block);
        } catch (const std::invalid_argument& e) {
            if (!all) {
                throw ct::UsageError("--block", e.what());
            }
            reason = e.what();
        }
        if (stage->id != scan::kCopyStageId) {
            c.stages.emplace_back(stage, reason);
        }
    }
    return c;
}

ct::RunInfo make_info(const Options& o, const Checked& c, const ct::DeviceInfo& device,
                      scan::Value last) {
    const std::size_t bytes = static_cast<std::size_t>(o.n) * sizeof(scan::Value);
    ct::RunInfo info = ct::make_run_info(
        "scan",
        std::string(scan::kind_name(c.kind)) +
            " scan of N uint32 values (sums modulo 2^32), the whole scan on the GPU (every launch "
            "timed)",
        device);
    info.set("N", ct::describe_size(o.n));
    info.set("bytes moved", ct::format_bytes(2.0 * static_cast<double>(bytes)) +
                                " (read N values, write N values: what the copy moves too)");
    info.set("block", std::to_string(o.block));
    info.set("kind", scan::kind_name(c.kind));
    info.set("data",
             std::string(scan::pattern_name(c.pattern)) + ", seed " + std::to_string(o.seed));
    info.set("last value", std::to_string(last));
    info.set("look-back wait limit",
             ct::format_fixed(static_cast<double>(scan::kDefaultWaitLimitNs) / 1e9, 1) + " s");
    info.set("reps", std::to_string(o.common.repetitions));
    return info;
}

/// "3 launches", "1 launch", "CUB's", "1 copy": what one run of `scanner` issues.
std::string launches_text(const scan::Scanner& scanner) {
    switch (scanner.stage().method) {
        case scan::Method::kCub:
            return "CUB's";
        case scan::Method::kCopy:
            return "1 copy";
        default: {
            const std::size_t count = scanner.launches().size();
            return std::to_string(count) + (count == 1 ? " launch" : " launches");
        }
    }
}

/// Everything one stage's row needs: its Scanner, the values it must produce, the buffers.
struct StageRun {
    const scan::Scanner& scanner;
    const std::vector<scan::Value>& want;  ///< the scan, or the input for the copy
    const ct::DeviceBuffer<scan::Value>& d_in;
    ct::DeviceBuffer<scan::Value>& d_out;
    ct::PinnedBuffer<scan::Value>& readback;
};

ct::StageHooks hooks_for(const StageRun& r) {
    ct::StageHooks hooks;
    hooks.poison = [r] { r.d_out.fill_bytes(scan::poison_byte(r.want.front())); };
    hooks.launch = [r](cudaStream_t s) { r.scanner.run(r.d_in.data(), r.d_out.data(), s); };
    hooks.verify = [r] {
        const std::string error = r.scanner.device_error();
        if (!error.empty()) {
            return ct::Verification::fail(error);
        }
        r.d_out.copy_to_host(r.readback.data(), r.want.size());
        const std::string why =
            scan::describe_mismatch(r.readback.data(), r.want.data(), r.want.size());
        return why.empty() ? ct::Verification::pass() : ct::Verification::fail(why);
    };
    hooks.bytes =
        ct::MemoryTraffic().reads<scan::Value>(r.want.size()).writes<scan::Value>(r.want.size());
    if (r.scanner.stage().role == ct::StageRole::kExpectedFailure) {
        // Every run waits out the time limit before its blocks give up (the flag is per run:
        // it holds the number of the run that raised it), so its time is the limit plus the
        // scan, not a scan's speed. Nothing here is worth timing more than a few times.
        hooks.adjust_timing = [](ct::BenchmarkConfig& config) {
            config.warmup = 0;
            config.repetitions = std::min(config.repetitions, 3);
        };
    }
    return hooks;
}

int run(const Options& o) {
    if (o.stages == "list") {  // registry information: no GPU needed
        return ct::list_stages(o.common, "scan", {{"", ct::descriptors(scan::stages())}});
    }
    // 1. Everything that can be checked without a GPU.
    const Checked checked = check_options(o);

    // 2. The device, and whether the input, the output and the workspace fit.
    const ct::DeviceInfo device = ct::select_device(o.common.device);
    ct::require_block_size(o.block, device, 32);
    const std::size_t n = static_cast<std::size_t>(o.n);
    const std::size_t bytes = n * sizeof(scan::Value);
    ct::require_device_memory(2 * bytes + bytes / 16 + (std::size_t{64} << 20),
                              "the input, the output and the workspace");

    // 3. Input, the CPU reference, the buffers.
    const std::vector<scan::Value> input = scan::make_input(checked.pattern, n, o.seed);
    const std::vector<scan::Value> expected = scan::reference_scan(input, checked.kind);
    const ct::DeviceBuffer<scan::Value> d_in(input);
    ct::DeviceBuffer<scan::Value> d_out(n);
    ct::PinnedBuffer<scan::Value> readback(n);

    // 4. Stage 7 runs the candidate that a short tuning pass on this input measures fastest on
    //    this GPU (measuring/adaptive_lookback.hpp), each candidate checked before it is timed;
    //    what it chose and why go into the header, and the choice to stage 7's Scanner.
    ct::RunInfo info = make_info(o, checked, device, expected.back());
    std::optional<scan::adaptive::TuningResult> tuning;
    if (std::any_of(checked.stages.begin(), checked.stages.end(), [](const auto& entry) {
            return entry.first->uses_tuner && entry.second.empty();
        })) {
        scan::adaptive::OutputCheck check;
        check.poison = [&] { d_out.fill_bytes(scan::poison_byte(expected.front())); };
        check.verify = [&] {
            d_out.copy_to_host(readback.data(), n);
            return scan::describe_mismatch(readback.data(), expected.data(), n);
        };
        tuning = scan::adaptive::tune_lookback(d_in.data(), d_out.data(), n, checked.kind, check);
        scan::adaptive::describe_choice(*tuning, info);
    }

    ct::TableRun table(info, o.common);
    table.set_baseline(scan::kCubStageId, "CUB");

    // 5. The ceiling first: every row's "% of copy" is its GB/s over this copy's.
    const scan::Scanner copy(scan::kCopyStageId, n, o.block, checked.kind);
    ct::ResultRow copy_row =
        table.time_stage(copy.stage(), hooks_for({copy, input, d_in, d_out, readback}));
    const scan::CopyCeiling ceiling(copy_row);

    // 6. The stages, in table order.
    for (const auto& [stage, reason] : checked.stages) {
        if (!reason.empty()) {
            table.skip(*stage, "not run: " + reason);
            continue;
        }
        const int candidate = stage->uses_tuner && tuning ? tuning->chosen : -1;
        const scan::Scanner scanner(stage->id, n, o.block, checked.kind, scan::kDefaultWaitLimitNs,
                                    candidate);
        ct::StageHooks hooks = hooks_for({scanner, expected, d_in, d_out, readback});
        hooks.extras = [&](ct::ResultRow& row) {
            ceiling.add_column(row);
            row.with("launches", launches_text(scanner));
        };
        table.run(*stage, hooks);
    }
    ceiling.add_column(copy_row);
    copy_row.with("launches", launches_text(copy));
    table.add(copy_row);
    return table.finish();
}

void add_options(CLI::App& app, Options& o) {
    ct::add_size_option(app, "--n", o.n,
                        "number of uint32 values to scan (2^24, 1<<24, 16Mi, ...)");
    app.add_option("--block", o.block,
                   "threads per block (power of two, 32-1024; CUB and the copy choose their own)")
        ->capture_default_str();
    ct::add_stage_option(app, o.stages, ct::stage_ids(scan::stages()),
                         " (the copy, the ceiling of the '% of copy' column, is always timed)");
    app.add_option("--kind", o.kind,
                   "inclusive (out[i] = in[0] + ... + in[i]) or exclusive "
                   "(out[i] = in[0] + ... + in[i-1], out[0] = 0)")
        ->capture_default_str();
    app.add_option("--data", o.data,
                   "input pattern: random, ones, max (0xFFFFFFFF everywhere: every sum wraps), "
                   "alternating")
        ->capture_default_str();
    ct::add_seed_option(app, o.seed);
    ct::add_common_options(app, o.common);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 8 - scan (prefix sum): stages 1-7 from the naive block scan to a single pass with "
        "decoupled look-back, a labelled wrong stage (6x), CUB and the copy ceiling, each scanning "
        "N uint32 values on the GPU (sums modulo 2^32), checked against the CPU"};
    Options o;
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
