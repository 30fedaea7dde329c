// `histogram --section wide`: 16-bit values into up to 65,536 bins. One group of rows per bin
// count (global atomics, privatization while it fits, clusters of 1-16 blocks, CUB), every row
// checked bin by bin against the CPU reference before and after timing.
#include "wide_section.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

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

struct GroupRow {
    const WideKernel* kernel;
    ct::ResultRow row;
};

// The speed-ups within one bin count: against CUB, and (cluster rows) against the fastest
// timed kernel that uses no cluster and is not CUB.
void add_group_ratios(std::vector<GroupRow>& group) {
    const auto median = [](const GroupRow& r) -> std::optional<double> {
        if (!r.row.timed || !r.row.passed || r.row.stats.median_ms <= 0) {
            return std::nullopt;
        }
        return r.row.stats.median_ms;
    };
    std::optional<double> cub;
    std::optional<double> best_other;
    for (const GroupRow& r : group) {
        const auto ms = median(r);
        if (!ms) {
            continue;
        }
        if (r.kernel->role == ct::StageRole::kBaseline) {
            cub = ms;
        } else if (r.kernel->cluster == 0) {
            best_other = best_other ? std::min(*best_other, *ms) : *ms;
        }
    }
    for (GroupRow& r : group) {
        const auto ms = median(r);
        r.row.with("x best non-cluster", ms && best_other && r.kernel->cluster > 0
                                             ? ct::format_fixed(*best_other / *ms, 2)
                                             : std::string("-"));
        r.row.with("x CUB", ms && cub ? ct::format_fixed(*cub / *ms, 2) : std::string("-"));
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
    if (options.block < 32) {  // the device's upper limit is checked once a device is selected
        throw ct::UsageError("--block", std::to_string(options.block) +
                                            " is not supported: it must be a power of two from 32 "
                                            "(one warp) to the device's limit");
    }

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
    for (const int bins : options.bins) {
        const Histogram reference = wide_reference_histogram(host, bins);
        std::vector<GroupRow> group;
        for (const WideKernel* kernel : selected) {
            const std::string id =
                options.bins.size() > 1 ? std::to_string(bins) + ":" + kernel->id : kernel->id;
            const WideArgs args{d_input.data(), n,         d_histogram.data(), bins, options.block,
                                options.grid,   &workspace};
            const std::string why_not = kernel->unsupported(args);
            if (!why_not.empty()) {
                table.add_note("skipped " + id + ": " + why_not);
                continue;
            }
            ct::StageHooks hooks;
            if (kernel->slow) {
                hooks.adjust_timing = [&](ct::BenchmarkConfig& config) {
                    config.repetitions = std::min(config.repetitions, options.slow_reps);
                    config.warmup = std::min(config.warmup, 1);
                };
            }
            WideShape shape;
            hooks.poison = [&] { d_histogram.fill_bytes(0xff); };  // a forgotten bin shows
            hooks.launch = [&](cudaStream_t stream) { shape = kernel->launch(args, stream); };
            hooks.verify = [&]() {
                std::vector<unsigned int> result(static_cast<std::size_t>(bins));
                d_histogram.copy_to_host(result.data(), result.size());
                const Comparison comparison = compare_wide_histograms(reference, result);
                return comparison.equal ? ct::Verification::pass()
                                        : ct::Verification::fail(comparison.detail);
            };
            hooks.bytes = static_cast<double>(n * 2);
            hooks.extras = [&](ct::ResultRow& row) {
                // Rows compare within each bin count (add_group_ratios), not along one
                // progression.
                row.in_progression = false;
                row.with("bins", std::to_string(bins));
                row.with("cluster", kernel->cluster ? std::to_string(kernel->cluster) : "-");
                row.with("shared/block", (kernel->role == ct::StageRole::kBaseline)
                                             ? std::string("CUB's own")
                                             : kib(shape.shared_bytes));
                row.with("resident blocks",
                         shape.resident_blocks ? std::to_string(shape.resident_blocks) : "-");
                row.with("grid x block",
                         (kernel->role == ct::StageRole::kBaseline)
                             ? std::string("CUB's own")
                             : std::to_string(shape.grid) + " x " + std::to_string(shape.block));
                row.with("runs", std::to_string(row.stats.samples));
            };
            ct::StageDescriptor this_bin_count = *kernel;
            this_bin_count.id = id;
            // Timed, not yet added: the group's ratios need every row of this bin count.
            group.push_back({kernel, table.time_stage(this_bin_count, hooks)});
        }
        add_group_ratios(group);
        for (GroupRow& r : group) {
            table.add(std::move(r.row));
        }
    }
    table.add_note(
        "x best non-cluster: the fastest verified row of the same bin count without a cluster and "
        "other than CUB, over this row (> 1: the cluster row is faster).");
    return table.finish();
}

}  // namespace histogram
