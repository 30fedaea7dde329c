// The wide section on the CPU: the value-to-bin formula (CUB's, for integers), the bin -> cluster
// rank/offset ownership that the cluster kernel relies on, the 16-bit generators, the reference,
// the kernel list, and the option errors of --section wide (exit code 2, no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "process.hpp"
#include "usage_cases.hpp"
#include "wide_histogram.hpp"

namespace hg = histogram;
using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::UsageCase;

namespace {

const std::vector<unsigned> kBinCounts = {1, 2, 3, 255, 256, 1000, 4096, 4097, 65535, 65536};
const std::vector<unsigned> kClusterSizes = {1, 2, 4, 8, 16};

}  // namespace

TEST(HistogramWideBinMath, ABinIsTheFloorOfValueTimesBinsOver65536) {
    for (const unsigned bins : kBinCounts) {
        SCOPED_TRACE("bins " + std::to_string(bins));
        std::vector<std::uint64_t> per_bin(bins, 0);
        for (unsigned v = 0; v < hg::kWideValues; ++v) {
            const unsigned bin = hg::wide_bin(v, bins);
            ASSERT_EQ(bin, static_cast<unsigned>(std::uint64_t{v} * bins / 65536)) << v;
            ASSERT_LT(bin, bins);
            ++per_bin[bin];
        }
        // Equal bins: every bin gets floor or ceil of 65536 / bins values, and none is empty.
        const auto [fewest, most] = std::minmax_element(per_bin.begin(), per_bin.end());
        EXPECT_GE(*fewest, 65536u / bins);
        EXPECT_LE(*most, (65536u + bins - 1) / bins);
    }
    EXPECT_EQ(hg::wide_bin(65535, 65536), 65535u);  // 65536 bins: the value is its bin
    EXPECT_EQ(hg::wide_bin(65535, 1), 0u);
}

TEST(HistogramWideBinMath, ClusterShiftIsLog2OfThePowersOfTwoUsed) {
    EXPECT_EQ(hg::cluster_shift(1), 0u);
    EXPECT_EQ(hg::cluster_shift(2), 1u);
    EXPECT_EQ(hg::cluster_shift(4), 2u);
    EXPECT_EQ(hg::cluster_shift(8), 3u);
    EXPECT_EQ(hg::cluster_shift(16), 4u);
}

TEST(HistogramWideBinMath, EveryBinHasExactlyOneOwnerSlotAndSlicesAreBalanced) {
    for (const unsigned bins : kBinCounts) {
        for (const unsigned cluster : kClusterSizes) {
            SCOPED_TRACE("bins " + std::to_string(bins) + ", cluster " + std::to_string(cluster));
            const unsigned shift = hg::cluster_shift(cluster);
            const unsigned slice = hg::slice_size(bins, shift);
            EXPECT_GE(std::uint64_t{slice} * cluster, bins);      // room for every bin
            EXPECT_LT(std::uint64_t{slice - 1} * cluster, bins);  // and no slice is wasted
            std::vector<int> owned(static_cast<std::size_t>(slice) * cluster, 0);
            std::vector<unsigned> per_rank(cluster, 0);
            for (unsigned bin = 0; bin < bins; ++bin) {
                const hg::BinOwner owner = hg::bin_owner(bin, shift);
                ASSERT_LT(owner.rank, cluster) << bin;
                ASSERT_LT(owner.offset, slice) << bin;
                ASSERT_EQ(hg::owned_bin(owner.rank, owner.offset, shift), bin);
                ++owned[owner.rank * slice + owner.offset];
                ++per_rank[owner.rank];
            }
            for (unsigned rank = 0; rank < cluster; ++rank) {
                for (unsigned offset = 0; offset < slice; ++offset) {
                    const unsigned bin = hg::owned_bin(rank, offset, shift);
                    // a slot is used by one bin exactly when the merge would write it
                    EXPECT_EQ(owned[rank * slice + offset], bin < bins ? 1 : 0)
                        << "rank " << rank << ", offset " << offset;
                }
            }
            const auto [fewest, most] = std::minmax_element(per_rank.begin(), per_rank.end());
            EXPECT_LE(*most - *fewest, 1u);
            // Neighbouring bins (often hot together) live in different blocks.
            if (cluster > 1 && bins > 1) {
                EXPECT_NE(hg::bin_owner(0, shift).rank, hg::bin_owner(1, shift).rank);
            }
        }
    }
}

TEST(HistogramWideBinMath, ClusterSharedBytesFollowTheSlices) {
    EXPECT_EQ(hg::wide_cluster_slice_bytes(65536, 1), 262144u);  // 256 KiB: fits no block
    EXPECT_EQ(hg::wide_cluster_slice_bytes(65536, 2), 131072u);
    EXPECT_EQ(hg::wide_cluster_slice_bytes(65536, 16), 16384u);
    EXPECT_EQ(hg::wide_cluster_slice_bytes(4097, 16), 257u * 4);
    EXPECT_EQ(hg::wide_cluster_slice_bytes(1, 8), 4u);
    // The exchange kernel adds two staging buffers behind the slice, 16-byte aligned.
    EXPECT_EQ(hg::wide_cluster_shared_bytes(65536, 2), 131072u + 2 * hg::kWideStageBytes);
    EXPECT_EQ(hg::wide_cluster_shared_bytes(4097, 16), 1040u + 2 * hg::kWideStageBytes);
    EXPECT_EQ(hg::wide_cluster_shared_bytes(1, 1), 16u + 2 * hg::kWideStageBytes);
}

TEST(HistogramWideInput, GeneratorsAreDeterministicPrefixesWithTheDescribedShape) {
    for (const hg::WideDistribution d : hg::all_wide_distributions()) {
        SCOPED_TRACE(hg::wide_distribution_name(d));
        EXPECT_EQ(hg::parse_wide_distribution(hg::wide_distribution_name(d)), d);
        const auto longer = hg::generate_wide_input(d, 300000, 42);
        const auto shorter = hg::generate_wide_input(d, 1025, 42);
        ASSERT_EQ(longer.size(), 300000u);
        EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
        EXPECT_EQ(hg::generate_wide_input(d, 0, 42).size(), 0u);
    }
    const auto uniform = hg::generate_wide_input(hg::WideDistribution::kUniform, 1 << 20, 7);
    const std::set<unsigned> distinct(uniform.begin(), uniform.end());
    EXPECT_GT(distinct.size(), 60000u);  // 2^20 draws cover almost all 65,536 values
    const auto skewed = hg::generate_wide_input(hg::WideDistribution::kSkewed, 1 << 20, 7);
    const auto zeros = std::count(skewed.begin(), skewed.end(), 0);
    EXPECT_NEAR(static_cast<double>(zeros) / (1 << 20), 1.0 / 16, 0.005);
    const auto one = hg::generate_wide_input(hg::WideDistribution::kOneValue, 1000, 7);
    EXPECT_TRUE(std::all_of(one.begin(), one.end(), [](unsigned v) { return v == 0x6161; }));
    const auto runs = hg::generate_wide_input(hg::WideDistribution::kRuns, 1 << 20, 7);
    std::size_t longest = 0;
    std::size_t current = 1;
    std::size_t changes = 0;
    for (std::size_t i = 1; i < runs.size(); ++i) {
        current = runs[i] == runs[i - 1] ? current + 1 : 1;
        changes += runs[i] != runs[i - 1];
        longest = std::max(longest, current);
    }
    EXPECT_LE(longest, hg::kMaxRunLength * 2);  // two equal neighbouring runs may join
    EXPECT_GE(changes, 4u);
    EXPECT_THROW(hg::parse_wide_distribution("random-bytes"), std::invalid_argument);
}

TEST(HistogramWideReference, CountsEveryValueInItsBin) {
    const auto data = hg::generate_wide_input(hg::WideDistribution::kSkewed, 100003, 5);
    for (const int bins : {1, 256, 4097, 65536}) {
        SCOPED_TRACE("bins " + std::to_string(bins));
        hg::Histogram naive(static_cast<std::size_t>(bins), 0);
        for (const unsigned v : data) {
            ++naive[static_cast<std::size_t>(std::uint64_t{v} * bins / 65536)];
        }
        const hg::Histogram reference = hg::wide_reference_histogram(data, bins);
        EXPECT_EQ(reference, naive);
        EXPECT_EQ(hg::total_count(reference), data.size());
    }
    EXPECT_THROW(hg::wide_reference_histogram(data, 0), std::invalid_argument);
    EXPECT_THROW(hg::wide_reference_histogram(data, 65537), std::invalid_argument);
}

TEST(HistogramWideReference, TheComparisonFindsOneWrongBin) {
    const hg::Histogram reference = {5, 0, 7, 1};
    EXPECT_TRUE(hg::compare_wide_histograms(reference, reference).equal);
    hg::Histogram result = reference;
    result[2] = 6;
    const hg::Comparison comparison = hg::compare_wide_histograms(reference, result);
    EXPECT_FALSE(comparison.equal);
    EXPECT_EQ(comparison.mismatched_bins, 1u);
    EXPECT_EQ(comparison.counts_lost, 1);
    EXPECT_NE(comparison.detail.find("bin 2 6 instead of 7"), std::string::npos)
        << comparison.detail;
    EXPECT_FALSE(hg::compare_wide_histograms(reference, hg::Histogram{5, 0, 7}).equal);
}

TEST(HistogramWideKernels, TheListHasEveryIdeaOnceInTableOrder) {
    std::vector<std::string> ids;
    std::vector<int> clusters;
    for (const hg::WideKernel& kernel : hg::wide_kernels()) {
        ids.push_back(kernel.id);
        EXPECT_EQ(hg::find_wide_kernel(kernel.name), &kernel);
        EXPECT_NE(kernel.launch, nullptr);
        EXPECT_NE(kernel.unsupported, nullptr);
        if (kernel.cluster > 0) {
            clusters.push_back(kernel.cluster);
        }
    }
    EXPECT_EQ(
        ids, (std::vector<std::string>{"global", "private", "dsmem_atomics", "cluster1", "cluster2",
                                       "cluster4", "cluster8", "cluster16", "cub"}));
    EXPECT_EQ(clusters, (std::vector<int>{2, 1, 2, 4, 8, 16}));
    EXPECT_EQ(hg::find_wide_kernel("cub")->role, cudatutorial::StageRole::kBaseline);
    EXPECT_EQ(hg::find_wide_kernel("3"), nullptr);
}

TEST(HistogramWideKernels, AShapeDescribesItsLaunch) {
    hg::WideShape shape;
    shape.grid = 132;
    shape.block = 256;
    EXPECT_EQ(shape.describe(), "132 x 256");
    hg::WideShape cub;
    cub.chosen_by = "CUB";  // as launch_wide_cub returns it
    EXPECT_EQ(cub.describe(), "CUB's own");
}

TEST(HistogramWideCli, BadWideOptionsExitWithTwoBeforeTheDevice) {
    expect_usage_errors(
        HISTOGRAM_BIN,
        {UsageCase{"--section narrow", "--section", "narrow is not one of stages, wide"},
         UsageCase{"--section wide --wide-bins 0", "--wide-bins", "out of range"},
         UsageCase{"--section wide --wide-bins 65537", "--wide-bins", "out of range"},
         UsageCase{"--section wide --wide-bins 256,x", "--wide-bins", "'x' is not a whole number"},
         UsageCase{"--section wide --dist random-bytes", "--dist", "16-bit distribution"},
         UsageCase{"--section wide --bins bytes", "--bins", "applies to --section stages"},
         UsageCase{"--section wide --bin-width 2", "--bin-width", "applies to --section stages"},
         UsageCase{"--section wide --input CMakeLists.txt", "--input", "applies to"},
         UsageCase{"--section wide --stage 3", "--stage", "'3' is not a stage (ids: global"},
         UsageCase{"--section wide --block 16", "--block", "got 16"},
         UsageCase{"--section wide --n 2^33", "--n", "at most 4294967295 16-bit values"},
         UsageCase{"--section stages --wide-bins 256", "--wide-bins", "applies to the wide"},
         UsageCase{"--bins bytes --wide-bins 256", "--wide-bins", "applies to the wide"},
         UsageCase{"--stage 8 --wide-bins 256", "--wide-bins", "applies to the wide"}});
}
