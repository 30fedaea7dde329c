// Launch-configuration helpers: grid sizes, shared memory, the int4 head/tail split, the pass
// plans, and the stage list's validation. Pure CPU arithmetic.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "reduction.hpp"
#include "stage_rows.hpp"

namespace cfg = reduction::config;

// An id past every stage's (each stage's number is at most the count of rows).
std::string no_such_stage() {
    return std::to_string(reduction::stages().size() + 1);
}

TEST(ReductionLaunchConfig, BlocksToCover) {
    EXPECT_EQ(cfg::blocks_to_cover(1, 256, 1), 1u);
    EXPECT_EQ(cfg::blocks_to_cover(256, 256, 1), 1u);
    EXPECT_EQ(cfg::blocks_to_cover(257, 256, 1), 2u);
    EXPECT_EQ(cfg::blocks_to_cover(512, 256, 2), 1u);
    EXPECT_EQ(cfg::blocks_to_cover(513, 256, 2), 2u);
    EXPECT_EQ(cfg::blocks_to_cover(std::size_t{1} << 25, 256, 1), 131072u);
    EXPECT_EQ(cfg::blocks_to_cover(std::size_t{1} << 25, 256, 2), 65536u);
}

TEST(ReductionLaunchConfig, SharedMemory) {
    EXPECT_EQ(cfg::tree_shared_bytes(256), 1024u);
    EXPECT_EQ(cfg::tree_shared_bytes(1024), 4096u);
    EXPECT_EQ(cfg::warp_sums_shared_bytes(256), 32u);
    EXPECT_EQ(cfg::warp_sums_shared_bytes(32), 4u);
    EXPECT_EQ(cfg::warp_sums_shared_bytes(1024), 128u);
}

TEST(ReductionLaunchConfig, GridStrideBlocks) {
    // Large inputs: one full wave of resident blocks (132 SMs x 8 blocks of 256 on an H100).
    EXPECT_EQ(cfg::grid_stride_blocks(std::size_t{1} << 25, 256, 2, 132, 8), 1056u);
    EXPECT_EQ(cfg::grid_stride_blocks(std::size_t{1} << 28, 1024, 16, 132, 2), 264u);
    // Small inputs: no block without work.
    EXPECT_EQ(cfg::grid_stride_blocks(1, 256, 2, 132, 8), 1u);
    EXPECT_EQ(cfg::grid_stride_blocks(1000, 256, 2, 132, 8), 2u);
    EXPECT_EQ(cfg::grid_stride_blocks(4096 * 16 + 1, 256, 16, 132, 8), 17u);
    // Never 0, even with a nonsensical occupancy.
    EXPECT_EQ(cfg::grid_stride_blocks(1 << 20, 256, 2, 132, 0), 132u);
}

TEST(ReductionLaunchConfig, VectorSplitCoversEveryElementOnce) {
    for (std::uintptr_t base : {0x1000u, 0x1004u, 0x1008u, 0x100cu}) {
        for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 15u, 16u, 17u, 1000u, 1027u}) {
            SCOPED_TRACE("address " + std::to_string(base) + ", n " + std::to_string(n));
            const cfg::VectorSplit s = cfg::split_for_vectors(base, n);
            EXPECT_EQ(s.head + 4 * s.vectors + s.tail, n);
            EXPECT_LE(s.head, 3u);
            EXPECT_LE(s.tail, 3u);
            if (s.vectors > 0) {
                EXPECT_EQ((base + 4 * s.head) % 16, 0u);  // the vectors start aligned
            }
            if (n >= 3 + 4) {
                EXPECT_EQ(s.head, ((16 - base % 16) % 16) / 4);
            }
        }
    }
    EXPECT_EQ(cfg::split_for_vectors(0x1004, 2).head, 2u);  // head capped by n
    EXPECT_EQ(cfg::split_for_vectors(0x1004, 2).vectors, 0u);
}

TEST(ReductionLaunchConfig, OneShotGridsCoverTheInputWithOneBlockPerTile) {
    // 2^30 ints, 256 threads x 4 int4 (16 ints) per thread: 4096 ints per block.
    EXPECT_EQ(cfg::one_shot_blocks(std::size_t{1} << 30, 256, 4), 262144u);
    EXPECT_EQ(cfg::one_shot_blocks(std::size_t{1} << 30, 256, 8), 131072u);
    EXPECT_EQ(cfg::one_shot_blocks(1, 1024, 8), 1u);
    EXPECT_EQ(cfg::one_shot_blocks(4097, 32, 4), 9u);
    // Past 2^31 ints the count is a 64-bit size; 2^40 ints at block 32 need more blocks than a
    // grid holds (the Reducer refuses that, like any grid over 2^31 - 1).
    EXPECT_EQ(cfg::one_shot_blocks((std::size_t{1} << 31) + 5, 256, 4), 524289u);
    EXPECT_EQ(cfg::one_shot_blocks(std::size_t{1} << 40, 32, 4), std::size_t{1} << 31);
    // Every int4 of the body has a block, whatever the start's alignment.
    for (std::uintptr_t base : {0x1000u, 0x1004u, 0x1008u, 0x100cu}) {
        for (std::size_t n :
             {1u, 3u, 4u, 31u, 32u, 33u, 1023u, 1024u, 1025u, 4095u, 4097u, 65537u}) {
            for (int block : {32, 256, 1024}) {
                for (int loads : {4, 8}) {
                    const std::size_t tile = static_cast<std::size_t>(block) * loads;
                    EXPECT_GE(cfg::one_shot_blocks(n, block, loads) * tile,
                              cfg::split_for_vectors(base, n).vectors)
                        << n << " " << block << " " << loads;
                }
            }
        }
    }
}

TEST(ReductionLaunchConfig, PlansEndInOneValue) {
    // Stage 1, 2^25 ints, block 256: partial sums 131072 -> 512 -> 2 -> 1 (four launches).
    const auto p1 = cfg::plan_passes("1", std::size_t{1} << 25, 256, 132, 8);
    ASSERT_EQ(p1.size(), 4u);
    EXPECT_EQ(p1[0].grid, 131072u);
    EXPECT_EQ(p1[1].count, 131072u);
    EXPECT_EQ(p1[1].grid, 512u);
    EXPECT_EQ(p1[2].grid, 2u);
    EXPECT_EQ(p1[3].count, 2u);
    EXPECT_EQ(p1[3].grid, 1u);
    EXPECT_EQ(p1[0].shared_bytes, 1024u);
    // Stage 4 covers twice as much per block.
    EXPECT_EQ(cfg::plan_passes("4", std::size_t{1} << 25, 256, 132, 8)[0].grid, 65536u);
    // Grid-stride stages: one wave, then one block.
    const auto p9 = cfg::plan_passes("9", std::size_t{1} << 25, 256, 132, 8);
    ASSERT_EQ(p9.size(), 2u);
    EXPECT_EQ(p9[0].grid, 1056u);
    EXPECT_EQ(p9[1].count, 1056u);
    EXPECT_EQ(p9[1].grid, 1u);
    // Single-pass stages and tiny inputs: one launch.
    EXPECT_EQ(cfg::plan_passes("11", std::size_t{1} << 25, 256, 132, 8).size(), 1u);
    EXPECT_EQ(cfg::plan_passes("12", std::size_t{1} << 25, 256, 132, 8).size(), 1u);
    EXPECT_EQ(cfg::plan_passes("10", 1000, 256, 132, 8).size(), 1u);
    EXPECT_EQ(cfg::plan_passes("1", 1, 32, 132, 8).size(), 1u);
    EXPECT_EQ(cfg::plan_passes("cub", 1000, 256, 132, 8).size(), 1u);
    // Every plan: each pass reads what the previous one wrote, and the last writes one value.
    for (const auto& stage : reduction::stages()) {
        for (std::size_t n : {1u, 2u, 33u, 1025u, 4097u, (1u << 20) + 7u}) {
            for (int block : {32, 64, 256, 1024}) {
                if (block < stage.min_block || stage.id == reduction::kCubStageId) {
                    continue;
                }
                SCOPED_TRACE("stage " + stage.id + ", n " + std::to_string(n) + ", block " +
                             std::to_string(block));
                const auto plan = cfg::plan_passes(stage.id, n, block, 132, 8);
                ASSERT_FALSE(plan.empty());
                EXPECT_EQ(plan[0].count, n);
                for (std::size_t k = 1; k < plan.size(); ++k) {
                    EXPECT_EQ(plan[k].count, plan[k - 1].grid);
                }
                // The last launch has one block, unless the stage combines its blocks itself.
                const bool self_combining = stage.combine == reduction::Combine::kLastBlock ||
                                            stage.combine == reduction::Combine::kAtomic;
                EXPECT_TRUE(plan.back().grid == 1 || (self_combining && plan.size() == 1));
            }
        }
    }
}

TEST(ReductionLaunchConfig, ValidationRejectsBadConfigurations) {
    EXPECT_NO_THROW(reduction::validate_configuration("1", 1, 32));
    EXPECT_NO_THROW(reduction::validate_configuration("9", 1, 32));
    EXPECT_NO_THROW(reduction::validate_configuration("12", 1u << 20, 1024));
    EXPECT_NO_THROW(reduction::validate_configuration("cub", 5, 0));  // CUB ignores the block
    EXPECT_THROW(reduction::validate_configuration("1", 0, 256), std::invalid_argument);
    EXPECT_THROW(reduction::validate_configuration("5", 100, 32), std::invalid_argument);
    EXPECT_THROW(reduction::validate_configuration("6", 100, 2048), std::invalid_argument);
    EXPECT_THROW(reduction::validate_configuration("3", 100, 96), std::invalid_argument);
    EXPECT_THROW(reduction::validate_configuration("3", 100, 16), std::invalid_argument);
    EXPECT_THROW(reduction::validate_configuration(no_such_stage(), 100, 256),
                 std::invalid_argument);
    try {
        reduction::validate_configuration("5", 100, 32);
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("64 to 1024"), std::string::npos) << e.what();
    }
}

TEST(ReductionLaunchConfig, StageList) {
    std::set<std::string> ids;
    for (const auto& s : reduction::stages()) {
        EXPECT_TRUE(ids.insert(s.id).second) << "duplicate id " << s.id;
        EXPECT_FALSE(s.name.empty());
        EXPECT_EQ(reduction::find_stage(s.id), &s);
    }
    for (const char* id :
         {"1", "2", "3", "4", "5", "5v", "6", "7", "8", "9", "10", "11", "12", "cub"}) {
        EXPECT_NE(reduction::find_stage(id), nullptr) << id;
    }
    EXPECT_EQ(reduction::find_stage("nope"), nullptr);
    EXPECT_FALSE(reduction::find_stage("5v")->by_default);
    EXPECT_EQ(reduction::find_stage("cub")->role, cudatutorial::StageRole::kBaseline);
    EXPECT_EQ(reduction::find_stage("5v")->role, cudatutorial::StageRole::kExpectedFailure);
    // What main() asks a stage instead of comparing ids: a stage that runs a tuned candidate
    // says so, and says how its candidates occupy an SM.
    for (const auto& s : reduction::stages()) {
        EXPECT_EQ(s.uses_tuner, s.variant_blocks_per_sm != nullptr) << s.id;
        EXPECT_EQ(s.launch == nullptr, s.combine == reduction::Combine::kCub) << s.id;
    }
    EXPECT_TRUE(reduction::find_stage("10")->uses_tuner);
}

TEST(ReductionLaunchConfig, TheStageListIsTheRowsOfTheStageFiles) {
    cudatutorial::testing::expect_rows_from_stage_files(reduction::stages(), "03_reduction");
    EXPECT_EQ(reduction::stages().back().id, reduction::kCubStageId);  // the baseline last
}

TEST(ReductionLaunchConfig, EachStageDescribesItsLaunches) {
    // The table's launches and grid columns, from each stage's plan (2^25 ints, block 256, 132
    // SMs, 8 resident blocks): stage 12 alone names the memset before its kernel.
    const auto columns = [](const std::string& id) {
        const auto passes = cfg::plan_passes(id, std::size_t{1} << 25, 256, 132, 8);
        return cfg::describe_launches(id, passes) + " / " + cfg::describe_grid(id, passes);
    };
    EXPECT_EQ(columns("1"), "4 / 131072");
    EXPECT_EQ(columns("4"), "3 / 65536");
    EXPECT_EQ(columns("9"), "2 / 1056");
    EXPECT_EQ(columns("11"), "1 / 1056");
    EXPECT_EQ(columns("12"), "1 + memset / 1056");
    EXPECT_EQ(columns("cub"), "cub / cub");
    EXPECT_THROW(cfg::describe_launches(no_such_stage(), {}), std::invalid_argument);
}
