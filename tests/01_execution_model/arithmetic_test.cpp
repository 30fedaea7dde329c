// The chapter's arithmetic, checked against values worked out by hand (no GPU needed).
#include <gtest/gtest.h>

#include <limits>

#include "cudatutorial/check.hpp"
#include "execution_model.hpp"

namespace em = execution_model;
namespace ct = cudatutorial;

TEST(ExecutionModelWarps, TextbookFortyByTwoBlock) {
    // 40 x 2 = 80 threads -> ceil(80 / 32) = 3 warps = 96 slots, 16 lanes idle.
    const em::WarpCount count = em::warps_per_block({40, 2, 1});
    EXPECT_EQ(count.threads, 80);
    EXPECT_EQ(count.warps, 3);
    EXPECT_EQ(count.slots, 96);
    EXPECT_EQ(count.idle_lanes, 16);
}

TEST(ExecutionModelWarps, CountsForOneTwoAndThreeDimensions) {
    struct Case {
        em::BlockShape block;
        long long warps, idle;
    };
    for (const Case& c :
         {Case{{1, 1, 1}, 1, 31}, Case{{32, 1, 1}, 1, 0}, Case{{33, 1, 1}, 2, 31},
          Case{{1024, 1, 1}, 32, 0}, Case{{16, 16, 1}, 8, 0}, Case{{10, 10, 10}, 32, 24},
          Case{{7, 3, 5}, 4, 23}, Case{{8, 8, 16}, 32, 0}}) {
        SCOPED_TRACE(c.block.to_string());
        const em::WarpCount count = em::warps_per_block(c.block);
        EXPECT_EQ(count.warps, c.warps);
        EXPECT_EQ(count.idle_lanes, c.idle);
        EXPECT_EQ(count.slots, count.warps * 32);
    }
}

TEST(ExecutionModelWarps, LinearizationIsXFastestThenYThenZ) {
    const em::BlockShape block{40, 2, 3};
    EXPECT_EQ(em::linear_thread_index(block, 0, 0, 0), 0);
    EXPECT_EQ(em::linear_thread_index(block, 39, 0, 0), 39);
    EXPECT_EQ(em::linear_thread_index(block, 0, 1, 0), 40);
    EXPECT_EQ(em::linear_thread_index(block, 5, 1, 0), 45);
    EXPECT_EQ(em::linear_thread_index(block, 0, 0, 1), 80);
    EXPECT_EQ(em::linear_thread_index(block, 39, 1, 2), 239);  // the last of 240 threads
    // Every index from 0 to threads - 1 exactly once.
    std::vector<int> seen(static_cast<std::size_t>(block.threads()), 0);
    for (int z = 0; z < block.z; ++z) {
        for (int y = 0; y < block.y; ++y) {
            for (int x = 0; x < block.x; ++x) {
                ++seen.at(static_cast<std::size_t>(em::linear_thread_index(block, x, y, z)));
            }
        }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), block.threads());
}

TEST(ExecutionModelWarps, WarpMapOfFortyByTwo) {
    // warp 0: x 0..31 of row 0; warp 1: x 32..39 of row 0 and x 0..23 of row 1;
    // warp 2: x 24..39 of row 1 (16 lanes, 16 idle).
    const auto map = em::warp_map({40, 2, 1});
    ASSERT_EQ(map.size(), 3u);
    ASSERT_EQ(map[0].size(), 1u);
    EXPECT_EQ(map[0][0].x_begin, 0);
    EXPECT_EQ(map[0][0].x_end, 32);
    ASSERT_EQ(map[1].size(), 2u);
    EXPECT_EQ(map[1][0].x_begin, 32);
    EXPECT_EQ(map[1][0].x_end, 40);
    EXPECT_EQ(map[1][0].y, 0);
    EXPECT_EQ(map[1][1].x_begin, 0);
    EXPECT_EQ(map[1][1].x_end, 24);
    EXPECT_EQ(map[1][1].y, 1);
    ASSERT_EQ(map[2].size(), 1u);
    EXPECT_EQ(map[2][0].x_begin, 24);
    EXPECT_EQ(map[2][0].x_end, 40);
    EXPECT_EQ(map[2][0].y, 1);
}

TEST(ExecutionModelWarps, LaneCheckAcceptsTheFormulaAndRejectsAnythingElse) {
    const em::BlockShape block{40, 2, 1};
    std::vector<em::LaneRecord> records(80);
    for (int i = 0; i < 80; ++i) {
        records[i] = {i % 32, i - i % 32};
    }
    EXPECT_TRUE(em::lanes_match_linearization(block, records, 32));
    records[45].lane = 0;  // thread (5, 1): linear 45, lane 13
    std::string why;
    EXPECT_FALSE(em::lanes_match_linearization(block, records, 32, &why));
    EXPECT_NE(why.find("(5,1,0)"), std::string::npos) << why;
}

TEST(ExecutionModelWarps, ParsesBlockShapes) {
    EXPECT_EQ(em::parse_block_shape("40,2"), (em::BlockShape{40, 2, 1}));
    EXPECT_EQ(em::parse_block_shape("40x2"), (em::BlockShape{40, 2, 1}));
    EXPECT_EQ(em::parse_block_shape("8,8,4"), (em::BlockShape{8, 8, 4}));
    EXPECT_EQ(em::parse_block_shape("256"), (em::BlockShape{256, 1, 1}));
    for (const char* bad : {"", "0,2", "a,b", "1,2,3,4", "40,,2", "-4,2", "1.5", "9999999999"}) {
        SCOPED_TRACE(bad);
        EXPECT_THROW(em::parse_block_shape(bad), ct::UsageError);
    }
    EXPECT_THROW(em::parse_block_list({"8x8x2"}), ct::UsageError);  // the sweep is 2D
    EXPECT_EQ(em::parse_block_list({"32x32", "256x1"}).size(), 2u);
    EXPECT_EQ(em::parse_block_list({"128X2"}).front(), (em::BlockShape{128, 2, 1}));
    // "--blocks 32,32" arrives as {"32", "32"}: an item without 'x' is refused, not read as 32x1.
    EXPECT_THROW(em::parse_block_list({"32", "32"}), ct::UsageError);
    EXPECT_THROW(em::parse_block_list({"256"}), ct::UsageError);
    EXPECT_THROW(em::parse_block_list({}), ct::UsageError);
}

TEST(ExecutionModelLittlesLaw, TextbookArithmeticTable) {
    // Fermi: 20 cycles x 32 ops/cycle = 640 ops = 20 warps; Kepler: 20 x 192 = 3840 = 120 warps.
    const auto fermi = em::arithmetic_parallelism(20, 32);
    EXPECT_DOUBLE_EQ(fermi.operations_in_flight, 640);
    EXPECT_DOUBLE_EQ(fermi.warps_per_sm, 20);
    const auto kepler = em::arithmetic_parallelism(20, 192);
    EXPECT_DOUBLE_EQ(kepler.operations_in_flight, 3840);
    EXPECT_DOUBLE_EQ(kepler.warps_per_sm, 120);
}

TEST(ExecutionModelLittlesLaw, TextbookMemoryExample) {
    // Fermi (Tesla C2070): the textbook divides 144 GB/s by the 1.566 GHz memory clock, 91.95
    // B/cycle, and multiplies by 800 cycles: 73,563 B (its "74 KB"). That is 800 cycles of the
    // memory clock = 510.86 ns, times 144 bytes per ns: the same bytes, computed in ns.
    // / 4 B = 18,391 threads; / 32 = 574.7 warps; / 16 SMs = 35.9.
    // (The textbook rounds to 74 KB first and gets 18,500 threads, 579 warps, 36 per SM.)
    const double latency_ns = em::cycles_to_ns(800, 1.566);
    EXPECT_NEAR(latency_ns, 510.856, 0.001);
    const auto p = em::memory_parallelism(latency_ns, 144, 4, 16);
    EXPECT_NEAR(p.bytes_in_flight, 73563.2, 0.1);
    EXPECT_NEAR(p.threads, 18390.8, 0.1);
    EXPECT_NEAR(p.warps, 574.71, 0.01);
    EXPECT_NEAR(p.warps_per_sm, 35.92, 0.01);
}

TEST(ExecutionModelLittlesLaw, HopperLikeFigures) {
    // 500 ns at 3352 GB/s (3352 bytes per ns) = 1,676,000 B in flight; 4-byte loads: 419,000
    // threads = 13,093.75 warps = 99.19 per SM on 132 SMs; 16-byte loads: 24.80 per SM.
    const auto four = em::memory_parallelism(500, 3352, 4, 132);
    EXPECT_NEAR(four.bytes_in_flight, 1676000.0, 1e-6);
    EXPECT_NEAR(four.threads, 419000.0, 1e-6);
    EXPECT_NEAR(four.warps, 13093.75, 1e-6);
    EXPECT_NEAR(four.warps_per_sm, 99.195, 0.001);
    const auto sixteen = em::memory_parallelism(500, 3352, 16, 132);
    EXPECT_NEAR(sixteen.warps_per_sm, 24.80, 0.01);
    // The same latency is 990 cycles at 1.98 GHz or 500 at 1.0 GHz: the bytes in flight do not
    // change with the SM clock (the mistake of reasoning in SM cycles).
    EXPECT_NEAR(em::cycles_to_ns(990, 1.98), 500.0, 1e-9);
    EXPECT_NEAR(em::cycles_to_ns(500, 1.0), 500.0, 1e-9);
    EXPECT_DOUBLE_EQ(em::cycles_to_ns(100, 0), 0.0);  // unknown clock: no figure, no crash
    // 4 cycles x 128 FMAs per cycle = 512 FMAs = 16 warps per SM.
    const auto fma = em::arithmetic_parallelism(4, 128);
    EXPECT_DOUBLE_EQ(fma.operations_in_flight, 512);
    EXPECT_DOUBLE_EQ(fma.warps_per_sm, 16);
}

TEST(ExecutionModelLittlesLaw, DramLatencyGivesTheClockItRanAt) {
    em::DramLatency latency;
    EXPECT_DOUBLE_EQ(latency.sm_clock_mhz(), 0.0);  // nothing measured
    latency.ns_per_load = 400;
    latency.cycles_per_load = 600;  // 1.5 cycles per ns: 1500 MHz
    EXPECT_DOUBLE_EQ(latency.sm_clock_mhz(), 1500.0);
}

namespace {

ct::DeviceInfo hopper_like_device() {
    ct::DeviceInfo d;
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.max_block_dim[0] = 1024;
    d.max_block_dim[1] = 1024;
    d.max_block_dim[2] = 64;
    d.max_threads_per_sm = 2048;
    d.max_warps_per_sm = 64;
    d.max_blocks_per_sm = 32;
    d.cc_major = 9;
    d.registers_per_sm = 65536;
    d.registers_per_block = 65536;
    d.shared_mem_per_sm = 233472;
    return d;
}

}  // namespace

TEST(ExecutionModelOccupancy, LimitsPerResourceByHand) {
    const ct::DeviceInfo d = hopper_like_device();
    em::KernelResources r;
    r.registers_per_thread = 16;
    r.reserved_shared_bytes = 1024;
    // 32 x 32: 32 warps -> 64 / 32 = 2 blocks by warps; 16 x 32 = 512 registers per warp (already
    // a multiple of 256), 16384 per scheduler hold 32 warps, 128 per SM -> 4 blocks.
    auto limits = em::occupancy_limits({32, 32, 1}, r, d);
    EXPECT_EQ(limits.by_warps, 2);
    EXPECT_EQ(limits.by_blocks, 32);
    EXPECT_EQ(limits.by_registers, 4);
    EXPECT_EQ(limits.by_shared_memory, 228);
    EXPECT_EQ(limits.modeled_blocks(), 2);
    EXPECT_EQ(em::limiting_resource(limits, 2), "warps");
    // 40 x 2: 3 warps -> 21 blocks by warps (63 warps); registers 128 warps / 3 = 42.
    limits = em::occupancy_limits({40, 2, 1}, r, d);
    EXPECT_EQ(limits.by_warps, 21);
    EXPECT_EQ(limits.by_registers, 42);
    // 32 threads: 1 warp -> 64 by warps, but 32 blocks at most: blocks limit, 50% occupancy.
    limits = em::occupancy_limits({32, 1, 1}, r, d);
    EXPECT_EQ(limits.by_warps, 64);
    EXPECT_EQ(limits.modeled_blocks(), 32);
    EXPECT_EQ(em::limiting_resource(limits, 32), "blocks");
    // 128 registers per thread at 256 threads: 4096 per warp, 4 warps per scheduler, 16 per SM,
    // 2 blocks of 8 warps: the registers limit (Exercise 4).
    r.registers_per_thread = 128;
    limits = em::occupancy_limits({256, 1, 1}, r, d);
    EXPECT_EQ(limits.by_registers, 2);
    EXPECT_EQ(em::limiting_resource(limits, 2), "registers");
    // A runtime answer that no limit gives means the model is missing a rule.
    EXPECT_NE(em::limiting_resource(limits, 1).find("disagrees"), std::string::npos);
    // No shared memory and no registers: those resources do not limit.
    limits = em::occupancy_limits({256, 1, 1}, em::KernelResources{}, d);
    EXPECT_EQ(limits.by_registers, std::numeric_limits<int>::max());
    EXPECT_EQ(limits.by_shared_memory, std::numeric_limits<int>::max());
}

// The allocation units: where the textbook's registers / (registers x threads) is wrong.
TEST(ExecutionModelOccupancy, RegistersInTheUnitsTheHardwareAllocates) {
    const ct::DeviceInfo d = hopper_like_device();
    em::KernelResources r;
    r.reserved_shared_bytes = 1024;
    // The matrix sum: 12 registers x 32 lanes = 384 -> 512 per warp; 16384 / 512 = 32 warps per
    // scheduler, 128 per SM: 4 / 8 / 16 / 32 blocks of 1024 / 512 / 256 / 128 threads, what ncu
    // reports. The formula without units says 5 / 10 / 21 / 42.
    r.registers_per_thread = 12;
    const int threads[] = {1024, 512, 256, 128};
    const int expected[] = {4, 8, 16, 32};
    const int without_units[] = {5, 10, 21, 42};
    for (int i = 0; i < 4; ++i) {
        const em::BlockShape block{threads[i], 1, 1};
        const auto limits = em::occupancy_limits(block, r, d);
        EXPECT_EQ(limits.registers_per_warp, 512);
        EXPECT_EQ(limits.warps_per_sm_by_registers, 128);
        EXPECT_EQ(limits.by_registers, expected[i]) << threads[i];
        EXPECT_EQ(em::blocks_by_registers_without_units(block, 12, d), without_units[i]);
    }
    // 33 registers: 1056 -> 1280 per warp; 16384 / 1280 = 12.8 -> 12 whole warps per scheduler,
    // 48 per SM: 6 blocks of 256 threads (without units: 65536 / 8448 = 7).
    r.registers_per_thread = 33;
    auto limits = em::occupancy_limits({256, 1, 1}, r, d);
    EXPECT_EQ(limits.registers_per_warp, 1280);
    EXPECT_EQ(limits.warps_per_sm_by_registers, 48);
    EXPECT_EQ(limits.by_registers, 6);
    EXPECT_EQ(em::blocks_by_registers_without_units({256, 1, 1}, 33, d), 7);
    // 200 registers, one-warp blocks: 6400 per warp; a scheduler holds 2 (16384 / 6400 = 2.56),
    // so 8 warps per SM = 8 blocks, where 65536 / 6400 would say 10.
    r.registers_per_thread = 200;
    limits = em::occupancy_limits({32, 1, 1}, r, d);
    EXPECT_EQ(limits.by_registers, 8);
    EXPECT_EQ(em::blocks_by_registers_without_units({32, 1, 1}, 200, d), 10);
    // 255 registers (8160 -> 8192 per warp) at 1024 threads: 32 x 8192 = 262144 > 65536 per
    // block: the block does not fit at all.
    r.registers_per_thread = 255;
    EXPECT_EQ(em::occupancy_limits({1024, 1, 1}, r, d).by_registers, 0);
    // 64 registers at 96 threads (3 warps): the launch check counts 4 warps x 2048 = 8192, fine.
    // With regsPerBlock 8192 it still fits; at 6144 it would not (4 x 2048 > 6144 >= 3 x 2048).
    r.registers_per_thread = 64;
    ct::DeviceInfo small = d;
    small.registers_per_block = 6144;
    EXPECT_EQ(em::occupancy_limits({96, 1, 1}, r, small).by_registers, 0);
    small.registers_per_block = 8192;
    EXPECT_GT(em::occupancy_limits({96, 1, 1}, r, small).by_registers, 0);
    // Shared memory is allocated in 128-byte units from cc 8.0 on (256 on cc 7.x).
    r.registers_per_thread = 0;
    r.static_shared_bytes = 100;
    EXPECT_EQ(em::occupancy_limits({32, 1, 1}, r, d).by_shared_memory, 233472 / 1152);
    ct::DeviceInfo volta = d;
    volta.cc_major = 7;
    EXPECT_EQ(em::occupancy_limits({32, 1, 1}, r, volta).by_shared_memory, 233472 / 1280);
}

TEST(ExecutionModelOccupancy, NamesTheBrokenLimit) {
    const ct::DeviceInfo d = hopper_like_device();
    EXPECT_EQ(em::block_shape_problem({32, 32, 1}, d, 1024), "");
    EXPECT_NE(em::block_shape_problem({256, 8, 1}, d, 1024).find("2048 threads"),
              std::string::npos);
    EXPECT_NE(em::block_shape_problem({4096, 1, 1}, d, 1024).find("x = 4096"), std::string::npos);
    EXPECT_NE(em::block_shape_problem({1, 1, 128}, d, 1024).find("z = 128"), std::string::npos);
    EXPECT_NE(em::block_shape_problem({512, 1, 1}, d, 256).find("this kernel"), std::string::npos);
}

TEST(ExecutionModelMatrixSum, GridsAndTheTextbookShapes) {
    EXPECT_EQ(em::grid_for(1 << 14, 1 << 14, {32, 32, 1}), (em::BlockShape{512, 512, 1}));
    EXPECT_EQ(em::grid_for(1 << 14, 1 << 14, {256, 1, 1}), (em::BlockShape{64, 16384, 1}));
    EXPECT_EQ(em::grid_for(1000, 33, {32, 16, 1}), (em::BlockShape{32, 3, 1}));
    const auto shapes = em::textbook_block_shapes();
    ASSERT_EQ(shapes.size(), 15u);
    EXPECT_EQ(shapes.front(), (em::BlockShape{32, 32, 1}));
    EXPECT_EQ(shapes.back(), (em::BlockShape{256, 8, 1}));
    EXPECT_DOUBLE_EQ(em::matrix_sum_bytes(1 << 14, 1 << 14), 3.0 * 4 * (1 << 28));
    EXPECT_EQ(em::matrix_sum_device_bytes(1 << 14, 1 << 14), std::size_t{3} * 4 * (1 << 28));
    EXPECT_EQ(em::matrix_sum_device_bytes(1 << 16, 1 << 16),
              std::size_t{3} * 4 << 32);  // no overflow
}

TEST(ExecutionModelMatrixSum, CpuCheckFindsTheFirstWrongElement) {
    const int nx = 5;
    const int ny = 3;
    std::vector<float> a(15), b(15), c(15);
    for (int i = 0; i < 15; ++i) {
        a[i] = 0.1f * i;
        b[i] = 1.0f - 0.3f * i;
        c[i] = a[i] + b[i];
    }
    EXPECT_TRUE(em::verify_matrix_sum(a.data(), b.data(), c.data(), nx, ny).passed);
    c[7] = std::numeric_limits<float>::quiet_NaN();  // an unwritten (poisoned) element
    const auto v = em::verify_matrix_sum(a.data(), b.data(), c.data(), nx, ny);
    EXPECT_FALSE(v.passed);
    EXPECT_NE(v.detail.find("(ix 2, iy 1)"), std::string::npos) << v.detail;
}

TEST(ExecutionModelProfiling, HelpNamesTheNcuMetrics) {
    const std::string help = em::profiling_help("./execution_model");
    for (const char* needle :
         {"ncu --clock-control none", "sm__warps_active.avg.pct_of_peak_sustained_active",
          "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
          "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "--section Occupancy",
          "./execution_model --section sweep"}) {
        EXPECT_NE(help.find(needle), std::string::npos) << needle;
    }
}
