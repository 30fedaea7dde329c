// `histogram --section wide`: 16-bit values into up to 65,536 bins. One group of rows per bin
// count (global atomics, privatization while it fits, clusters of 1-16 blocks, CUB), every row
// checked bin by bin against the CPU reference before and after timing.
#include "wide_section.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "wide_histogram.hpp"

namespace histogram {

namespace {

namespace ct = cudatutorial;

std::vector<const WideKernel*> select_wide_kernels(const std::vector<std::string>& wanted) {
    return ct::select_stages(wide_kernels(), wanted, "--stage");
}

std::string kib(std::size_t bytes) {
    return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + " KiB"
                             : ct::format_fixed(static_cast<double>(bytes) / 1024.0, 1) + " KiB";
}

std::string join(const std::vector<int>& values) {
    std::string text;
    for (const int v : values) {
        text += (text.empty() ? "" : ", ") + std::to_string(v);
    }
    return text;
}

// What every bin count's rows share: the options, the kernels chosen, the input (host and
// device), the output and CUB's workspace.
struct WideRun {
    const WideSectionOptions& options;
    const std::vector<const WideKernel*>& selected;
    const std::vector<WideValue>& host;
    const ct::DeviceBuffer<WideValue>& d_input;
    ct::DeviceBuffer<unsigned int>& d_histogram;
    WideWorkspace& workspace;
};

// How `kernel` runs at `bins`: its launch, its check against `reference` bin by bin, its bytes
// and its columns. The group is the bin count, so that "x CUB" compares with CUB at the same
// bin count (the table's baseline, per group).
ct::StageHooks wide_hooks(WideRun& run, const WideKernel& kernel, const WideArgs& args,
                          const Histogram& reference, WideShape& shape) {
    ct::StageHooks hooks;
    if (kernel.slow) {
        hooks.adjust_timing = [&run](ct::BenchmarkConfig& config) {
            config.repetitions = std::min(config.repetitions, run.options.slow_reps);
            config.warmup = std::min(config.warmup, 1);
        };
    }
    hooks.poison = [&run] { run.d_histogram.fill_bytes(0xff); };  // a forgotten bin shows
    hooks.launch = [&kernel, args, &shape](cudaStream_t stream) {
        shape = kernel.launch(args, stream);
    };
    hooks.verify = [&run, &reference] {
        std::vector<unsigned int> result(reference.size());
        run.d_histogram.copy_to_host(result.data(), result.size());
        const Comparison comparison = compare_wide_histograms(reference, result);
        return comparison.equal ? ct::Verification::pass()
                                : ct::Verification::fail(comparison.detail);
    };
    hooks.bytes = ct::MemoryTraffic().reads<WideValue>(args.n);
    hooks.extras = [&kernel, &shape](ct::ResultRow& row) {
        // Rows compare within their bin count (x CUB, x best non-cluster), not along one
        // progression.
        row.in_progression = false;
        row.with("cluster", kernel.cluster ? std::to_string(kernel.cluster) : "-");
        row.with("shared/block", shape.chosen_by ? shape.describe() : kib(shape.shared_bytes));
        row.with("resident blocks",
                 shape.resident_blocks ? std::to_string(shape.resident_blocks) : "-");
        row.with("grid x block", shape.describe());
        row.with("runs", std::to_string(row.stats.samples));
    };
    hooks.group = std::to_string(args.bins);
    return hooks;
}

// "x best non-cluster" of one bin count's rows: the fastest verified row without a cluster and
// other than CUB, over each cluster row. It needs every row of the bin count, so the rows are
// timed first and added after.
void add_best_non_cluster(std::vector<std::pair<const WideKernel*, ct::ResultRow>>& rows) {
    const auto median = [](const ct::ResultRow& row) -> std::optional<double> {
        if (!row.timed || !row.passed || row.stats.median_ms <= 0) {
            return std::nullopt;
        }
        return row.stats.median_ms;
    };
    std::optional<double> best_other;
    for (const auto& [kernel, row] : rows) {
        const auto ms = median(row);
        if (ms && kernel->role != ct::StageRole::kBaseline && kernel->cluster == 0) {
            best_other = best_other ? std::min(*best_other, *ms) : *ms;
        }
    }
    for (auto& [kernel, row] : rows) {
        const auto ms = median(row);
        row.with("x best non-cluster", ms && best_other && kernel->cluster > 0
                                           ? ct::format_fixed(*best_other / *ms, 2)
                                           : std::string("-"));
    }
}

// One bin count: every selected kernel that can run it (the others are noted as skipped),
// checked against the CPU reference before and after timing.
void add_bin_count_rows(ct::TableRun& table, WideRun& run, int bins) {
    const Histogram reference = wide_reference_histogram(run.host, bins);
    std::vector<std::pair<const WideKernel*, ct::ResultRow>> rows;
    for (const WideKernel* kernel : run.selected) {
        const WideArgs args{run.d_input.data(), run.host.size(),  run.d_histogram.data(), bins,
                            run.options.block,  run.options.grid, &run.workspace};
        if (const std::string why_not = kernel->unsupported(args); !why_not.empty()) {
            // Named as the rows of several bin counts used to be: "65536:private".
            const std::string where =
                run.options.bins.size() > 1 ? std::to_string(bins) + ":" + kernel->id : kernel->id;
            table.add_note("skipped " + where + ": " + why_not);
            continue;
        }
        WideShape shape;
        rows.emplace_back(
            kernel, table.time_stage(*kernel, wide_hooks(run, *kernel, args, reference, shape)));
    }
    add_best_non_cluster(rows);
    for (auto& entry : rows) {
        table.add(std::move(entry.second));
    }
}

}  // namespace

int run_wide_section(const WideSectionOptions& options) {
    // Option errors first, without a GPU: exit code 2.
    for (const int bins : options.bins) {
        ct::require_range(static_cast<std::uint64_t>(std::max(bins, 0)), 1, kWideValues,
                          "--wide-bins");
    }
    WideDistribution distribution;
    try {
        distribution = parse_wide_distribution(options.dist);
    } catch (const std::invalid_argument& error) {
        throw ct::UsageError("--dist", error.what());
    }
    // kMaxInputBytes is the counters' limit: at most 2^32 - 1 counts in one bin.
    if (options.n > kMaxInputBytes) {
        throw ct::UsageError("--n", std::to_string(options.n) +
                                        " is out of range: --section wide counts at most " +
                                        std::to_string(kMaxInputBytes) + " 16-bit values");
    }
    const std::vector<const WideKernel*> selected = select_wide_kernels(options.kernels);
    ct::require_power_of_two_block(options.block);  // the device's own limit once it is open

    const ct::DeviceInfo device = ct::select_device(options.common.device);
    ct::require_block_size(options.block, device);
    const auto n = static_cast<std::size_t>(options.n);
    const std::vector<WideValue> host = generate_wide_input(distribution, n, options.seed);
    ct::require_device_memory(n * sizeof(WideValue) + kWideValues * 4 + (256 << 20),
                              "the input, the histogram and CUB's workspace");
    const ct::DeviceBuffer<WideValue> d_input(host);
    ct::DeviceBuffer<unsigned int> d_histogram(kWideValues);
    WideWorkspace workspace;

    ct::RunInfo info =
        ct::make_run_info("histogram", "wide histogram: 16-bit values, up to 65,536 bins", device);
    info.set("section", "wide");
    info.set("input", options.dist + " 16-bit values, seed " + std::to_string(options.seed));
    info.set("values", ct::describe_size(n));
    info.set("bins", join(options.bins));
    info.set("block", std::to_string(options.block));
    info.set("grid", options.grid ? std::to_string(options.grid)
                                  : "auto (resident blocks or clusters, capped by the work)");
    info.set("reps", std::to_string(options.common.repetitions) + " (global: " +
                         std::to_string(std::min(options.slow_reps, options.common.repetitions)) +
                         ")");
    ct::TableRun table(info, options.common);
    // One group of rows per bin count, shown in the "bins" column; x CUB compares each row with
    // CUB at its own bin count.
    table.set_group_column("bins");
    table.set_baseline("cub", "CUB");
    WideRun run{options, selected, host, d_input, d_histogram, workspace};
    for (const int bins : options.bins) {
        add_bin_count_rows(table, run, bins);
    }
    table.add_note(
        "x best non-cluster: the fastest verified row of the same bin count without a cluster and "
        "other than CUB, over this row (> 1: the cluster row is faster).");
    return table.finish();
}

}  // namespace histogram
