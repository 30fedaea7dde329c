// GPU tests of chapter 2: every kernel's output element by element, and the lanes recorded on
// each path, over sizes that are not multiples of the warp or the block.
#include <gtest/gtest.h>

#include <cstring>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "divergence.hpp"
#include "gpu_test.hpp"

namespace dv = divergence;
namespace ct = cudatutorial;

using cudatutorial::testing::sanitizing;

namespace {

// Every buffer gets this many poisoned elements behind its n real ones: more than the last block
// of any launch here can hang over the end (block - 1 <= 1023 threads), so a kernel without its
// bounds check writes into the guard, where the check below sees it.
constexpr std::size_t kGuard = 1024;

// The first element of host[n..] whose bytes are no longer all 0xff (the poison written before
// the launch), or host.size() when the guard is untouched.
template <typename T>
std::size_t first_touched_guard_element(const std::vector<T>& host, std::size_t n) {
    unsigned char poison[sizeof(T)];
    std::memset(poison, 0xff, sizeof poison);
    for (std::size_t i = n; i < host.size(); ++i) {
        if (std::memcmp(&host[i], poison, sizeof poison) != 0) {
            return i;
        }
    }
    return host.size();
}

// The n real elements of a buffer with a guard, for the element-by-element checks.
template <typename T>
std::vector<T> without_guard(const std::vector<T>& host, std::size_t n) {
    return std::vector<T>(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(n));
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
        const auto count = static_cast<std::size_t>(n);
        ct::DeviceBuffer<float> c(count + kGuard);
        for (const int block : blocks({32, 64, 256, 1024})) {
            for (const auto& kernel : dv::short_kernels()) {
                if (kernel.role == cudatutorial::StageRole::kExpectedFailure) {
                    continue;  // its own test below
                }
                SCOPED_TRACE(kernel.name + " n " + std::to_string(n) + " block " +
                             std::to_string(block));
                c.fill_bytes(0xff);  // NaN in c, poison in the guard
                kernel.launch(c.data(), n, block, nullptr);
                const auto host = c.to_host();
                const auto v = dv::verify_short_branch(without_guard(host, count), kernel.condition,
                                                       info.warp_size);
                EXPECT_TRUE(v.passed) << v.detail;
                const std::size_t touched = first_touched_guard_element(host, count);
                EXPECT_EQ(touched, host.size()) << "wrote past the end: c[" << touched << "]";
            }
        }
    }
}

TEST(DivergenceGpu, TextbookBitmaskKernelTakesTheElsePathEverywhere) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo info = ct::select_device(0);
    const int n = 5000;  // not a multiple of the block: the last block hangs over the end
    ct::DeviceBuffer<float> c(n + kGuard);
    c.fill_bytes(0xff);
    dv::launch_warp_bitmask_textbook(c.data(), n, 128, nullptr);
    const auto with_guard = c.to_host();
    EXPECT_EQ(first_touched_guard_element(with_guard, n), with_guard.size());
    const auto host = without_guard(with_guard, n);
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
            const auto count = static_cast<std::size_t>(n);
            ct::DeviceBuffer<std::uint32_t> out(count + kGuard);
            for (const int block : {32, 256}) {
                SCOPED_TRACE("n " + std::to_string(n) + " work " + std::to_string(work) +
                             " block " + std::to_string(block));
                out.fill_bytes(0xff);
                dv::launch_long_even_odd_divergent(out.data(), n, work, block, nullptr);
                auto host = out.to_host();
                auto v = dv::verify_long_branch(without_guard(host, count), reference,
                                                dv::Condition::kEvenOdd, info.warp_size);
                EXPECT_TRUE(v.passed) << "even/odd: " << v.detail;
                EXPECT_EQ(first_touched_guard_element(host, count), host.size()) << "even/odd";
                out.fill_bytes(0xff);
                dv::launch_long_warp_aligned(out.data(), n, work, block, nullptr);
                host = out.to_host();
                v = dv::verify_long_branch(without_guard(host, count), reference,
                                           dv::Condition::kWarpAligned, info.warp_size);
                EXPECT_TRUE(v.passed) << "warp-aligned: " << v.detail;
                EXPECT_EQ(first_touched_guard_element(host, count), host.size()) << "warp-aligned";
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
