// GPU tests of chapter 2: every kernel's output element by element, and the lanes recorded on
// each path, over sizes that are not multiples of the warp or the block.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "divergence.hpp"
#include "gpu_test.hpp"

namespace dv = divergence;
namespace ct = cudatutorial;

namespace {

bool sanitizing() {
    return std::getenv("CT_SANITIZE") != nullptr;
}

// Under compute-sanitizer (CT_SANITIZE set) every launch is slow: fewer block sizes.
std::vector<int> blocks(std::vector<int> all) {
    return sanitizing() ? std::vector<int>{all.front(), all.back()} : all;
}

std::vector<int> sizes() {
    std::vector<int> n = {1, 31, 32, 33, 1000, (1 << 16) + 5};
    if (!sanitizing()) {
        n.push_back(1 << 20);
        n.push_back((1 << 22) + 13);
    }
    return n;
}

}  // namespace

TEST(DivergenceGpu, ShortBranchKernelsWriteEveryElementCorrectly) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo info = ct::select_device(0);
    for (const int n : sizes()) {
        ct::DeviceBuffer<float> c(static_cast<std::size_t>(n));
        for (const int block : blocks({32, 64, 256, 1024})) {
            for (const auto& kernel : dv::short_kernels()) {
                if (kernel.textbook_bug) {
                    continue;  // its own test below
                }
                SCOPED_TRACE(kernel.name + " n " + std::to_string(n) + " block " +
                             std::to_string(block));
                c.fill_bytes(0xff);
                kernel.launch(c.data(), n, block, nullptr);
                const auto v =
                    dv::verify_short_branch(c.to_host(), kernel.condition, info.warp_size);
                EXPECT_TRUE(v.passed) << v.detail;
            }
        }
    }
}

TEST(DivergenceGpu, TextbookBitmaskKernelTakesTheElsePathEverywhere) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo info = ct::select_device(0);
    const int n = 5000;
    ct::DeviceBuffer<float> c(n);
    c.fill_bytes(0xff);
    dv::launch_warp_bitmask_textbook(c.data(), n, 128, nullptr);
    const auto host = c.to_host();
    // What the code computes: 200 everywhere (the precedence bug) ...
    EXPECT_TRUE(dv::verify_short_branch(host, dv::Condition::kNever, info.warp_size).passed);
    // ... not what the textbook says it computes.
    EXPECT_FALSE(dv::verify_short_branch(host, dv::Condition::kWarpAligned, info.warp_size).passed);
}

TEST(DivergenceGpu, LongBranchKernelsMatchTheReference) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo info = ct::select_device(0);
    const std::vector<int> long_sizes =
        sanitizing() ? std::vector<int>{1, 33, 1000} : std::vector<int>{1, 33, 1000, (1 << 16) + 5};
    for (const int n : long_sizes) {
        for (const int work : {1, 7, 64}) {
            const auto reference = dv::long_reference(n, work);
            ct::DeviceBuffer<std::uint32_t> out(static_cast<std::size_t>(n));
            for (const int block : {32, 256}) {
                SCOPED_TRACE("n " + std::to_string(n) + " work " + std::to_string(work) +
                             " block " + std::to_string(block));
                out.fill_bytes(0xff);
                dv::launch_long_even_odd_divergent(out.data(), n, work, block, nullptr);
                auto v = dv::verify_long_branch(out.to_host(), reference, dv::Condition::kEvenOdd,
                                                info.warp_size);
                EXPECT_TRUE(v.passed) << "even/odd: " << v.detail;
                out.fill_bytes(0xff);
                dv::launch_long_warp_aligned(out.data(), n, work, block, nullptr);
                v = dv::verify_long_branch(out.to_host(), reference, dv::Condition::kWarpAligned,
                                           info.warp_size);
                EXPECT_TRUE(v.passed) << "warp-aligned: " << v.detail;
            }
        }
    }
}

TEST(DivergenceGpu, RecordedLanesShowWhichWarpsDiverge) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    for (const int n : {1, 40, 1000, (1 << 16) + 5}) {
        for (const int block : blocks({32, 128, 1024})) {
            for (const dv::Recorded which : dv::kAllRecorded) {
                SCOPED_TRACE(dv::recorded_name(which) + " n " + std::to_string(n) + " block " +
                             std::to_string(block));
                const dv::PathRecord record = dv::record_paths(which, n, block);
                const auto v = dv::verify_record(record, dv::condition_of(which), n);
                EXPECT_TRUE(v.passed) << v.detail;
                const dv::PathSummary summary = dv::summarize(record);
                EXPECT_EQ(summary.warps, (n + 31) / 32);
                switch (dv::condition_of(which)) {
                    case dv::Condition::kEvenOdd:
                        // Every warp with at least two lanes holds both paths.
                        EXPECT_EQ(summary.warps_on_both_paths, n == 1 ? 0 : summary.warps);
                        break;
                    case dv::Condition::kWarpAligned:
                    case dv::Condition::kNever:
                        EXPECT_EQ(summary.warps_on_both_paths, 0);
                        break;
                }
            }
        }
    }
}
