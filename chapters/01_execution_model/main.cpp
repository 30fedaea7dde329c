// Chapter 1, the execution model: what this GPU is (device query), how blocks become warps,
// how much parallelism hides latency (Little's law), how many warps fit (occupancy), and what
// the block shape does to a memory-bound kernel (the 2D matrix-sum sweep).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <limits>
#include <utility>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/sections.hpp"
#include "cudatutorial/table_run.hpp"
#include "execution_model.hpp"
#include "sm_scaling.hpp"

namespace ct = cudatutorial;
namespace em = execution_model;

namespace {

struct Run;
// The chapter's sections as data (defined below, after the functions they run).
const ct::SectionTable<Run>& section_table();

void print_device_query(const ct::DeviceInfo& info) {
    std::vector<std::vector<std::string>> cells = {{"property", "value", "note"}};
    for (const auto& line : em::device_query_lines(info)) {
        cells.push_back({line.property, line.value, line.note});
    }
    std::cout << "== Device query ==\n";
    ct::print_aligned(std::cout, cells, {0, 1, 2});
}

std::string segment_text(const em::WarpSegment& s, const em::BlockShape& block) {
    std::string text = "x " + std::to_string(s.x_begin) +
                       (s.x_end - s.x_begin > 1 ? ".." + std::to_string(s.x_end - 1) : "");
    if (block.y > 1 || block.z > 1) {
        text += " @ y " + std::to_string(s.y);
    }
    if (block.z > 1) {
        text += ", z " + std::to_string(s.z);
    }
    return text;
}

void print_warps(const em::BlockShape& block, const ct::DeviceInfo* device) {
    const int warp_size = device ? device->warp_size : 32;
    const em::WarpCount count = em::warps_per_block(block, warp_size);
    const std::string w = std::to_string(warp_size);
    std::cout << "== Warps per block: block " << block.to_string() << " ==\n"
              << "threads per block      = " << block.x << " x " << block.y << " x " << block.z
              << " = " << count.threads << "\n"
              << "warps per block        = ceil(" << count.threads << " / " << w
              << ") = " << count.warps << "\n"
              << "thread slots allocated = " << count.warps << " x " << w << " = " << count.slots
              << "\n"
              << "idle lanes             = " << count.slots << " - " << count.threads << " = "
              << count.idle_lanes
              << (count.idle_lanes ? " (in the last warp: they hold registers but never run)" : "")
              << "\n"
              << "linear thread index    = threadIdx.z * " << block.y << " * " << block.x
              << " + threadIdx.y * " << block.x
              << " + threadIdx.x   (z * Dy * Dx + y * Dx + x; warp w = linear indices " << w
              << "w .. " << w << "w + " << warp_size - 1 << ")\n\n";

    const auto map = em::warp_map(block, warp_size);
    std::vector<std::vector<std::string>> cells = {{"warp", "lanes used", "threads it holds"}};
    const std::size_t shown_head = 8;
    for (std::size_t wi = 0; wi < map.size(); ++wi) {
        if (map.size() > shown_head + 1 && wi == shown_head) {
            cells.push_back(
                {"...", "", std::to_string(map.size() - shown_head - 1) + " more warps"});
            wi = map.size() - 1;
        }
        int used = 0;
        std::string text;
        for (const auto& segment : map[wi]) {
            used += segment.x_end - segment.x_begin;
            text += (text.empty() ? "" : " + ") + segment_text(segment, block);
        }
        if (used < warp_size) {
            text += "  (" + std::to_string(warp_size - used) + " lanes idle)";
        }
        cells.push_back({std::to_string(wi), std::to_string(used) + "/" + w, text});
    }
    ct::print_aligned(std::cout, cells, {0, 1, 2});
    if (device) {
        const auto records = em::record_lanes_on_gpu(block);
        std::string mismatch;
        const bool ok = em::lanes_match_linearization(block, records, warp_size, &mismatch);
        std::cout << "\nchecked on the GPU: every thread's %laneid = linear index mod " << w
                  << ", and lane 0 of its warp = linear index - lane: "
                  << (ok ? "yes" : "NO - " + mismatch) << "\n";
    }
}

std::string fixed(double value, int decimals) {
    return ct::format_fixed(value, decimals);
}

std::string thousands(double value) {
    if (value >= 1e6) {
        return fixed(value / 1e6, 2) + " M";
    }
    if (value >= 1e4) {
        return fixed(value / 1e3, 1) + " k";
    }
    return fixed(value, 0);
}

em::ProbeResults print_latency(const ct::DeviceInfo& info) {
    const em::ProbeResults probe = em::run_latency_probes(info);
    const double max_clock_mhz = info.sm_clock_khz / 1e3;
    const double probe_clock_mhz = probe.dram.sm_clock_mhz();
    const double bandwidth = info.theoretical_bandwidth_gbs();
    // The textbook's figures (Fermi/Kepler era), shown next to the measured ones. Its memory
    // latency is in SM cycles; it is turned into ns with the SM clock measured during the chase.
    constexpr double kBookArithmeticLatency = 20;
    constexpr double kBookMemoryLatencyCycles = 800;
    const double book_memory_ns = em::cycles_to_ns(kBookMemoryLatencyCycles, probe_clock_mhz / 1e3);

    std::cout << "== Latency hiding: Little's law, parallelism needed = latency x throughput ==\n";
    std::vector<std::vector<std::string>> inputs = {{"input", "value", "source"}};
    inputs.push_back({"SM clock, maximum",
                      max_clock_mhz > 0 ? fixed(max_clock_mhz, 0) + " MHz" : "unknown",
                      "cudaDevAttrClockRate"});
    inputs.push_back({"SM clock during the chase", fixed(probe_clock_mhz, 0) + " MHz",
                      "MEASURED here: clock64() cycles / %globaltimer ns over the pointer chase"});
    inputs.push_back({"DRAM bandwidth", fixed(bandwidth, 0) + " GB/s",
                      "2 x memory clock x bus width / 8 (device attributes); 1 GB/s = 1 byte/ns"});
    inputs.push_back({"SMs", std::to_string(info.sm_count), "device query"});
    inputs.push_back({"FP32 FMA latency", fixed(probe.fma_latency_cycles, 1) + " cycles",
                      "MEASURED here: one thread, a chain of dependent FMAs, clock64()"});
    inputs.push_back({"FP32 FMAs per cycle per SM", fixed(probe.fma_per_cycle_per_sm, 1),
                      "MEASURED here: every SM full, 8 independent FMA chains per thread"});
    inputs.push_back({"DRAM load latency",
                      fixed(probe.dram.ns_per_load, 0) +
                          " ns = " + fixed(probe.dram.cycles_per_load, 0) + " cycles",
                      "MEASURED here: pointer chase, " +
                          ct::format_bytes(static_cast<double>(probe.chase_bytes)) + ", " +
                          std::to_string(probe.chase_hops) +
                          " dependent loads, L2 flushed; %globaltimer and clock64()"});
    inputs.push_back({"textbook latencies", "20 / 800 cycles",
                      "ASSUMED by the textbook (Fermi/Kepler): arithmetic 10-20, global memory "
                      "400-800 cycles"});
    ct::print_aligned(std::cout, inputs, {0, 1, 2});

    std::cout
        << "\nArithmetic: FMAs in flight per SM = latency x FMAs per cycle per SM (both in SM "
           "cycles: the clock cancels); warps = FMAs / "
        << info.warp_size << " (one independent FMA per thread)\n";
    std::vector<std::vector<std::string>> arithmetic = {
        {"latency from", "latency", "x FMAs/cycle/SM", "= FMAs in flight/SM", "= warps/SM",
         "of max " + std::to_string(info.max_warps_per_sm)}};
    for (const auto& [label, latency] :
         {std::pair<std::string, double>{"measured", probe.fma_latency_cycles},
          std::pair<std::string, double>{"textbook (assumed)", kBookArithmeticLatency}}) {
        const auto p =
            em::arithmetic_parallelism(latency, probe.fma_per_cycle_per_sm, info.warp_size);
        arithmetic.push_back({label, fixed(latency, 1), fixed(probe.fma_per_cycle_per_sm, 1),
                              fixed(p.operations_in_flight, 0), fixed(p.warps_per_sm, 1),
                              fixed(100.0 * p.warps_per_sm / info.max_warps_per_sm, 0) + "%"});
    }
    ct::print_aligned(std::cout, arithmetic, {0});

    std::cout << "\nMemory: bytes in flight (whole GPU) = latency (ns) x bandwidth (GB/s = bytes "
                 "per ns), no SM clock involved; threads = bytes / bytes each thread has in "
                 "flight\n";
    std::vector<std::vector<std::string>> memory = {
        {"latency from", "latency ns", "x GB/s", "= bytes in flight", "bytes/thread", "threads",
         "warps", "warps/SM", "of max " + std::to_string(info.max_warps_per_sm)}};
    for (const auto& [label, latency_ns] :
         {std::pair<std::string, double>{"measured", probe.dram.ns_per_load},
          std::pair<std::string, double>{"textbook (assumed)", book_memory_ns}}) {
        for (const double bytes_per_thread : {4.0, 16.0}) {
            const auto p = em::memory_parallelism(latency_ns, bandwidth, bytes_per_thread,
                                                  info.sm_count, info.warp_size);
            memory.push_back({label, fixed(latency_ns, 0), fixed(bandwidth, 0),
                              ct::format_bytes(p.bytes_in_flight), fixed(bytes_per_thread, 0),
                              thousands(p.threads), thousands(p.warps), fixed(p.warps_per_sm, 1),
                              fixed(100.0 * p.warps_per_sm / info.max_warps_per_sm, 0) + "%"});
        }
    }
    ct::print_aligned(std::cout, memory, {0});
    std::cout << "(textbook: its " << fixed(kBookMemoryLatencyCycles, 0)
              << " cycles at the SM clock measured during the chase, " << fixed(probe_clock_mhz, 0)
              << " MHz)\n";
    const auto four = em::memory_parallelism(probe.dram.ns_per_load, bandwidth, 4.0, info.sm_count,
                                             info.warp_size);
    std::cout << "\nWith the measured latency, one 4-byte load in flight per thread needs "
              << fixed(four.warps_per_sm, 0) << " warps per SM; an SM holds at most "
              << info.max_warps_per_sm << ".\n"
              << (four.warps_per_sm > info.max_warps_per_sm
                      ? "Occupancy alone cannot hide DRAM latency here: each thread needs more "
                        "bytes in flight (16-byte loads, several independent loads: ILP).\n"
                      : "Full occupancy with one 4-byte load per thread is enough here; fewer "
                        "warps need more bytes in flight each (16-byte loads, ILP).\n");
    return probe;
}

void print_copy(const ct::DeviceInfo& info, const ct::BenchmarkConfig& config,
                const std::string& timing, const em::ProbeResults* probe) {
    // 1 GiB per buffer, or less where two of them would crowd the free memory.
    const std::size_t bytes =
        std::min<std::size_t>(std::size_t{1} << 30, ct::free_device_memory() / 4) / 16 * 16;
    const double peak = info.theoretical_bandwidth_gbs();
    std::cout << "== Copy bandwidth: what a program gets, next to the theoretical "
              << fixed(peak, 0) << " GB/s ==\n"
              << "copy of " << ct::format_bytes(static_cast<double>(bytes)) << " (moves "
              << ct::format_bytes(2.0 * static_cast<double>(bytes))
              << ": every byte read once and written once), " << timing
              << "; destination checked on the GPU\n";
    const auto results = em::measure_copy_bandwidth(info, bytes, config);
    std::vector<std::vector<std::string>> cells = {
        {"method", "median ms", "GB/s", "% of theoretical", "check"}};
    double best = 0;
    for (const auto& r : results) {
        cells.push_back({r.method, fixed(r.median_ms, 3), fixed(r.gbs, 0),
                         fixed(r.percent_of_peak, 1) + "%",
                         r.passed ? "PASS" : "FAIL " + r.detail});
        best = r.passed ? std::max(best, r.gbs) : best;
    }
    ct::print_aligned(std::cout, cells, {0, 4});
    if (probe == nullptr || best <= 0) {
        return;
    }
    // Little's law again, with the bandwidth a copy reaches instead of the theoretical one.
    std::cout << "\nLittle's law with each bandwidth and the latency measured above ("
              << fixed(probe->dram.ns_per_load, 0)
              << " ns; a random pointer chase, so it includes TLB misses that streaming loads "
                 "mostly avoid): warps per SM needed\n";
    std::vector<std::vector<std::string>> law = {{"bandwidth from", "GB/s", "bytes in flight",
                                                  "4 B/thread", "8 B/thread", "16 B/thread",
                                                  "32 B/thread"}};
    for (const auto& [label, gbs] : {std::pair<std::string, double>{"theoretical", peak},
                                     std::pair<std::string, double>{"best copy above", best}}) {
        std::vector<std::string> row = {label, fixed(gbs, 0)};
        row.push_back(ct::format_bytes(
            em::memory_parallelism(probe->dram.ns_per_load, gbs, 4.0, info.sm_count, info.warp_size)
                .bytes_in_flight));
        for (const double per_thread : {4.0, 8.0, 16.0, 32.0}) {
            const auto p = em::memory_parallelism(probe->dram.ns_per_load, gbs, per_thread,
                                                  info.sm_count, info.warp_size);
            row.push_back(fixed(p.warps_per_sm, 1));
        }
        law.push_back(row);
    }
    ct::print_aligned(std::cout, law, {0});
    std::cout << "(an SM holds at most " << info.max_warps_per_sm << " warps)\n";
}

void print_occupancy(const std::vector<em::BlockShape>& shapes, const ct::DeviceInfo& info) {
    const em::KernelResources r = em::matrix_sum_resources();
    const em::AllocationUnits units = em::allocation_units(info.cc_major);
    const em::OccupancyLimits unit_example = em::occupancy_limits({32, 32, 1}, r, info);
    const int per_scheduler = info.registers_per_sm / units.schedulers_per_sm;
    std::cout << "== Theoretical occupancy of sum_matrix_2d: modeled, and from "
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor ==\n"
              << "kernel: " << r.registers_per_thread << " registers per thread, "
              << r.static_shared_bytes << " B static shared memory (+ " << r.reserved_shared_bytes
              << " B reserved per block)\n"
              << "SM limits: " << info.max_warps_per_sm << " warps, " << info.max_blocks_per_sm
              << " blocks, " << info.registers_per_sm << " registers (" << info.registers_per_block
              << " per block), " << ct::format_bytes(static_cast<double>(info.shared_mem_per_sm))
              << " shared memory\n"
              << "registers, in the units the hardware allocates: " << r.registers_per_thread
              << " x " << info.warp_size << " lanes = " << r.registers_per_thread * info.warp_size
              << ", rounded up to a multiple of " << units.registers_per_warp_unit << " = "
              << unit_example.registers_per_warp << " per warp; " << units.schedulers_per_sm
              << " schedulers with " << per_scheduler << " registers each hold "
              << per_scheduler / std::max(1, unit_example.registers_per_warp)
              << " warps each = " << unit_example.warps_per_sm_by_registers
              << " warps per SM by registers\n"
              << "(without the units, " << info.registers_per_sm << " / (" << r.registers_per_thread
              << " x 1024) would allow "
              << em::blocks_by_registers_without_units({32, 32, 1}, r.registers_per_thread, info)
              << " blocks of 1024 threads; the hardware allows " << unit_example.by_registers
              << ")\n"
              << "occupancy = active warps per SM / " << info.max_warps_per_sm
              << "; blocks per SM allowed by each resource on its own, the smallest wins\n\n";
    std::vector<std::vector<std::string>> cells = {
        {"block", "threads", "warps", "by warps", "by blocks", "by registers", "by shared mem",
         "modeled blocks", "runtime blocks", "active warps", "occupancy", "limited by"}};
    const auto limit_text = [](int v) {
        return v == std::numeric_limits<int>::max() ? std::string("-") : std::to_string(v);
    };
    int disagreements = 0;
    for (const auto& shape : shapes) {
        const em::Occupancy o = em::matrix_sum_occupancy(shape, info);
        const auto warps = em::warps_per_block(shape, info.warp_size).warps;
        if (!o.launchable) {
            cells.push_back({shape.to_string(), std::to_string(shape.threads()),
                             std::to_string(warps), "-", "-", "-", "-", "-", "-", "-", "-",
                             "not launchable: " + o.why_not});
            continue;
        }
        const bool agree = o.modeled_blocks_per_sm == o.active_blocks_per_sm;
        disagreements += agree ? 0 : 1;
        cells.push_back({shape.to_string(), std::to_string(shape.threads()), std::to_string(warps),
                         limit_text(o.limits.by_warps), limit_text(o.limits.by_blocks),
                         limit_text(o.limits.by_registers), limit_text(o.limits.by_shared_memory),
                         std::to_string(o.modeled_blocks_per_sm) + (agree ? "" : " (!)"),
                         std::to_string(o.active_blocks_per_sm),
                         std::to_string(o.active_warps_per_sm), fixed(o.percent, 1) + "%",
                         o.limited_by});
    }
    ct::print_aligned(std::cout, cells, {0, 11});
    std::cout << "\nmodeled blocks = runtime blocks on every launchable row: "
              << (disagreements == 0 ? "yes"
                                     : "NO, " + std::to_string(disagreements) +
                                           " rows differ (!): the model misses a rule")
              << "\n";
}

// What no CUDA GPU launches (compute capability 2.0 on): more than 1,024 threads per block, more
// than 1,024 along x or y, more than 64 along z. Known without a device, so a shape over them is
// bad usage (exit 2) with or without a GPU; the device's own limits are checked once it is open.
std::string block_shape_over_every_gpu(const em::BlockShape& block) {
    constexpr int kMaxThreads = 1024;
    constexpr int kMaxXY = 1024;
    constexpr int kMaxZ = 64;
    if (block.threads() > kMaxThreads) {
        return "no GPU launches more than 1,024 threads per block; this one has " +
               std::to_string(block.threads());
    }
    if (block.x > kMaxXY || block.y > kMaxXY || block.z > kMaxZ) {
        return "no GPU launches a block of more than 1,024 threads along x or y, or 64 along z";
    }
    return {};
}

struct Options {
    std::string program = "execution_model";  ///< argv[0], for the --profile-help commands
    std::string block_shape = "40,2";
    std::uint64_t nx = 1 << 14;
    std::uint64_t ny = 1 << 14;
    std::vector<std::string> blocks;
    std::vector<std::string> sections;
    std::uint64_t seed = ct::kDefaultSeed;
    bool profile_help = false;
    ct::CommonOptions common;
};

void add_options(CLI::App& app, Options& o) {
    app.add_option("--block-shape", o.block_shape,
                   "block shape X,Y,Z (or XxY) for the warps section; the textbook's 40 x 2 "
                   "example by default")
        ->capture_default_str();
    ct::add_size_option(app, "--nx", o.nx, "matrix columns (floats per row)");
    ct::add_size_option(app, "--ny", o.ny, "matrix rows");
    app.add_option("--blocks", o.blocks,
                   "block shapes for the sweep, e.g. 32x32,128x2 (default: the textbook's 15, "
                   "(32,32) ... (256,8))")
        ->delimiter(',');
    section_table().add_option(app, o.sections);
    ct::add_seed_option(app, o.seed, "the random matrices");
    ct::add_profile_help_flag(app, o.profile_help, "the textbook's nvprof metrics");
    ct::add_common_options(app, o.common);
}

// What the sections of one run share: the options checked before any GPU work, the device, and
// the latencies the latency section measured (the copy section uses them).
struct Run {
    const Options& o;
    em::BlockShape block;
    int nx = 0;
    int ny = 0;
    std::vector<em::BlockShape> shapes;
    ct::DeviceInfo info;
    em::ProbeResults probe;
    bool probed = false;

    ct::CommonOptions files_for(const std::string& section) const;
};

int query_section(Run& r) {
    print_device_query(r.info);
    std::cout << "\n";
    return ct::to_int(ct::ExitCode::kSuccess);
}

int warps_section(Run& r) {
    print_warps(r.block, &r.info);
    std::cout << "\n";
    return ct::to_int(ct::ExitCode::kSuccess);
}

int latency_section(Run& r) {
    r.probe = print_latency(r.info);
    r.probed = true;
    std::cout << "\n";
    return ct::to_int(ct::ExitCode::kSuccess);
}

int copy_section(Run& r) {
    print_copy(r.info, r.o.common.benchmark_config(), r.o.common.timing_description(),
               r.probed ? &r.probe : nullptr);
    std::cout << "\n";
    return ct::to_int(ct::ExitCode::kSuccess);
}

int occupancy_section(Run& r) {
    std::vector<em::BlockShape> occupancy_shapes = r.shapes;
    if (std::find(r.shapes.begin(), r.shapes.end(), r.block) == r.shapes.end()) {
        occupancy_shapes.push_back(r.block);
    }
    print_occupancy(occupancy_shapes, r.info);
    std::cout << "\n";
    return ct::to_int(ct::ExitCode::kSuccess);
}

int sweep_section(Run& r) {
    ct::RunInfo run = ct::make_run_info("execution_model",
                                        "2D matrix sum C = A + B, one block shape per row", r.info);
    run.set("matrix", std::to_string(r.nx) + " x " + std::to_string(r.ny) + " floats");
    run.set("bytes per run",
            ct::format_bytes(em::matrix_sum_bytes(r.nx, r.ny)) + " (2 reads + 1 write)");
    run.set("timing", r.o.common.timing_description());
    ct::TableRun table(run, r.files_for("sweep"));
    em::run_matrix_sum_sweep(table, r.nx, r.ny, r.shapes, r.info, r.o.seed);
    const int status = table.finish();
    std::cout << "\n";
    return status;
}

int scaling_section(Run& r) {
    auto scaling = em::sm_scaling_table(std::cout, r.info, r.o.common.benchmark_config(),
                                        r.o.common.timing_description());
    if (!scaling) {
        return ct::to_int(ct::ExitCode::kSuccess);  // skipped, and it said why
    }
    ct::TableRun table(std::move(scaling->run), r.files_for("scaling"));
    for (ct::ResultRow& row : scaling->rows) {
        table.add(std::move(row));
    }
    for (const std::string& note : scaling->notes) {
        table.add_note(note);
    }
    return table.finish();
}

// The chapter's sections, in the order they run: name, what it shows, the function.
const ct::SectionTable<Run>& section_table() {
    using ct::section;
    static const ct::SectionTable<Run> table({
        ct::without_table(section<Run>(
            "query", "what this GPU is: SMs, warp size, limits, memory (the device query)",
            query_section)),
        ct::without_table(section<Run>(
            "warps",
            "how a block becomes warps: threads, warps and idle lanes of --block-shape, "
            "worked out on the CPU",
            warps_section)),
        ct::without_table(section<Run>(
            "latency",
            "how much parallelism hides latency: Little's law with this GPU's measured "
            "latencies",
            latency_section)),
        ct::without_table(section<Run>(
            "copy",
            "the DRAM bandwidth a copy gets (cudaMemcpyAsync and a copy kernel), next to "
            "the theoretical figure",
            copy_section)),
        ct::without_table(section<Run>(
            "occupancy",
            "how many warps fit: the theoretical occupancy of sum_matrix_2d, modeled and "
            "from the runtime",
            occupancy_section)),
        section<Run>("sweep",
                     "what the block shape does to a memory-bound kernel: the 2D matrix sum, one "
                     "block shape per row",
                     sweep_section),
        section<Run>("scaling",
                     "transparent scalability: the same kernels on partitions of the SMs (green "
                     "contexts)",
                     scaling_section),
    });
    return table;
}

ct::CommonOptions Run::files_for(const std::string& section) const {
    return section_table().files_for(o.common, o.sections, section);
}

int run(const Options& o) {
    const auto& sections = section_table();
    if (ct::SectionTable<Run>::is_list(o.sections)) {  // registry information: no GPU needed
        return sections.list(o.common, "execution_model");
    }
    sections.check(o.sections);
    if (o.profile_help) {
        std::cout << em::profiling_help(o.program);
        return ct::to_int(ct::ExitCode::kSuccess);
    }
    // Validate everything that needs no GPU before touching it (exit 2, nothing ran).
    const em::BlockShape block = em::parse_block_shape(o.block_shape);
    ct::require_range(o.nx, 1, 1u << 30, "--nx");
    ct::require_range(o.ny, 1, 1u << 30, "--ny");
    if (o.nx * o.ny > (std::uint64_t{1} << 32)) {
        throw ct::UsageError("--nx x --ny", std::to_string(o.nx * o.ny) +
                                                " elements is over this program's limit of 2^32");
    }
    const auto wanted = [&](const std::string& section) {
        return sections.wanted(o.sections, section);
    };
    // The warps section works out the layout of a block that can be launched.
    if (const std::string problem = block_shape_over_every_gpu(block);
        wanted("warps") && !problem.empty()) {
        throw ct::UsageError("--block-shape", block.to_string() + ": " + problem);
    }

    // The warps section is arithmetic: without a GPU it still runs (minus the hardware check).
    const bool cpu_only =
        !o.sections.empty() && std::all_of(o.sections.begin(), o.sections.end(),
                                           [](const std::string& s) { return s == "warps"; });
    if (cpu_only && ct::cuda_device_count() == 0) {
        print_warps(block, nullptr);
        std::cout << "\n(no CUDA device: the layout above was not checked on hardware)\n";
        return ct::to_int(ct::ExitCode::kSuccess);
    }
    Run r{o,
          block,
          static_cast<int>(o.nx),
          static_cast<int>(o.ny),
          o.blocks.empty() ? em::textbook_block_shapes() : em::parse_block_list(o.blocks),
          ct::select_device(o.common.device),
          {},
          false};
    const std::string block_problem = em::block_shape_problem(block, r.info, 0);
    if (wanted("warps") && !block_problem.empty()) {
        throw ct::UsageError("--block-shape", block.to_string() + ": " + block_problem);
    }
    // Before the first section: a sweep that cannot fit must stop here (exit 2), not after the
    // other sections have run their kernels.
    if (wanted("sweep")) {
        em::require_matrix_sum_memory(r.nx, r.ny);
    }
    if (wanted("scaling")) {
        ct::require_device_memory(em::sm_scaling_device_bytes(em::ScalingConfig{}, r.info),
                                  "the matrices of the scaling section");
    }
    return sections.run(o.sections, r);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 1 - the CUDA execution model: device query, warps per block, latency hiding "
        "(Little's law), occupancy, the 2D matrix-sum block-shape sweep, and transparent "
        "scalability on partitions of the SMs"};
    Options o;
    if (argc > 0) {
        o.program = argv[0];
    }
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
