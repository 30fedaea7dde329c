// Transparent scalability, measured: one grid, run on 8, 16, 24, ... SMs and on the whole GPU.
//
// The execution model promises that a grid of independent blocks runs on any number of SMs, and
// faster on more. Whether "faster" means "proportionally faster" depends on what limits the
// kernel. Each partition is a green context (green_context.hpp) holding that many SMs; the same
// two kernels run on each, timed by the common harness on the partition's stream:
//  - the chapter's matrix sum (memory-bound: 12 bytes per element, one add). Each SM can keep a
//    limited number of loads in flight, so a few SMs move few bytes per second; add SMs and the
//    bandwidth grows until DRAM is the limit. From there on, more SMs change nothing.
//  - an FMA loop (compute-bound: 8192 FMAs per thread, 4 bytes written). Each SM retires a fixed
//    number of FMAs per cycle, and DRAM is not involved: it should scale to the last SM.
// What to look for: the SM count where the matrix sum's GB/s stops growing (and Little's law
// under the table: bytes in flight per SM over the per-SM rate gives the latency that sets it),
// against the FMA loop's efficiency near 100% on every partition. "SMs seen" is the number of
// distinct %smid the blocks recorded: it must not exceed the partition, or nothing was confined.
#include "sm_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/table_run.hpp"
#include "green_context.hpp"

namespace execution_model {

namespace ct = cudatutorial;

std::vector<int> partition_sizes(int total_sms, int min_partition, int alignment) {
    if (total_sms < 1 || min_partition < 1 || alignment < 0) {
        throw std::invalid_argument("partition_sizes: SM count and minimum must be >= 1");
    }
    const int step = std::max(1, alignment);
    const int first = (min_partition + step - 1) / step * step;
    std::vector<int> sizes;
    for (int size = first; size < total_sms; size += step) {
        sizes.push_back(size);
    }
    sizes.push_back(total_sms);
    return sizes;
}

int distinct_sms(const std::vector<unsigned int>& sm_ids) {
    return static_cast<int>(std::set<unsigned int>(sm_ids.begin(), sm_ids.end()).size());
}

double scaling_efficiency(int base_sms, double base_ms, int sms, double ms) {
    if (base_sms < 1 || sms < 1 || !(base_ms > 0.0) || !(ms > 0.0)) {
        return 0.0;
    }
    return (base_ms / ms) / (static_cast<double>(sms) / base_sms);
}

int first_partition_reaching(const std::vector<ScalingPoint>& points, double fraction) {
    double best = 0.0;
    for (const ScalingPoint& p : points) {
        best = std::max(best, p.rate);
    }
    int first = 0;
    for (const ScalingPoint& p : points) {
        if (p.rate >= fraction * best && (first == 0 || p.sms < first)) {
            first = p.sms;
        }
    }
    return first;
}

float fma_chains_expected(std::uint64_t thread, int steps) {
    float sum = 0.0f;
    for (int k = 0; k < kScalingFmaChains; ++k) {
        sum += static_cast<float>((thread & 1023u) + static_cast<std::uint64_t>(k) +
                                  static_cast<std::uint64_t>(steps));
    }
    return sum;
}

float fma_chains_by_steps(std::uint64_t thread, int steps) {
    float sum = 0.0f;
    for (int k = 0; k < kScalingFmaChains; ++k) {
        float x = static_cast<float>((thread & 1023u) + static_cast<std::uint64_t>(k));
        for (int s = 0; s < steps; ++s) {
            x = std::fma(x, 1.0f, 1.0f);
        }
        sum += x;
    }
    return sum;
}

namespace {

constexpr unsigned int kNoSm = 0xffffffffu;  // the fill value: a block that recorded nothing

int fma_blocks(const ScalingConfig& config, const ct::DeviceInfo& device) {
    const int resident_per_sm =
        std::max(1, std::min(device.max_blocks_per_sm,
                             device.max_threads_per_sm / std::max(1, config.fma_threads)));
    return device.sm_count * resident_per_sm * std::max(1, config.fma_waves);
}

// "SMs seen" for a row, and a FAIL when the launch used more SMs than the partition holds or a
// block recorded none: the table claims confinement, so it checks it like a result.
void add_census(ct::ResultRow& row, const std::vector<unsigned int>& block_sm, int partition) {
    const auto unrecorded = std::count(block_sm.begin(), block_sm.end(), kNoSm);
    std::vector<unsigned int> recorded;
    recorded.reserve(block_sm.size());
    std::copy_if(block_sm.begin(), block_sm.end(), std::back_inserter(recorded),
                 [](unsigned int id) { return id != kNoSm; });
    const int seen = distinct_sms(recorded);
    row.with("SMs", std::to_string(partition));
    row.with("SMs seen", std::to_string(seen));
    std::string problem;
    if (unrecorded > 0) {
        problem = std::to_string(unrecorded) + " blocks recorded no SM";
    } else if (seen > partition) {
        problem = "blocks ran on " + std::to_string(seen) + " SMs, more than the " +
                  std::to_string(partition) + " of the partition: not confined";
    }
    if (!problem.empty()) {
        row.passed = false;
        row.detail += (row.detail.empty() ? "" : "; ") + problem;
    }
}

// The row of a partition the driver would not make: skipped (FAIL, expected), not a wrong result.
ct::ResultRow refused_row(const std::string& id, const std::string& name, int requested,
                          const std::string& why) {
    return ct::skipped_row(
        ct::StageDescriptor(id, name, ""),
        "no green context of " + std::to_string(requested) + " SMs: " + why,
        [requested](ct::ResultRow& row) { row.with("SMs", std::to_string(requested)); });
}

// A row and the SMs of its partition.
struct PartitionRow {
    ct::ResultRow row;
    int sms = 0;
};

// The rate columns (GB/s per SM for the matrix sum, GFLOP/s for the FMA loop), the speed-up over
// the smallest verified partition of the same kernel and its efficiency. `rate` gives GB/s or
// GFLOP/s of a timed row; `points` receives the verified ones.
void add_scaling_columns(std::vector<PartitionRow>& rows, bool memory_bound,
                         const std::function<double(const ct::ResultRow&)>& rate,
                         std::vector<ScalingPoint>& points) {
    const PartitionRow* base = nullptr;
    for (const PartitionRow& r : rows) {
        if (r.row.timed && r.row.passed && (base == nullptr || r.sms < base->sms)) {
            base = &r;
        }
    }
    for (PartitionRow& r : rows) {
        const bool timed = r.row.timed && r.row.stats.median_ms > 0.0;
        const double value = timed ? rate(r.row) : 0.0;
        r.row.with("GB/s per SM", memory_bound && timed ? ct::format_fixed(value / r.sms, 1) : "-");
        r.row.with("GFLOP/s", !memory_bound && timed ? ct::format_fixed(value, 0) : "-");
        const bool comparable = timed && base != nullptr;
        const double base_ms = comparable ? base->row.stats.median_ms : 0.0;
        r.row.with("x smallest",
                   comparable ? ct::format_fixed(base_ms / r.row.stats.median_ms, 2) : "-");
        r.row.with("efficiency",
                   comparable
                       ? ct::format_fixed(100.0 * scaling_efficiency(base->sms, base_ms, r.sms,
                                                                     r.row.stats.median_ms),
                                          0) +
                             "%"
                       : "-");
        if (timed && r.row.passed) {
            points.push_back({r.sms, value});
        }
    }
}

}  // namespace

std::size_t sm_scaling_device_bytes(const ScalingConfig& config, const ct::DeviceInfo& device) {
    const BlockShape grid = grid_for(config.nx, config.ny, config.block);
    const std::size_t blocks = static_cast<std::size_t>(fma_blocks(config, device));
    return matrix_sum_device_bytes(config.nx, config.ny) +
           blocks * static_cast<std::size_t>(config.fma_threads) * sizeof(float) +
           blocks * sizeof(unsigned int) +
           static_cast<std::size_t>(grid.x) * static_cast<std::size_t>(grid.y) *
               sizeof(unsigned int);
}

namespace {

// The memory-bound kernel: the chapter's matrix sum, its buffers and its exact check, run on one
// partition at a time.
class MatrixSumOnPartitions {
  public:
    explicit MatrixSumOnPartitions(const ScalingConfig& config)
        : config_(config),
          n_(static_cast<std::size_t>(config.nx) * static_cast<std::size_t>(config.ny)),
          a_(ct::random_floats(n_, config.seed, -1.0f, 1.0f)),
          b_(ct::random_floats(n_, config.seed + 1, -1.0f, 1.0f)),
          d_a_(a_),
          d_b_(b_),
          d_c_(n_),
          c_(n_),
          grid_(grid_for(config.nx, config.ny, config.block)),
          census_(static_cast<std::size_t>(grid_.x) * grid_.y) {}

    // The partition's row: timed and verified, then the SMs its blocks ran on.
    ct::ResultRow row(const SmPartition& partition, int sms, const ct::BenchmarkConfig& timing) {
        const int nx = config_.nx;
        const int ny = config_.ny;
        ct::StageHooks hooks;
        hooks.poison = [&] {
            d_c_.fill_bytes(0xff);  // NaN: an element the kernel skips cannot pass
            census_.fill_bytes(0xff);
            // The green stream does not wait for the legacy stream, where the fills run: hence
            // the device-wide synchronization before the kernel.
            CT_CHECK(cudaDeviceSynchronize());
        };
        hooks.launch = [&](cudaStream_t stream) {
            sum_matrix_2d(d_a_.data(), d_b_.data(), d_c_.data(), nx, ny, config_.block, stream);
        };
        hooks.verify = [&] {
            d_c_.copy_to_host(c_.data(), n_);
            return verify_matrix_sum(a_.data(), b_.data(), c_.data(), nx, ny);
        };
        hooks.bytes = ct::MemoryTraffic().reads<float>(2 * n_).writes<float>(n_);
        ct::ResultRow row =
            ct::time_stage({"sum@" + std::to_string(sms), "sum_matrix_2d", ""}, hooks, timing);
        launch_sm_census(census_.data(), grid_, config_.block, partition.stream());
        CT_CHECK(cudaStreamSynchronize(partition.stream()));
        add_census(row, census_.to_host(), sms);
        row.in_progression = false;
        return row;
    }

  private:
    const ScalingConfig& config_;
    std::size_t n_;
    std::vector<float> a_;
    std::vector<float> b_;
    ct::DeviceBuffer<float> d_a_;
    ct::DeviceBuffer<float> d_b_;
    ct::DeviceBuffer<float> d_c_;
    ct::PinnedBuffer<float> c_;
    BlockShape grid_;
    ct::DeviceBuffer<unsigned int> census_;
};

// The compute-bound kernel: the same grid on every partition, waves x what the GPU holds; every
// thread's chain checked exactly (integers below 2^24).
class FmaOnPartitions {
  public:
    FmaOnPartitions(const ScalingConfig& config, const ct::DeviceInfo& device)
        : config_(config),
          blocks_(fma_blocks(config, device)),
          threads_(static_cast<std::size_t>(blocks_) * config.fma_threads),
          expected_(threads_),
          d_fma_(threads_),
          d_fma_sm_(static_cast<std::size_t>(blocks_)) {
        const int steps = config.fma_trips * kScalingFmaUnroll;
        for (std::size_t t = 0; t < threads_; ++t) {
            expected_[t] = fma_chains_expected(t, steps);
        }
    }

    // Floating-point operations of one run.
    double flops() const {
        return fma_chains_flops(blocks_, config_.fma_threads, config_.fma_trips);
    }

    ct::ResultRow row(int sms, const ct::BenchmarkConfig& timing) {
        ct::StageHooks hooks;
        hooks.poison = [&] {
            d_fma_.fill_bytes(0xff);
            d_fma_sm_.fill_bytes(0xff);
            CT_CHECK(cudaDeviceSynchronize());  // as above: the fills are on the legacy stream
        };
        hooks.launch = [&](cudaStream_t stream) {
            launch_fma_chains(d_fma_.data(), d_fma_sm_.data(), blocks_, config_.fma_threads,
                              config_.fma_trips, stream);
        };
        hooks.verify = [&] { return verify(); };
        ct::ResultRow row =
            ct::time_stage({"fma@" + std::to_string(sms), "fma_chains", ""}, hooks, timing);
        add_census(row, d_fma_sm_.to_host(), sms);
        row.in_progression = false;
        return row;
    }

  private:
    ct::Verification verify() const {
        const std::vector<float> got = d_fma_.to_host();
        std::size_t wrong = 0;
        std::size_t first = 0;
        for (std::size_t t = 0; t < threads_; ++t) {
            if (!(got[t] == expected_[t])) {  // exact: integers below 2^24; NaN (poison) fails
                first = wrong == 0 ? t : first;
                ++wrong;
            }
        }
        if (wrong == 0) {
            return ct::Verification::pass();
        }
        return ct::Verification::fail(std::to_string(wrong) + " of " + std::to_string(threads_) +
                                      " threads wrong; first thread " + std::to_string(first) +
                                      ": got " + std::to_string(got[first]) + ", expected " +
                                      std::to_string(expected_[first]));
    }

    const ScalingConfig& config_;
    int blocks_;
    std::size_t threads_;
    std::vector<float> expected_;
    ct::DeviceBuffer<float> d_fma_;
    ct::DeviceBuffer<unsigned int> d_fma_sm_;
};

}  // namespace

ScalingResult run_sm_scaling(const ScalingConfig& config, const ct::DeviceInfo& device,
                             const ct::BenchmarkConfig& timing) {
    ScalingResult result;
    const GreenContextSupport support = green_context_support(device.id);
    if (!support.supported) {
        result.skipped = support.why_not;
        return result;
    }
    result.sm = support.sm;
    const std::vector<int> sizes =
        config.partitions.empty()
            ? partition_sizes(support.sm.sm_count, support.sm.min_partition, support.sm.alignment)
            : config.partitions;
    ct::require_device_memory(sm_scaling_device_bytes(config, device),
                              "the matrices and records of the scaling section");
    MatrixSumOnPartitions matrix_sum(config);
    FmaOnPartitions fma(config, device);
    result.matrix_warps_per_sm = matrix_sum_occupancy(config.block, device).active_warps_per_sm;

    std::vector<PartitionRow> sum_rows;
    std::vector<PartitionRow> fma_rows;
    std::set<int> measured;
    for (const int requested : sizes) {
        std::unique_ptr<SmPartition> partition;
        try {
            partition = std::make_unique<SmPartition>(device.id, requested);
        } catch (const GreenContextError& error) {
            if (sum_rows.empty()) {  // not even the first: green contexts do not work here
                result.skipped = error.what();
                return result;
            }
            sum_rows.push_back({refused_row("sum@" + std::to_string(requested), "sum_matrix_2d",
                                            requested, error.what()),
                                requested});
            fma_rows.push_back({refused_row("fma@" + std::to_string(requested), "fma_chains",
                                            requested, error.what()),
                                requested});
            continue;
        }
        const int sms = partition->sm_count();
        if (!measured.insert(sms).second) {
            continue;  // the driver rounded two requests to the same partition
        }
        ct::BenchmarkConfig on_partition = timing;
        on_partition.stream = partition->stream();
        sum_rows.push_back({matrix_sum.row(*partition, sms, on_partition), sms});
        fma_rows.push_back({fma.row(sms, on_partition), sms});
    }

    add_scaling_columns(
        sum_rows, true,
        [&](const ct::ResultRow& row) { return ct::bandwidth_gbs(row.bytes, row.stats.median_ms); },
        result.matrix_sum);
    const double flops = fma.flops();
    add_scaling_columns(
        fma_rows, false,
        [&](const ct::ResultRow& row) { return flops / (row.stats.median_ms * 1e6); }, result.fma);
    for (auto* rows : {&sum_rows, &fma_rows}) {
        for (PartitionRow& r : *rows) {
            result.rows.push_back(std::move(r.row));
        }
    }
    return result;
}

std::vector<std::string> sm_scaling_notes(const ScalingResult& result, int loaded_bytes_per_thread,
                                          int stored_bytes_per_thread) {
    std::vector<std::string> notes;
    if (result.matrix_sum.size() < 2) {
        return notes;
    }
    const auto by_sms = [](const ScalingPoint& x, const ScalingPoint& y) { return x.sms < y.sms; };
    const auto smallest =
        std::min_element(result.matrix_sum.begin(), result.matrix_sum.end(), by_sms);
    const auto largest =
        std::max_element(result.matrix_sum.begin(), result.matrix_sum.end(), by_sms);
    const auto best = std::max_element(
        result.matrix_sum.begin(), result.matrix_sum.end(),
        [](const ScalingPoint& x, const ScalingPoint& y) { return x.rate < y.rate; });
    // GB/s = bytes per ns, so bytes in flight / (GB/s per SM) is a latency in ns. The bytes in
    // flight are loads (what a warp waits for), so they are divided by the load part of the rate:
    // the rates count the store too (loaded / (loaded + stored) of them are loads). The resident
    // warps are the theoretical occupancy: if fewer are really resident, fewer bytes are in
    // flight, and the latency is shorter than computed. An upper bound, then.
    const double per_sm_small = smallest->rate / smallest->sms;
    const double per_sm_large = largest->rate / largest->sms;
    const double load_share = static_cast<double>(loaded_bytes_per_thread) /
                              (loaded_bytes_per_thread + stored_bytes_per_thread);
    const double loads_small = per_sm_small * load_share;
    const double loads_large = per_sm_large * load_share;
    const double in_flight =
        static_cast<double>(result.matrix_warps_per_sm) * 32.0 * loaded_bytes_per_thread;
    const std::string in_flight_text = ct::format_bytes(in_flight);
    const auto fixed = [](double v, int d) { return ct::format_fixed(v, d); };
    notes.push_back("Memory-bound: each SM holds " + std::to_string(result.matrix_warps_per_sm) +
                    " warps of the matrix sum, " + std::to_string(loaded_bytes_per_thread) +
                    " B of loads in flight per thread (A and B): at most " + in_flight_text +
                    " per SM. Little's law, load latency = load bytes in flight / load "
                    "throughput; the GB/s count the " +
                    std::to_string(stored_bytes_per_thread) + "-byte store too, so loads are " +
                    std::to_string(loaded_bytes_per_thread) + " of every " +
                    std::to_string(loaded_bytes_per_thread + stored_bytes_per_thread) + " bytes:");
    notes.push_back("  on " + std::to_string(smallest->sms) + " SMs: " + fixed(smallest->rate, 0) +
                    " GB/s = " + fixed(per_sm_small, 1) + " GB/s per SM, " + fixed(loads_small, 1) +
                    " GB/s of loads, so a load takes at most " + in_flight_text + " / " +
                    fixed(loads_small, 1) + " GB/s = " + fixed(in_flight / loads_small, 0) +
                    " ns;");
    notes.push_back("  on " + std::to_string(largest->sms) + " SMs: " + fixed(largest->rate, 0) +
                    " GB/s = " + fixed(per_sm_large, 1) + " GB/s per SM, " + fixed(loads_large, 1) +
                    " GB/s of loads, at most " + fixed(in_flight / loads_large, 0) +
                    " ns: the same bytes in flight come back later once DRAM's queues fill.");
    notes.push_back("At the " + std::to_string(smallest->sms) + "-SM rate per SM, the best rate (" +
                    fixed(best->rate, 0) + " GB/s, on " + std::to_string(best->sms) +
                    " SMs) would take " + fixed(best->rate / per_sm_small, 0) +
                    " SMs; with the latency growing, 90% of it took " +
                    std::to_string(first_partition_reaching(result.matrix_sum, 0.9)) + " SMs.");
    // Whether DRAM is saturated is read off the last step, not assumed: on the H100 the last SMs
    // added 14% of what an SM reads alone, on the H200 (1.44x the bandwidth) 47%.
    const ScalingPoint* before_last = nullptr;
    for (const ScalingPoint& p : result.matrix_sum) {
        if (p.sms < largest->sms && (before_last == nullptr || p.sms > before_last->sms)) {
            before_last = &p;
        }
    }
    const double marginal = (largest->rate - before_last->rate) / (largest->sms - before_last->sms);
    const std::string last_step = "The last " + std::to_string(largest->sms - before_last->sms) +
                                  " SMs added " + fixed(marginal, 1) + " GB/s each, " +
                                  fixed(100.0 * marginal / per_sm_small, 0) + "% of the " +
                                  std::to_string(smallest->sms) + "-SM rate per SM: ";
    notes.push_back(last_step + (marginal < per_sm_small / 3.0
                                     ? "DRAM, not the SMs, sets the time from there on."
                                     : "DRAM is not saturated yet; more SMs, or more bytes in "
                                       "flight per SM, would still read faster."));
    if (result.fma.size() >= 2) {
        const auto fma_small = std::min_element(result.fma.begin(), result.fma.end(), by_sms);
        const auto fma_large = std::max_element(result.fma.begin(), result.fma.end(), by_sms);
        const double speedup = fma_large->rate / fma_small->rate;
        const double ratio = static_cast<double>(fma_large->sms) / fma_small->sms;
        notes.push_back("Compute-bound: the FMA loop on " + std::to_string(fma_large->sms) +
                        " SMs is " + fixed(speedup, 2) + "x as fast as on " +
                        std::to_string(fma_small->sms) + " (" + fixed(ratio, 2) +
                        "x the SMs): " + fixed(100.0 * speedup / ratio, 0) +
                        "% efficiency. No DRAM involved, so every SM adds its FMA units.");
    }
    return notes;
}

}  // namespace execution_model
