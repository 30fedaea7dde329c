// GPU tests of Chapter 3: every stage against the CPU reference over sizes x block sizes x data
// patterns (in few ctest entries: each costs a CUDA context), misaligned inputs and repeated runs,
// the historical volatile stage 5 (BugDemo: excluded from the sanitizer script), and an opt-in
// test past 2^31 elements (CT_LARGE_TESTS=1: 8 GiB of input). Every compiled candidate of stages
// 10-12 and their tuning pass: adaptive_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "large_input.hpp"
#include "reduction.hpp"
#include "stages/reduction_launchers.hpp"

namespace ct = cudatutorial;
using cudatutorial::testing::sanitizing;
using reduction::Pattern;

namespace {

/// The byte the output is poisoned with before a run: 0xff (the int -1), or 0xfe (0xfefefefe)
/// when -1 is the expected sum, so that an output the stage left untouched can never match.
unsigned char poison_byte(int expected) {
    return expected == -1 ? 0xfe : 0xff;
}

/// The issue's sizes; under compute-sanitizer (racecheck is ~100x slower) capped at 2^16.
std::vector<std::size_t> test_sizes() {
    if (sanitizing()) {
        return {1, 31, 33, 1025, 4097, (1u << 16) + 3};
    }
    return {1, 2, 31, 32, 33, 1000, 1023, 1024, 1025, 4097, (1u << 20) + 7, 1u << 25};
}

std::vector<int> test_blocks() {
    if (sanitizing()) {
        return {32, 64, 256, 1024};
    }
    return {32, 64, 128, 256, 512, 1024};
}

std::vector<Pattern> test_patterns() {
    if (sanitizing()) {
        return {Pattern::kRandom, Pattern::kExtremes};
    }
    return {Pattern::kRandom, Pattern::kOnes, Pattern::kAlternating, Pattern::kExtremes};
}

int read_sum(const ct::DeviceBuffer<int>& d_sum) {
    int value = 0;
    d_sum.copy_to_host(&value, 1);
    return value;
}

std::string trace(const std::string& stage, std::size_t n, int block, Pattern p) {
    return "stage " + stage + ", n " + std::to_string(n) + ", block " + std::to_string(block) +
           ", " + reduction::pattern_name(p);
}

}  // namespace

TEST(ReductionGpu, EveryStageMatchesTheReference) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    ct::DeviceBuffer<int> d_sum(1);
    int checked = 0;
    for (Pattern pattern : test_patterns()) {
        for (std::size_t n : test_sizes()) {
            const std::vector<int> host = reduction::make_input(pattern, n, 11 + n);
            const int expected = reduction::reference_sum(host);
            const ct::DeviceBuffer<int> d_in(host);
            for (const reduction::StageInfo& stage : reduction::stages()) {
                if (stage.role == cudatutorial::StageRole::kExpectedFailure) {
                    continue;  // a data race: see ReductionBugDemo
                }
                for (int block : test_blocks()) {
                    const bool cub = stage.id == reduction::kCubStageId;
                    if (block < stage.min_block || block > stage.max_block ||
                        (cub && block != test_blocks().front())) {
                        continue;
                    }
                    SCOPED_TRACE(trace(stage.id, n, block, pattern));
                    const reduction::Reducer reducer(stage.id, n, block);
                    d_sum.fill_bytes(poison_byte(expected));
                    reducer.run(d_in.data(), d_sum.data(), nullptr);
                    CT_CHECK(cudaDeviceSynchronize());
                    ASSERT_EQ(read_sum(d_sum), expected);
                    ++checked;
                }
            }
        }
    }
    std::printf("checked %d (stage, n, block, pattern) combinations\n", checked);
}

TEST(ReductionGpu, MisalignedInputsRepeatedRunsAndFirstPass) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::vector<std::size_t> sizes = sanitizing()
                                               ? std::vector<std::size_t>{5, (1u << 16) + 5}
                                               : std::vector<std::size_t>{5, 4097, (1u << 22) + 5};
    const std::vector<std::size_t> offsets =
        sanitizing() ? std::vector<std::size_t>{1, 3} : std::vector<std::size_t>{1, 2, 3};
    ct::DeviceBuffer<int> d_sum(1);
    for (std::size_t total : sizes) {
        const std::vector<int> host = reduction::make_input(Pattern::kRandom, total, 5);
        const ct::DeviceBuffer<int> d_in(host);
        for (std::size_t offset : offsets) {           // int-aligned, not 16-byte aligned
            const std::size_t n = total - offset - 1;  // and an odd tail
            const int expected = reduction::reference_sum(host.data() + offset, n);
            for (const reduction::StageInfo& stage : reduction::stages()) {
                if (stage.role == cudatutorial::StageRole::kExpectedFailure) {
                    continue;
                }
                for (int block : {64, 256, 1024}) {
                    SCOPED_TRACE(trace(stage.id, n, block, Pattern::kRandom) + ", offset " +
                                 std::to_string(offset));
                    const reduction::Reducer reducer(stage.id, n, block);
                    // Poisoned before every run: a stage that stopped resetting its state (stage
                    // 11's last-block counter, stage 12's memset of the output) would leave the
                    // poison, or poison + sum, from the second run on.
                    for (int repeat = 0; repeat < 3; ++repeat) {
                        d_sum.fill_bytes(poison_byte(expected));
                        reducer.run(d_in.data() + offset, d_sum.data(), nullptr);
                        CT_CHECK(cudaDeviceSynchronize());
                        ASSERT_EQ(read_sum(d_sum), expected) << "run " << repeat;
                    }
                    if (reducer.passes().size() == 1) {  // then the first pass is the whole sum
                        d_sum.fill_bytes(poison_byte(expected));
                        reducer.run_first_pass(d_in.data() + offset, d_sum.data(), nullptr);
                        CT_CHECK(cudaDeviceSynchronize());
                        ASSERT_EQ(read_sum(d_sum), expected);
                    }
                }
            }
        }
    }
}

TEST(ReductionGpu, GridStrideStagesFillTheDevice) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo device = ct::select_device(0);
    for (const char* id : {"7", "8", "9", "10", "11", "12"}) {
        for (int block : {64, 256, 1024}) {
            SCOPED_TRACE(std::string("stage ") + id + ", block " + std::to_string(block));
            const reduction::Reducer reducer(id, std::size_t{1} << 25, block);
            const unsigned int grid = reducer.passes()[0].grid;
            // A whole number of waves of resident blocks, at least one block per SM, and no more
            // resident blocks than the SM can hold by threads.
            EXPECT_EQ(grid % device.sm_count, 0u);
            EXPECT_GE(grid / device.sm_count, 1u);
            EXPECT_LE(grid / device.sm_count * block,
                      static_cast<unsigned int>(device.max_threads_per_sm));
            // Stage 12 adds into the output itself and needs no workspace.
            EXPECT_EQ(reducer.workspace_bytes() > 0, std::string(id) != "12");
        }
    }
}

// Opt-in (CT_LARGE_TESTS=1; 8 GiB of device memory, 8 GiB of host memory, a few seconds): N =
// 2^31 + 5 ints, so element indices pass 2^31 - 1. The seed's
// `int i = blockIdx.x * blockDim.x + threadIdx.x` turns negative there (an illegal address, or
// the wrong elements); stages 1 (one thread per element), 7 (grid-stride), 10 (int4 vectors,
// head and tail) and CUB (64-bit item count) must get the last elements right. Random data: an
// element lost or read twice changes the sum.
TEST(ReductionGpuLarge, MoreThan2To31Elements) {
    CT_REQUIRE_GPU();
    const std::string skip = reduction_test::large_input_skip_reason(std::size_t{512} << 20);
    if (!skip.empty()) {
        GTEST_SKIP() << skip;
    }
    ct::select_device(0);
    const std::size_t n = reduction_test::kLargeN;
    const reduction_test::LargeInput input = reduction_test::make_large_input(31);
    const int expected = input.expected;
    const int expected_inner = input.expected_inner;
    const ct::DeviceBuffer<int>& d_in = input.d_in;
    ct::DeviceBuffer<int> d_sum(1);
    for (const char* id : {"1", "7", "10", reduction::kCubStageId}) {
        for (int block : {64, 256, 1024}) {
            const bool cub = std::string(id) == reduction::kCubStageId;
            if (cub && block != 256) {
                continue;
            }
            for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
                const std::size_t count = n - 2 * offset;
                const int want = offset == 0 ? expected : expected_inner;
                SCOPED_TRACE(std::string("stage ") + id + ", n " + std::to_string(count) +
                             ", block " + std::to_string(block) + ", offset " +
                             std::to_string(offset));
                const reduction::Reducer reducer(id, count, block);
                d_sum.fill_bytes(poison_byte(want));
                reducer.run(d_in.data() + offset, d_sum.data(), nullptr);
                CT_CHECK(cudaDeviceSynchronize());
                EXPECT_EQ(read_sum(d_sum), want);
            }
        }
    }
}

// The historical `volatile` warp-synchronous stage 5 is a data race since Volta: its result is
// not guaranteed, so this demo reports how often it matched instead of asserting.
TEST(ReductionBugDemo, HistoricalVolatileLastWarp) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    ct::DeviceBuffer<int> d_sum(1);
    int runs = 0;
    int matched = 0;
    for (std::size_t n : {std::size_t{4097}, std::size_t{1} << (sanitizing() ? 14 : 22)}) {
        const std::vector<int> host = reduction::make_input(Pattern::kRandom, n, 3);
        const int expected = reduction::reference_sum(host);
        const ct::DeviceBuffer<int> d_in(host);
        for (int block : {64, 256, 1024}) {
            const reduction::Reducer reducer("5v", n, block);
            for (int repeat = 0; repeat < (sanitizing() ? 1 : 20); ++repeat) {
                d_sum.fill_bytes(poison_byte(expected));
                reducer.run(d_in.data(), d_sum.data(), nullptr);
                CT_CHECK(cudaDeviceSynchronize());
                ++runs;
                matched += read_sum(d_sum) == expected;
            }
        }
    }
    std::printf("historical volatile stage 5: %d of %d runs matched the reference\n", matched,
                runs);
    RecordProperty("matched", matched);
    RecordProperty("runs", runs);
}
