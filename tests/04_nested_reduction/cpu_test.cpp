// Chapter 4 without a GPU: launch-count formulas, validation, hello-world expectations.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "cudatutorial/check.hpp"
#include "nested_reduction.hpp"
#include "stage_rows.hpp"

namespace nr = nested_reduction;
namespace ct = cudatutorial;

TEST(NestedReductionCpu, LaunchFormulasMatchTheTextbook) {
    // The textbook's configuration: 2^20 ints in blocks of 512 -> 2048 blocks, 8 levels below
    // the first: 16384 child grids for the one-child-per-block versions, 8 for the per-level one.
    const std::uint64_t n = std::uint64_t{1} << 20;
    EXPECT_EQ(nr::chunk_count(n, 512), 2048u);
    EXPECT_EQ(nr::device_launches(nr::Version::kPerBlockSync, n, 512), 16384u);
    EXPECT_EQ(nr::device_launches(nr::Version::kPerBlockTail, n, 512), 16384u);
    EXPECT_EQ(nr::device_launches(nr::Version::kPerLevelTail, n, 512), 8u);
    EXPECT_EQ(nr::formula_with_numbers(nr::Version::kPerBlockSync, n, 512), "2048*(9-1) = 16384");
    EXPECT_EQ(nr::formula_with_numbers(nr::Version::kPerLevelTail, n, 512), "9-1 = 8");
    // Not a multiple of the block: the last chunk is partial but still one chunk.
    EXPECT_EQ(nr::chunk_count(1000, 32), 32u);
    EXPECT_EQ(nr::device_launches(nr::Version::kPerBlockSync, 1000, 32), 32u * 4u);
    EXPECT_EQ(nr::device_launches(nr::Version::kPerLevelTail, 1, 1024), 9u);
    EXPECT_EQ(nr::log2_exact(1024), 10);
    EXPECT_THROW(nr::log2_exact(48), std::invalid_argument);
}

TEST(NestedReductionCpu, PendingLaunchPoolCoversEveryLaunch) {
    const std::uint64_t n = std::uint64_t{1} << 20;
    EXPECT_EQ(nr::pending_launches_needed(nr::Version::kPerBlockSync, n, 512), 16384u);
    EXPECT_EQ(nr::pending_launches_needed(nr::Version::kPerLevelTail, n, 512),
              nr::kDefaultPendingLaunches);
    EXPECT_EQ(nr::pending_launches_needed(nr::Version::kPerBlockTail, 64, 32),
              nr::kDefaultPendingLaunches);
}

TEST(NestedReductionCpu, ValidationRejectsWhatNoVersionSupports) {
    for (const auto& entry : nr::versions()) {
        SCOPED_TRACE(entry.id);
        EXPECT_THROW(nr::validate(entry.version, 0, 512), ct::UsageError);
        EXPECT_THROW(nr::validate(entry.version, nr::kMaxN + 1, 512), ct::UsageError);
        EXPECT_THROW(nr::validate(entry.version, 1000, 48), ct::UsageError);
        EXPECT_THROW(nr::validate(entry.version, 1000, 16), ct::UsageError);
        EXPECT_THROW(nr::validate(entry.version, 1000, 2048), ct::UsageError);
        EXPECT_NO_THROW(nr::validate(entry.version, 1000, 32));
        EXPECT_NO_THROW(nr::validate(entry.version, 1, 1024));
    }
    // The per-level version takes the default size; the per-block ones would need 262144
    // launches there, and say so.
    const std::uint64_t big = std::uint64_t{1} << 24;
    EXPECT_NO_THROW(nr::validate(nr::Version::kPerLevelTail, big, 512));
    EXPECT_THROW(nr::validate(nr::Version::kPerBlockSync, big, 512), ct::UsageError);
    const std::string reason = nr::unsupported_reason(nr::Version::kPerBlockTail, big, 512);
    EXPECT_NE(reason.find("262144"), std::string::npos) << reason;
    EXPECT_NO_THROW(nr::validate(nr::Version::kPerBlockSync, std::uint64_t{1} << 20, 512));
}

TEST(NestedReductionCpu, VersionListIsConsistent) {
    cudatutorial::testing::expect_rows_from_stage_files(nr::versions(), "04_nested_reduction", "v");
    for (const auto& entry : nr::versions()) {
        EXPECT_EQ(ct::find_stage_in(nr::versions(), entry.id), &entry);
        EXPECT_EQ(ct::find_stage_in(nr::versions(), entry.name), &entry);
        EXPECT_EQ(&nr::info(entry.version), &entry);
        EXPECT_FALSE(entry.seed_kernel.empty());
        EXPECT_NE(entry.launch, nullptr) << entry.id;
    }
    EXPECT_EQ(ct::find_stage_in(nr::versions(), "overflow_demo"), nullptr);
}

TEST(NestedReductionCpu, DescribesFailedDeviceLaunches) {
    nr::LaunchCounters counters;
    EXPECT_EQ(nr::describe_failures(counters, 2048), "");
    counters.launched = 13643;
    counters.failed = 2741;
    counters.first_error = static_cast<int>(cudaErrorLaunchPendingCountExceeded);
    const std::string text = nr::describe_failures(counters, 2048);
    EXPECT_NE(text.find("2741 device-side launches failed"), std::string::npos) << text;
    EXPECT_NE(text.find("cudaErrorLaunchPendingCountExceeded"), std::string::npos) << text;
    EXPECT_NE(text.find("--pending-launches"), std::string::npos) << text;
}

TEST(NestedHelloCpu, ExpectedLinesAndLaunches) {
    EXPECT_EQ(nr::expected_hello_lines(1, 8), (std::vector<std::uint64_t>{8, 4, 2, 1}));
    EXPECT_EQ(nr::expected_hello_lines(2, 8), (std::vector<std::uint64_t>{16, 8, 4, 2}));
    EXPECT_EQ(nr::expected_hello_lines(3, 1), (std::vector<std::uint64_t>{3}));
    EXPECT_EQ(nr::expected_hello_launches(nr::HelloVariant::kOneBlockChildren, 2, 8), 6u);
    EXPECT_EQ(nr::expected_hello_launches(nr::HelloVariant::kSameGridChildren, 2, 8), 3u);
    EXPECT_NO_THROW(nr::validate_hello(1, 1));
    EXPECT_THROW(nr::validate_hello(0, 8), ct::UsageError);
    EXPECT_THROW(nr::validate_hello(nr::kMaxHelloBlocks + 1, 8), ct::UsageError);
    EXPECT_THROW(nr::validate_hello(2, 6), ct::UsageError);
    EXPECT_THROW(nr::validate_hello(2, nr::kMaxHelloThreads * 2), ct::UsageError);
}
