// The launch arithmetic, without a GPU: tiles, the frame's levels, each stage's launches, 64-bit
// sizes, the grid limit, and what validate_configuration refuses.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "scan.hpp"

namespace cfg = scan::config;

namespace {

std::vector<std::string> kernels(const std::vector<cfg::Launch>& launches) {
    std::vector<std::string> names;
    for (const cfg::Launch& launch : launches) {
        names.push_back(launch.kernel);
    }
    return names;
}

std::vector<std::uint64_t> grids(const std::vector<cfg::Launch>& launches) {
    std::vector<std::uint64_t> sizes;
    for (const cfg::Launch& launch : launches) {
        sizes.push_back(launch.grid);
    }
    return sizes;
}

constexpr std::uint64_t kLarge = (std::uint64_t{1} << 31) + 33;

}  // namespace

TEST(ScanLaunchConfig, Tiles) {
    EXPECT_EQ(cfg::tiles(1, 512), 1u);
    EXPECT_EQ(cfg::tiles(512, 512), 1u);
    EXPECT_EQ(cfg::tiles(513, 512), 2u);
    EXPECT_EQ(cfg::tiles(std::uint64_t{1} << 28, 512), 524288u);
    EXPECT_EQ(cfg::tiles(kLarge, 4096), 524289u);  // past 2^31 values: 64-bit arithmetic
    EXPECT_EQ(cfg::tiles(std::uint64_t{1} << 40, 64), std::uint64_t{1} << 34);
}

TEST(ScanLaunchConfig, TileItemsPerStage) {
    for (const char* id : {"1", "2", "3", "4", "5", "6", "6x"}) {
        EXPECT_EQ(cfg::tile_items(*scan::find_stage(id), 256), 512u) << id;
        EXPECT_EQ(cfg::tile_items(*scan::find_stage(id), 32), 64u) << id;
    }
    for (int block : {32, 64, 128, 256, 512, 1024}) {
        const std::uint64_t tile = cfg::tile_items(*scan::find_stage("7"), block);
        EXPECT_EQ(tile % (4u * block), 0u) << block;  // whole int4 vectors for every thread
        EXPECT_GE(tile, 4u * block) << block;
    }
    EXPECT_EQ(cfg::tile_items(*scan::find_stage("cub"), 256), 0u);
}

TEST(ScanLaunchConfig, LevelSizes) {
    EXPECT_EQ(cfg::level_sizes(1, 512), std::vector<std::uint64_t>{});
    EXPECT_EQ(cfg::level_sizes(512, 512), std::vector<std::uint64_t>{});
    EXPECT_EQ(cfg::level_sizes(513, 512), std::vector<std::uint64_t>{2});
    EXPECT_EQ(cfg::level_sizes(std::uint64_t{1} << 28, 512),
              (std::vector<std::uint64_t>{524288, 1024, 2}));
    EXPECT_EQ(cfg::level_sizes(kLarge, 64),
              (std::vector<std::uint64_t>{33554433, 524289, 8193, 129, 3}));
}

TEST(ScanLaunchConfig, ScanThenPropagateLaunches) {
    const auto launches = cfg::plan_launches("1", std::uint64_t{1} << 28, 256);
    EXPECT_EQ(kernels(launches),
              (std::vector<std::string>{"scan_tiles", "scan_tiles", "scan_tiles", "scan_tiles",
                                        "add_carries", "add_carries", "add_carries"}));
    EXPECT_EQ(grids(launches), (std::vector<std::uint64_t>{524288, 1024, 2, 1, 1, 1023, 524287}));
    for (const cfg::Launch& launch : launches) {
        EXPECT_EQ(launch.block, 256);
    }
    // One tile: one launch, whatever the stage.
    for (const char* id : {"1", "2", "3", "4", "5", "6", "7"}) {
        const auto one = cfg::plan_launches(id, 1, 256);
        ASSERT_EQ(one.size(), 1u) << id;
        EXPECT_EQ(one[0].grid, 1u) << id;
    }
}

TEST(ScanLaunchConfig, ReduceThenScanReadsTheInputTwice) {
    const auto launches = cfg::plan_launches("5", std::uint64_t{1} << 28, 256);
    EXPECT_EQ(kernels(launches),
              (std::vector<std::string>{"reduce_tiles", "scan_tiles", "scan_tiles", "scan_tiles",
                                        "add_carries", "add_carries", "scan_tiles_from_carry"}));
    std::uint64_t passes_over_n = 0;
    for (const cfg::Launch& launch : launches) {
        passes_over_n += launch.count == (std::uint64_t{1} << 28);
    }
    EXPECT_EQ(passes_over_n, 2u);
    EXPECT_EQ(cfg::plan_launches("5", 1000, 256).back().kernel, "scan_tiles_from_carry");
}

TEST(ScanLaunchConfig, SinglePassIsOneLaunchOfOneBlockPerTile) {
    for (const char* id : {"6", "6x"}) {
        const auto launches = cfg::plan_launches(id, std::uint64_t{1} << 28, 256);
        ASSERT_EQ(launches.size(), 1u) << id;
        EXPECT_EQ(launches[0].grid, 524288u) << id;
    }
    const auto large = cfg::plan_launches("7", kLarge, 256);
    ASSERT_EQ(large.size(), 1u);
    EXPECT_EQ(large[0].grid, cfg::tiles(kLarge, cfg::tile_items(*scan::find_stage("7"), 256)));
    EXPECT_EQ(large[0].count, kLarge);
    EXPECT_EQ(cfg::plan_launches("cub", kLarge, 0).size(), 1u);
    EXPECT_EQ(cfg::plan_launches("copy", kLarge, 0)[0].kernel, "cudaMemcpyAsync");
}

TEST(ScanLaunchConfig, GridLimit) {
    EXPECT_EQ(cfg::checked_grid(INT_MAX, "1"), static_cast<unsigned int>(INT_MAX));
    EXPECT_THROW(cfg::checked_grid(std::uint64_t{INT_MAX} + 1, "1"), std::invalid_argument);
    try {
        cfg::plan_launches("1", std::uint64_t{1} << 40, 32);  // 2^34 tiles of 64
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("2^31 - 1"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(cfg::plan_launches("1", std::uint64_t{1} << 36, 1024));  // 2^25 tiles
}

TEST(ScanLaunchConfig, ValidateConfiguration) {
    EXPECT_NO_THROW(scan::validate_configuration("4", 1, 32));
    EXPECT_NO_THROW(scan::validate_configuration("7", 1000, 1024));
    EXPECT_THROW(scan::validate_configuration("4", 0, 256), std::invalid_argument);
    EXPECT_THROW(scan::validate_configuration("4", 100, 48), std::invalid_argument);
    EXPECT_THROW(scan::validate_configuration("4", 100, 16), std::invalid_argument);
    EXPECT_THROW(scan::validate_configuration("4", 100, 2048), std::invalid_argument);
    // An id past every stage's (each stage's number is at most the count of rows).
    const std::string no_such_stage = std::to_string(scan::stages().size() + 1);
    EXPECT_THROW(scan::validate_configuration(no_such_stage, 100, 256), std::invalid_argument);
    EXPECT_NO_THROW(scan::validate_configuration("cub", 100, 0));  // its own block size
    EXPECT_NO_THROW(scan::validate_configuration("copy", 100, 0));
    try {
        scan::validate_configuration("2", 100, 48);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("powers of two from 32 to 1024"), std::string::npos)
            << e.what();
    }
}
