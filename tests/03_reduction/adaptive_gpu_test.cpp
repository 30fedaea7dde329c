// GPU tests of the adaptive stages 10-12 (measuring/adaptive_vectorized.hpp): EVERY compiled
// candidate of every stage against the CPU reference, not only the one a run chooses - edge
// sizes, every block size, grids smaller than planned (one block walks many tiles; a segment ends
// in a partial tile), inputs that are not 16-byte aligned, adversarial values; stage 12's
// one-shot candidates forced at awkward sizes (and past 2^31 elements with CT_LARGE_TESTS=1) -
// then the tuning pass and that a Reducer given its result runs the tuned candidate. Skipped
// without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "large_input.hpp"
#include "measuring/adaptive_vectorized.hpp"
#include "reduction.hpp"
#include "stages/reduction_launchers.hpp"

namespace ct = cudatutorial;
namespace rd = reduction::detail;
using cudatutorial::testing::sanitizing;
using reduction::Pattern;

namespace {

struct Workspace {
    ct::DeviceBuffer<int> sum{1};
    ct::DeviceBuffer<int> partials{1 << 16};
    ct::DeviceBuffer<unsigned int> counter{1};
    Workspace() { counter.fill_bytes(0); }
};

int resident_blocks(const std::string& stage, int block, int variant) {
    if (stage == "10") {
        return rd::vectorized_loads_blocks_per_sm(block, variant);
    }
    if (stage == "11") {
        return rd::single_pass_last_block_blocks_per_sm(block, variant);
    }
    return rd::single_pass_atomic_blocks_per_sm(block, variant);
}

// The whole sum of d_in[0, n) by `stage` with candidate `variant` and `grid` blocks.
int run_candidate(const std::string& stage, int variant, const int* d_in, std::size_t n, int block,
                  unsigned int grid, Workspace& w) {
    w.sum.fill_bytes(0xfe);  // poison (0xfefefefe): an untouched output cannot match
    rd::KernelArgs a;
    a.in = d_in;
    a.n = n;
    a.grid = grid;
    a.block = block;
    a.variant = variant;
    a.partials = w.partials.data();
    a.counter = w.counter.data();
    if (stage == "10") {
        a.out = w.partials.data();
        rd::launch_vectorized_loads(a);
        rd::KernelArgs second = a;  // one block over the partial sums
        second.in = w.partials.data();
        second.n = grid;
        second.grid = 1;
        second.out = w.sum.data();
        rd::launch_vectorized_loads(second);
    } else if (stage == "11") {
        a.out = w.sum.data();
        rd::launch_single_pass_last_block(a);
    } else {
        a.out = w.sum.data();
        rd::launch_single_pass_atomic(a);
    }
    CT_CHECK(cudaDeviceSynchronize());
    int value = 0;
    w.sum.copy_to_host(&value, 1);
    return value;
}

std::vector<std::size_t> sizes() {
    if (sanitizing()) {
        return {1, 33, 1025, (1u << 16) + 3};
    }
    return {1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 4095, 4097, (1u << 16) + 3, (1u << 20) + 7};
}

std::vector<int> blocks() {
    if (sanitizing()) {
        return {32, 256, 1024};
    }
    return {32, 64, 128, 256, 512, 1024};
}

}  // namespace

TEST(ReductionAdaptiveGpu, EveryCandidateOfEveryStageMatchesTheReference) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo device = ct::select_device(0);
    Workspace w;
    int checked = 0;
    const std::vector<Pattern> patterns =
        sanitizing() ? std::vector<Pattern>{Pattern::kExtremes}
                     : std::vector<Pattern>{Pattern::kRandom, Pattern::kOnes, Pattern::kExtremes};
    for (const Pattern pattern : patterns) {
        for (const std::size_t n : sizes()) {
            // Three ints more than n: offsets 0..3 give every 16-byte misalignment of the start.
            const std::vector<int> host = reduction::make_input(pattern, n + 3, 77 + n);
            const ct::DeviceBuffer<int> d_in(host);
            for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
                const int expected = reduction::reference_sum(host.data() + offset, n);
                for (const char* stage : {"10", "11", "12"}) {
                    for (int v = 0; v < rd::kVectorizedVariantCount; ++v) {
                        if (rd::is_one_shot(v)) {
                            continue;  // needs its own grid: OneShotCandidates... below
                        }
                        for (const int block : blocks()) {
                            const int resident = resident_blocks(stage, block, v);
                            ASSERT_GE(resident, 1) << "stage " << stage << " candidate " << v;
                            const auto planned =
                                static_cast<unsigned int>(reduction::config::grid_stride_blocks(
                                    n, block, 16, device.sm_count, resident));
                            for (const unsigned int grid : {planned, 1u, 7u}) {
                                SCOPED_TRACE("stage " + std::string(stage) + ", candidate " +
                                             rd::describe_variant(v) + ", n " + std::to_string(n) +
                                             ", offset " + std::to_string(offset) + ", block " +
                                             std::to_string(block) + ", grid " +
                                             std::to_string(grid) + ", " +
                                             reduction::pattern_name(pattern));
                                ASSERT_EQ(run_candidate(stage, v, d_in.data() + offset, n, block,
                                                        grid, w),
                                          expected);
                                ++checked;
                            }
                        }
                    }
                }
            }
        }
    }
    std::printf("checked %d (stage, candidate, n, offset, block, grid, pattern) cases\n", checked);
}

// Stage 12's one-shot candidates, forced (not chosen by the tuning pass, so a wrong one fails
// even where it is never the fastest): one block per tile and no loop, so every size must land
// exactly - n not a multiple of 4 (the scalar tail), every misaligned start (the scalar head),
// tiles that end mid-warp, and a grid with more blocks than tiles.
std::vector<std::size_t> one_shot_sizes() {
    if (sanitizing()) {
        return {1, 33, 1025, (1u << 16) + 1};
    }
    std::vector<std::size_t> n = {1, 2, 3, 4, 5, 7, 31, 32, 33, 1023, 1024, 1025};
    for (const int k : {11, 12, 13, 16, 20, 22}) {
        for (const std::size_t delta : {std::size_t{0}, std::size_t{1}}) {
            n.push_back((std::size_t{1} << k) - delta);
            n.push_back((std::size_t{1} << k) + 1 + delta);  // 2^k + 1, 2^k + 2
        }
    }
    return n;
}

TEST(ReductionAdaptiveGpu, OneShotCandidatesMatchTheReferenceAtEverySize) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    Workspace w;
    int checked = 0;
    for (const Pattern pattern : {Pattern::kRandom, Pattern::kExtremes}) {
        for (const std::size_t n : one_shot_sizes()) {
            // Three ints more than n: offsets 0..3 give every 16-byte misalignment of the start;
            // the sum of in[offset, offset + n) must not include the ints after it.
            const std::vector<int> host = reduction::make_input(pattern, n + 3, 91 + n);
            const ct::DeviceBuffer<int> d_in(host);
            for (std::size_t offset = 0; offset < 4; ++offset) {
                const int expected = reduction::reference_sum(host.data() + offset, n);
                for (int v = 0; v < rd::kVectorizedVariantCount; ++v) {
                    if (!rd::is_one_shot(v)) {
                        continue;
                    }
                    for (const int block : blocks()) {
                        const auto grid =
                            static_cast<unsigned int>(reduction::config::one_shot_blocks(
                                n, block, rd::kVectorizedVariants[v].loads));
                        for (const unsigned int g : {grid, grid + 3}) {
                            SCOPED_TRACE(rd::describe_variant(v) + ", n " + std::to_string(n) +
                                         ", offset " + std::to_string(offset) + ", block " +
                                         std::to_string(block) + ", grid " + std::to_string(g) +
                                         ", " + reduction::pattern_name(pattern));
                            ASSERT_EQ(run_candidate("12", v, d_in.data() + offset, n, block, g, w),
                                      expected);
                            ++checked;
                        }
                    }
                }
            }
        }
    }
    std::printf("checked %d one-shot (candidate, n, offset, block, grid, pattern) cases\n",
                checked);
}

TEST(ReductionAdaptiveGpu, OneShotCandidatesNeedABlockPerTileAndStage12) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    Workspace w;
    const std::size_t n = 1u << 16;
    const ct::DeviceBuffer<int> d_in(std::vector<int>(n, 1));
    for (int v = 0; v < rd::kVectorizedVariantCount; ++v) {
        if (!rd::is_one_shot(v)) {
            continue;
        }
        const auto grid = static_cast<unsigned int>(
            reduction::config::one_shot_blocks(n, 256, rd::kVectorizedVariants[v].loads));
        EXPECT_EQ(run_candidate("12", v, d_in.data(), n, 256, grid, w), static_cast<int>(n));
        // One block short would leave a tile unread: refused before any launch.
        EXPECT_THROW(run_candidate("12", v, d_in.data(), n, 256, grid - 1, w),
                     std::invalid_argument)
            << rd::describe_variant(v);
        // Stages 10 and 11 would have to sum one partial per tile: not compiled for them.
        for (const char* stage : {"10", "11"}) {
            EXPECT_THROW(run_candidate(stage, v, d_in.data(), n, 256, grid, w),
                         std::invalid_argument)
                << stage;
            EXPECT_THROW(resident_blocks(stage, 256, v), std::invalid_argument) << stage;
        }
    }
}

// Opt-in (CT_LARGE_TESTS=1; 8 GiB of device memory, 8 GiB of host memory): the one-shot
// candidates past 2^31 elements, where a 32-bit element or vector index would wrap, at an aligned
// and a misaligned start (the latter with a scalar head and a tail).
TEST(ReductionAdaptiveGpuLarge, OneShotCandidatesPast2To31Elements) {
    CT_REQUIRE_GPU();
    const std::string skip = reduction_test::large_input_skip_reason(std::size_t{256} << 20);
    if (!skip.empty()) {
        GTEST_SKIP() << skip;
    }
    ct::select_device(0);
    const std::size_t n = reduction_test::kLargeN;
    const reduction_test::LargeInput input = reduction_test::make_large_input(33);
    Workspace w;
    for (int v = 0; v < rd::kVectorizedVariantCount; ++v) {
        if (!rd::is_one_shot(v)) {
            continue;
        }
        for (const int block : {64, 256, 1024}) {
            for (const std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
                const std::size_t count = n - 2 * offset;
                const auto grid = static_cast<unsigned int>(reduction::config::one_shot_blocks(
                    count, block, rd::kVectorizedVariants[v].loads));
                SCOPED_TRACE(rd::describe_variant(v) + ", block " + std::to_string(block) +
                             ", offset " + std::to_string(offset));
                EXPECT_EQ(run_candidate("12", v, input.d_in.data() + offset, count, block, grid, w),
                          offset == 0 ? input.expected : input.expected_inner);
            }
        }
    }
}

TEST(ReductionAdaptiveGpu, AnUnknownCandidateIsRejected) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    Workspace w;
    const ct::DeviceBuffer<int> d_in(std::vector<int>(64, 1));
    for (const char* stage : {"10", "11", "12"}) {
        EXPECT_THROW(run_candidate(stage, rd::kVectorizedVariantCount, d_in.data(), 64, 256, 1, w),
                     std::invalid_argument)
            << stage;
        EXPECT_THROW(resident_blocks(stage, 256, -1), std::invalid_argument) << stage;
    }
}

TEST(ReductionAdaptiveGpu, TheTuningPassChoosesAndTheReducerRunsItsChoice) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "timing under compute-sanitizer means nothing (the candidates are checked "
                        "above)";
    }
    ct::select_device(0);
    const std::size_t n = (std::size_t{1} << 22) + 5;
    const std::vector<int> host = reduction::make_input(Pattern::kRandom, n, 3);
    const int expected = reduction::reference_sum(host);
    const ct::DeviceBuffer<int> d_in(host);
    ct::DeviceBuffer<int> d_sum(1);

    // Without a tuning pass, the Reducer's choice is the derived one.
    EXPECT_FALSE(reduction::adaptive::vectorized_choice(nullptr, n, 512).tuned);

    const auto result = reduction::adaptive::tune_vectorized(d_in.data(), n, 512, 3);
    EXPECT_EQ(result.block, 512);
    ASSERT_GE(result.candidates.size(), static_cast<std::size_t>(rd::kVectorizedVariantCount));
    EXPECT_TRUE(
        std::is_sorted(result.candidates.begin(), result.candidates.end(),
                       [](const auto& a, const auto& b) { return a.median_ms < b.median_ms; }));
    EXPECT_GT(result.candidates.front().median_ms, 0.0);
    EXPECT_TRUE(result.choice.tuned);
    // Stages 10-11: the fastest persistent candidate; stage 12: the fastest of all, whose reason
    // names the one-shot candidate when one wins.
    const auto first_persistent =
        std::find_if(result.candidates.begin(), result.candidates.end(),
                     [](const auto& c) { return !rd::is_one_shot(c.variant); });
    ASSERT_NE(first_persistent, result.candidates.end());
    EXPECT_EQ(result.choice.variant, first_persistent->variant);
    const auto& atomic = result.single_pass_atomic_choice;
    EXPECT_EQ(atomic.variant, result.candidates.front().variant);
    EXPECT_TRUE(std::any_of(result.candidates.begin(), result.candidates.end(),
                            [](const auto& c) { return rd::is_one_shot(c.variant); }));
    if (rd::is_one_shot(atomic.variant)) {
        EXPECT_NE(atomic.why.find("one-shot " + rd::describe_variant(atomic.variant)),
                  std::string::npos)
            << atomic.why;
    } else {
        EXPECT_EQ(atomic.why, result.choice.why);
    }
    EXPECT_EQ(result.tuned_n, n);
    EXPECT_NE(result.choice.why.find("tuned"), std::string::npos);

    // The choice is what the caller passes on: nothing is kept between calls.
    const auto passed = reduction::adaptive::vectorized_choice(&result, n, 512);
    EXPECT_TRUE(passed.tuned);
    EXPECT_EQ(passed.variant, result.choice.variant);
    EXPECT_EQ(passed.occupancy_divisor, result.choice.occupancy_divisor);
    EXPECT_EQ(reduction::adaptive::vectorized_choice(&result, n, 512, true).variant,
              atomic.variant);
    EXPECT_FALSE(reduction::adaptive::vectorized_choice(nullptr, n, 512).tuned);
    // A result measured for another block size or another size is refused, not run.
    EXPECT_THROW(reduction::adaptive::vectorized_choice(&result, n, 128), std::invalid_argument);
    EXPECT_THROW(reduction::adaptive::vectorized_choice(&result, n / 2, 512),
                 std::invalid_argument);
    EXPECT_THROW(reduction::Reducer("10", n, 128, &result), std::invalid_argument);

    for (const char* stage : {"10", "11", "12"}) {
        const reduction::Reducer reducer(stage, n, 512, &result);
        const bool one_shot = std::string(stage) == "12" && rd::is_one_shot(atomic.variant);
        EXPECT_EQ(reducer.passes()[0].grid,
                  one_shot ? reduction::config::one_shot_blocks(
                                 n, 512, rd::kVectorizedVariants[atomic.variant].loads)
                           : reducer.passes()[0].grid)
            << stage;
        d_sum.fill_bytes(0xff);
        reducer.run(d_in.data(), d_sum.data(), nullptr);
        CT_CHECK(cudaDeviceSynchronize());
        int got = 0;
        d_sum.copy_to_host(&got, 1);
        EXPECT_EQ(got, expected) << stage;
    }
}
