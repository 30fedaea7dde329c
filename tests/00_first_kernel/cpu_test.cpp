// Chapter 0's CPU side: the stencil reference by hand, the vector-add and canary checks (they
// must fail on what they exist to catch), the index-map check and the launch arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cudatutorial/errors.hpp"
#include "first_kernel.hpp"

namespace fk = first_kernel;

namespace {

float poison_float() {
    float value;
    std::memset(&value, 0xff, sizeof value);
    return value;
}

}  // namespace

TEST(FirstKernelReference, StencilByHand) {
    EXPECT_EQ(fk::stencil_reference({1, 2, 3, 4, 5}, 1), (std::vector<int>{3, 6, 9, 12, 9}));
    EXPECT_EQ(fk::stencil_reference({1, 2, 3, 4, 5}, 2), (std::vector<int>{6, 10, 15, 14, 12}));
    // A radius wider than the array: every output sums the whole array.
    EXPECT_EQ(fk::stencil_reference({4, -1, 7}, 64), (std::vector<int>{10, 10, 10}));
    EXPECT_EQ(fk::stencil_reference({5}, 3), (std::vector<int>{5}));
    EXPECT_TRUE(fk::stencil_reference({}, 3).empty());
}

TEST(FirstKernelReference, StencilMatchesTheDefinitionOnRandomInput) {
    const std::vector<int> in = fk::make_stencil_input(4099, 7);
    for (const int radius : {1, 3, 17, 64}) {
        const std::vector<int> out = fk::stencil_reference(in, radius);
        for (std::size_t i = 0; i < in.size(); i += 97) {
            long long sum = 0;
            for (long long k = static_cast<long long>(i) - radius;
                 k <= static_cast<long long>(i) + radius; ++k) {
                if (k >= 0 && k < static_cast<long long>(in.size())) {
                    sum += in[static_cast<std::size_t>(k)];
                }
            }
            ASSERT_EQ(out[i], sum) << "i = " << i << ", radius " << radius;
        }
    }
    for (const int value : in) {
        ASSERT_GE(value, -1000);
        ASSERT_LE(value, 1000);
    }
}

TEST(FirstKernelReference, VectorAddCheckCatchesWhatItMust) {
    const std::vector<float> a = {1.5f, -2.0f, 0.25f, 0.0f};
    const std::vector<float> b = {0.5f, 2.0f, 0.125f, 0.0f};
    std::vector<float> c = {2.0f, 0.0f, 0.375f, poison_float()};  // n = 3, one canary element
    EXPECT_TRUE(fk::verify_vector_add(a, b, c, 3).passed);

    std::vector<float> wrong = c;
    wrong[1] = 1e-30f;  // off by a hair: bit for bit catches it
    EXPECT_FALSE(fk::verify_vector_add(a, b, wrong, 3).passed);

    std::vector<float> unwritten = c;
    unwritten[2] = poison_float();  // a NaN left by an element never written
    EXPECT_FALSE(fk::verify_vector_add(a, b, unwritten, 3).passed);

    std::vector<float> past_the_end = c;
    past_the_end[3] = 0.0f;  // a write into the canary: the missing guard
    const auto verdict = fk::verify_vector_add(a, b, past_the_end, 3);
    EXPECT_FALSE(verdict.passed);
    EXPECT_NE(verdict.detail.find("past the end"), std::string::npos) << verdict.detail;
    EXPECT_EQ(fk::first_touched_canary(past_the_end, 3), 3u);
    EXPECT_EQ(fk::first_touched_canary(c, 3), c.size());
}

TEST(FirstKernelReference, StencilCheckCatchesWrongValuesAndCanaryWrites) {
    const std::vector<int> expected = {3, 6, 9};
    EXPECT_TRUE(fk::verify_stencil(expected, {3, 6, 9, -1, -1}).passed);
    EXPECT_FALSE(fk::verify_stencil(expected, {3, 7, 9, -1, -1}).passed);
    EXPECT_FALSE(fk::verify_stencil(expected, {3, 6, 9, 0, -1}).passed);
    EXPECT_FALSE(fk::verify_stencil(expected, {3, 6}).passed);
}

TEST(FirstKernelLaunch, BlocksForRoundsUpAndRefusesHugeGrids) {
    EXPECT_EQ(fk::blocks_for(1, 256), 1u);
    EXPECT_EQ(fk::blocks_for(256, 256), 1u);
    EXPECT_EQ(fk::blocks_for(257, 256), 2u);
    EXPECT_EQ(fk::blocks_for(10, 4), 3u);
    EXPECT_EQ(fk::blocks_for((std::size_t{1} << 31) + 5, 256), (1u << 23) + 1);
    EXPECT_THROW(fk::blocks_for(std::size_t{1} << 37, 32), cudatutorial::UsageError);
}

TEST(FirstKernelLaunch, GridStrideDefaultFillsTheSmsOnceAndNoMore) {
    EXPECT_EQ(fk::grid_stride_default_grid(std::size_t{1} << 30, 256, 132, 2048), 132 * 8);
    EXPECT_EQ(fk::grid_stride_default_grid(1000, 256, 132, 2048), 4);  // no idle blocks
    EXPECT_EQ(fk::grid_stride_default_grid(1, 1024, 1, 1024), 1);
    // Thread slots, not block slots: at 32 threads a block that is 64 blocks per SM, twice the
    // 32 an H100 SM holds at once, so the default grid runs in two waves.
    EXPECT_EQ(fk::grid_stride_default_grid(std::size_t{1} << 30, 32, 132, 2048), 2 * 132 * 32);
}

TEST(FirstKernelIndexMap, CheckFollowsTheFormulaAndTheGuard) {
    const int grid = 3;
    const int block = 4;
    const int n = 10;
    std::vector<fk::ThreadRecord> records;
    for (int b = 0; b < grid; ++b) {
        for (int t = 0; t < block; ++t) {
            fk::ThreadRecord r;
            r.block = static_cast<unsigned>(b);
            r.thread = static_cast<unsigned>(t);
            r.block_dim = static_cast<unsigned>(block);
            r.i = static_cast<unsigned long long>(b * block + t);
            r.wrote = r.i < static_cast<unsigned long long>(n);
            records.push_back(r);
        }
    }
    std::vector<int> out = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    EXPECT_TRUE(fk::verify_index_map(records, out, grid, block, n).passed);
    auto bad = records;
    bad[5].i = 1;  // i = threadIdx.x alone, the classic first mistake
    EXPECT_FALSE(fk::verify_index_map(bad, out, grid, block, n).passed);
    bad = records;
    bad[11].wrote = true;  // a thread past n that wrote: no guard
    EXPECT_FALSE(fk::verify_index_map(bad, out, grid, block, n).passed);
    out[9] = -1;
    EXPECT_FALSE(fk::verify_index_map(records, out, grid, block, n).passed);
}

TEST(FirstKernelRegistry, IdsAreUniqueAndRolesAsTaught) {
    std::vector<std::string> ids;
    for (const auto& stage : fk::add_stages()) {
        ids.push_back(stage.id);
        EXPECT_NE(stage.launch, nullptr);
    }
    for (const auto& stage : fk::stencil_stages()) {
        ids.push_back(stage.id);
        EXPECT_NE(stage.launch, nullptr);
    }
    EXPECT_EQ(ids, (std::vector<std::string>{"1", "1x", "2", "thrust", "3", "4", "4x"}));
    EXPECT_EQ(fk::add_stages()[1].role, cudatutorial::StageRole::kExpectedFailure);
    EXPECT_EQ(fk::add_stages()[3].role, cudatutorial::StageRole::kBaseline);
    EXPECT_EQ(fk::stencil_stages()[2].role, cudatutorial::StageRole::kExpectedFailure);
}

TEST(FirstKernelManaged, RowsComeInTwoGroupsEachWithItsCudaMallocBaseline) {
    const auto& rows = fk::managed_rows();
    std::vector<std::string> ids;
    for (const auto& row : rows) {
        ids.push_back(std::string(row.timed) + "/" + row.id);
        EXPECT_NE(row.reset, nullptr) << row.id;
        EXPECT_NE(row.launch, nullptr) << row.id;
        EXPECT_NE(row.verify, nullptr) << row.id;
        // Only the cudaMalloc rows run without pages that migrate on demand.
        EXPECT_EQ(row.needs_concurrent_access, row.id != "device") << row.id;
        EXPECT_EQ(row.role == cudatutorial::StageRole::kBaseline, row.id == "device") << row.id;
    }
    const std::string in = fk::kFromHost;
    const std::string alone = fk::kAddAlone;
    EXPECT_EQ(ids, (std::vector<std::string>{in + "/device", in + "/first_touch", in + "/prefetch",
                                             alone + "/device", alone + "/resident"}));
}

TEST(FirstKernelManaged, DefaultSizeKeepsTheManagedArraysUnder256MiB) {
    const std::size_t managed_bytes =
        fk::managed_section_bytes(fk::kManagedDefaultN, fk::kDefaultCanary, true) -
        fk::managed_section_bytes(fk::kManagedDefaultN, fk::kDefaultCanary, false);
    EXPECT_LE(managed_bytes, std::size_t{256} << 20);
    EXPECT_EQ(fk::managed_section_bytes(10, 2, false), 3 * 12 * sizeof(float));
    EXPECT_EQ(fk::managed_section_bytes(10, 2, true), 6 * 12 * sizeof(float));
}
