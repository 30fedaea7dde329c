// GPU tests of common/: buffers, device info, the benchmark harness. Skipped without a GPU.
#include <gtest/gtest.h>

#include <chrono>

#include <cuda_runtime.h>

#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"

namespace ct = cudatutorial;

namespace {

__global__ void scale_kernel(const int* in, int* out, int n, int factor) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * factor;
    }
}

__global__ void off_by_one_kernel(const int* in, int* out, int n, int factor) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * factor + (i == n - 1 ? 1 : 0);  // the last element is wrong
    }
}

using cudatutorial::global_timer_ns;

// Busy-waits `ns` nanoseconds by the GPU's own clock and records how long it really ran.
__global__ void spin_kernel(unsigned long long ns, unsigned long long* ran_ns) {
    const unsigned long long start = global_timer_ns();
    unsigned long long now = start;
    while (now - start < ns) {
        now = global_timer_ns();
    }
    *ran_ns = now - start;
}

}  // namespace

TEST(DeviceInfoGpu, AgreesWithTheRuntime) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo info = ct::select_device(0);
    cudaDeviceProp prop{};
    CT_CHECK(cudaGetDeviceProperties(&prop, 0));
    EXPECT_EQ(info.name, prop.name);
    EXPECT_EQ(info.sm_count, prop.multiProcessorCount);
    EXPECT_EQ(info.warp_size, 32);
    EXPECT_GE(info.cc_major, 7);
    EXPECT_EQ(info.max_warps_per_sm * info.warp_size, info.max_threads_per_sm);
    EXPECT_GT(info.memory_clock_khz, 0);
    EXPECT_GT(info.memory_bus_width_bits, 0);
    EXPECT_GT(info.theoretical_bandwidth_gbs(), 100.0);
    EXPECT_GT(info.l2_cache_bytes, 0);
    EXPECT_GE(info.driver_version, info.runtime_version);
    EXPECT_THROW(ct::query_device(ct::cuda_device_count()), ct::UsageError);
    EXPECT_THROW(ct::query_device(-1), ct::UsageError);
}

TEST(DeviceBufferGpu, RoundTripsMovesAndPoisons) {
    CT_REQUIRE_GPU();
    const std::vector<int> host = {1, -2, 3, 1 << 30, -7};
    ct::DeviceBuffer<int> buffer(host);
    EXPECT_EQ(buffer.size(), host.size());
    EXPECT_EQ(buffer.bytes(), host.size() * sizeof(int));
    EXPECT_EQ(buffer.to_host(), host);
    ct::DeviceBuffer<int> moved = std::move(buffer);
    EXPECT_EQ(buffer.data(), nullptr);
    EXPECT_EQ(moved.to_host(), host);
    moved.fill_bytes(0xff);
    EXPECT_EQ(moved.to_host(), std::vector<int>(host.size(), -1));
    EXPECT_THROW(moved.copy_from_host(std::vector<int>(10, 0)), std::out_of_range);
    ct::DeviceBuffer<int> empty(0);
    EXPECT_TRUE(empty.to_host().empty());
}

// "ErrorPath" suites make CUDA calls fail on purpose; scripts/sanitize.sh skips them by name
// (compute-sanitizer counts every failed API call as an error).
TEST(DeviceBufferGpuErrorPath, AnAllocationTooLargeSaysHowMuchWasAsked) {
    CT_REQUIRE_GPU();
    try {
        ct::DeviceBuffer<char> huge(std::size_t{1} << 50);  // 1 PiB
        FAIL() << "1 PiB allocation succeeded";
    } catch (const ct::CudaError& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("1024.0 TiB"), std::string::npos) << what;
        EXPECT_NE(what.find("free of"), std::string::npos) << what;
    }
    EXPECT_THROW(ct::require_device_memory(std::size_t{1} << 50, "the input"), ct::UsageError);
    EXPECT_NO_THROW(ct::require_device_memory(1 << 20, "the input"));
}

TEST(DeviceBufferGpu, PinnedBufferIsUsableHostMemory) {
    CT_REQUIRE_GPU();
    ct::PinnedBuffer<int> pinned(1000);
    for (std::size_t i = 0; i < pinned.size(); ++i) {
        pinned[i] = static_cast<int>(i);
    }
    ct::DeviceBuffer<int> device(1000);
    device.copy_from_host(pinned.data(), pinned.size());
    const auto back = device.to_host();
    EXPECT_EQ(back[999], 999);
}

TEST(CheckLaunchGpuErrorPath, ReportsBadLaunchConfigurations) {
    CT_REQUIRE_GPU();
    ct::DeviceBuffer<int> in(std::vector<int>(32, 1)), out(32);
    const auto launch_error = [&](dim3 block) -> cudaError_t {
        scale_kernel<<<1, block>>>(in.data(), out.data(), 32, 2);
        try {
            CT_CHECK_LAUNCH();
        } catch (const ct::CudaError& error) {
            return error.code();
        }
        return cudaSuccess;
    };
    // Over the limit in total (64 x 32 = 2048 threads, each dimension within its own limit) and
    // over a per-dimension limit (x = 4096). Which code the runtime reports has changed between
    // versions: CUDA 13.0 on an H100 returned cudaErrorInvalidValue for both, older runtimes
    // cudaErrorInvalidConfiguration for the first. What must hold is that the launch is reported.
    for (const dim3 block : {dim3(64, 32), dim3(4096)}) {
        const cudaError_t code = launch_error(block);
        EXPECT_TRUE(code == cudaErrorInvalidValue || code == cudaErrorInvalidConfiguration)
            << block.x << "x" << block.y << ": " << cudaGetErrorName(code);
    }
    EXPECT_EQ(launch_error(dim3(32)), cudaSuccess);
}

namespace {

struct ScaleFixture {
    static constexpr int kN = 1 << 20;
    std::vector<int> input = std::vector<int>(kN);
    ct::DeviceBuffer<int> in{kN}, out{kN};
    ScaleFixture() {
        for (int i = 0; i < kN; ++i) {
            input[i] = i % 1000 - 500;
        }
        in.copy_from_host(input);
    }
    ct::Verification verify() const {
        const auto result = out.to_host();
        for (int i = 0; i < kN; ++i) {
            if (result[i] != input[i] * 3) {
                return ct::Verification::fail("element " + std::to_string(i));
            }
        }
        return ct::Verification::pass();
    }
};

}  // namespace

TEST(HarnessGpu, TimesACorrectKernelAndValidatesBeforeAndAfter) {
    CT_REQUIRE_GPU();
    ScaleFixture f;
    int launches = 0;
    ct::BenchmarkConfig config;
    config.warmup = 2;
    config.repetitions = 9;
    config.flush_l2 = true;
    const ct::Measurement m = ct::measure(
        [&](cudaStream_t stream) {
            ++launches;
            scale_kernel<<<(f.kN + 255) / 256, 256, 0, stream>>>(f.in.data(), f.out.data(), f.kN,
                                                                 3);
            CT_CHECK_LAUNCH();
        },
        [&] { return f.verify(); }, config);
    EXPECT_TRUE(m.passed()) << m.failure_detail();
    EXPECT_EQ(launches, 1 + 2 + 9);
    EXPECT_EQ(m.stats.samples, 9);
    EXPECT_GT(m.stats.median_ms, 0.0);
    EXPECT_LE(m.stats.min_ms, m.stats.median_ms);
    EXPECT_LE(m.stats.median_ms, m.stats.max_ms);
    EXPECT_LT(m.stats.median_ms, 50.0);  // 8 MiB moved: far below 50 ms on any supported GPU
}

TEST(HarnessGpu, TimeStagePoisonsMeasuresAndFillsTheRowFromTheDescriptor) {
    CT_REQUIRE_GPU();
    ScaleFixture f;
    f.out.fill_bytes(0);
    const ct::StageDescriptor stage{"3", "scale_by_three", "multiply every element by three"};
    int poisoned = 0;
    ct::BenchmarkConfig config;
    config.warmup = 1;
    config.repetitions = 5;
    ct::StageHooks hooks;
    hooks.poison = [&] {
        ++poisoned;
        f.out.fill_bytes(0xff);
    };
    hooks.launch = [&](cudaStream_t stream) {
        scale_kernel<<<(f.kN + 255) / 256, 256, 0, stream>>>(f.in.data(), f.out.data(), f.kN, 3);
        CT_CHECK_LAUNCH();
    };
    hooks.verify = [&] { return f.verify(); };
    hooks.bytes = ct::MemoryTraffic().reads<int>(f.kN).writes<int>(f.kN);
    const ct::ResultRow row = ct::time_stage(stage, hooks, config);
    EXPECT_EQ(poisoned, 1);
    EXPECT_TRUE(row.passed) << row.detail;
    EXPECT_TRUE(row.timed);
    EXPECT_EQ(row.id, "3");
    EXPECT_EQ(row.name, "scale_by_three");
    EXPECT_EQ(row.idea, "multiply every element by three");
    EXPECT_TRUE(row.in_progression);
    EXPECT_EQ(row.stats.samples, 5);
}

TEST(HarnessGpu, TimeStageFailsAStageThatWritesNothingOverThePoison) {
    CT_REQUIRE_GPU();
    ScaleFixture f;
    // A correct result left in the output by an earlier run: without the poison, a stage that
    // writes nothing would pass on it.
    scale_kernel<<<(f.kN + 255) / 256, 256>>>(f.in.data(), f.out.data(), f.kN, 3);
    CT_CHECK_LAUNCH();
    CT_CHECK(cudaDeviceSynchronize());
    ASSERT_TRUE(f.verify().passed);
    const ct::StageDescriptor stage{"0", "writes_nothing", "forgets its output"};
    ct::StageHooks hooks;
    hooks.poison = [&] { f.out.fill_bytes(0xff); };
    hooks.launch = [](cudaStream_t) {};
    hooks.verify = [&] { return f.verify(); };
    const ct::ResultRow row = ct::time_stage(stage, hooks, ct::BenchmarkConfig{});
    EXPECT_FALSE(row.passed);
}

TEST(HarnessGpu, CatchesAKernelThatWritesAWrongResult) {
    CT_REQUIRE_GPU();
    ScaleFixture f;
    const ct::Measurement m = ct::measure(
        [&](cudaStream_t stream) {
            off_by_one_kernel<<<(f.kN + 255) / 256, 256, 0, stream>>>(f.in.data(), f.out.data(),
                                                                      f.kN, 3);
            CT_CHECK_LAUNCH();
        },
        [&] { return f.verify(); }, ct::BenchmarkConfig{});
    EXPECT_FALSE(m.passed());
    EXPECT_NE(m.failure_detail().find(std::to_string(f.kN - 1)), std::string::npos);
}

TEST(HarnessGpu, CatchesAKernelThatBreaksOnlyUnderRepetition) {
    CT_REQUIRE_GPU();
    ScaleFixture f;
    int launches = 0;
    const ct::Measurement m = ct::measure(
        [&](cudaStream_t stream) {
            // Correct the first time, wrong from the second launch on.
            auto* kernel = launches++ == 0 ? scale_kernel : off_by_one_kernel;
            kernel<<<(f.kN + 255) / 256, 256, 0, stream>>>(f.in.data(), f.out.data(), f.kN, 3);
            CT_CHECK_LAUNCH();
        },
        [&] { return f.verify(); }, ct::BenchmarkConfig{});
    EXPECT_TRUE(m.before.passed);
    EXPECT_FALSE(m.after.passed);
    EXPECT_NE(m.failure_detail().find("after repeated runs"), std::string::npos);
}

TEST(HarnessGpu, SamplesExcludeTheHostLaunchLatency) {
    CT_REQUIRE_GPU();
    // A kernel that runs 50 us by the GPU's clock: the event-timed median must be its own
    // duration plus at most the GPU-side launch cost, not plus the host's launch latency (several
    // microseconds when each run starts on an idle GPU).
    ct::DeviceBuffer<unsigned long long> ran_ns(1);
    ct::BenchmarkConfig config;
    config.repetitions = 21;
    const ct::Stats stats = ct::time_repeated(
        [&](cudaStream_t stream) {
            spin_kernel<<<1, 1, 0, stream>>>(50000, ran_ns.data());
            CT_CHECK_LAUNCH();
        },
        config);
    const double kernel_ms = ran_ns.to_host()[0] * 1e-6;
    if (cudatutorial::testing::sanitizing()) {
        GTEST_SKIP() << "ran under compute-sanitizer, whose instrumentation makes timing bounds "
                        "meaningless";
    }
    EXPECT_GE(stats.median_ms, kernel_ms * 0.99);
    // Measured on the H100: 3.5 us over the kernel's own duration (the GPU's launch and teardown,
    // which the kernel's clock cannot see); the old harness, which let the GPU idle before each
    // start event, added another 2-4 us of host launch latency on top.
    EXPECT_LT(stats.median_ms - kernel_ms, 0.005)
        << "median " << stats.median_ms << " ms for a kernel that ran " << kernel_ms << " ms";
}

TEST(HarnessGpu, TheFirstSampleExcludesTheHostLaunchLatencyToo) {
    CT_REQUIRE_GPU();
    // One repetition per call, so every sample is a first sample: before the stream hold, its
    // start event fired on an idle stream while the host was still launching the kernel.
    ct::DeviceBuffer<unsigned long long> ran_ns(1);
    ct::BenchmarkConfig config;
    config.repetitions = 1;
    config.warmup = 1;
    const auto spin = [&](cudaStream_t stream) {
        spin_kernel<<<1, 1, 0, stream>>>(50000, ran_ns.data());
        CT_CHECK_LAUNCH();
    };
    std::vector<double> first_samples;
    for (int call = 0; call < 11; ++call) {
        first_samples.push_back(ct::time_repeated(spin, config).median_ms);
    }
    const double first = ct::summarize(first_samples).median_ms;
    const double kernel_ms = ran_ns.to_host()[0] * 1e-6;
    if (cudatutorial::testing::sanitizing()) {
        GTEST_SKIP() << "ran under compute-sanitizer, whose instrumentation makes timing bounds "
                        "meaningless";
    }
    EXPECT_GE(first, kernel_ms * 0.99);
    EXPECT_LT(first - kernel_ms, 0.005)
        << "first samples: median " << first << " ms for a kernel that ran " << kernel_ms << " ms";
}

TEST(HarnessGpu, ALaunchThatWaitsOnTheHostRunsWithoutTheHold) {
    CT_REQUIRE_GPU();
    // A launch function that synchronizes would wait for a held stream until the hold timed out;
    // hold_stream = false is its way out, and it must then be timed at once.
    ct::DeviceBuffer<unsigned long long> ran_ns(1);
    ct::BenchmarkConfig config;
    config.repetitions = 3;
    config.hold_stream = false;
    const auto start = std::chrono::steady_clock::now();
    const ct::Stats stats = ct::time_repeated(
        [&](cudaStream_t stream) {
            spin_kernel<<<1, 1, 0, stream>>>(10000, ran_ns.data());
            CT_CHECK_LAUNCH();
            CT_CHECK(cudaStreamSynchronize(stream));
        },
        config);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(stats.samples, 3);
    EXPECT_LT(seconds, 1.0);  // far from the hold's 2 s timeout
}

TEST(HarnessGpu, L2FlushRunsBetweenRepetitions) {
    CT_REQUIRE_GPU();
    ct::DeviceBuffer<unsigned long long> ran_ns(1);
    ct::BenchmarkConfig config;
    config.repetitions = 5;
    config.flush_l2 = true;
    const ct::Stats stats = ct::time_repeated(
        [&](cudaStream_t stream) {
            spin_kernel<<<1, 1, 0, stream>>>(20000, ran_ns.data());
            CT_CHECK_LAUNCH();
        },
        config);
    if (cudatutorial::testing::sanitizing()) {
        GTEST_SKIP() << "ran under compute-sanitizer, whose instrumentation makes timing bounds "
                        "meaningless";
    }
    // The flush is outside the timed region: the samples are the kernel, not the flush.
    EXPECT_LT(stats.median_ms, 0.02 + 0.005);
}

TEST(HarnessGpu, ALabelledBatchIsTimedAsAnUnlabelledOne) {
    CT_REQUIRE_GPU();
    // The label opens an NVTX range around the timed runs (Nsight Systems shows it by name);
    // without a tool attached it changes nothing, and the range is closed when timing ends.
    ct::DeviceBuffer<unsigned long long> ran_ns(1);
    ct::BenchmarkConfig config;
    config.repetitions = 4;
    config.label = "stage 0 harness_test";
    int launches = 0;
    const ct::Stats stats = ct::time_repeated(
        [&](cudaStream_t stream) {
            ++launches;
            spin_kernel<<<1, 1, 0, stream>>>(1000, ran_ns.data());
            CT_CHECK_LAUNCH();
        },
        config);
    EXPECT_EQ(stats.samples, 4);
    EXPECT_EQ(launches, config.warmup + 4);
}

TEST(HarnessGpu, ABatchedSampleIsKCallsDividedByK) {
    CT_REQUIRE_GPU();
    // Every sample holds calls_per_sample launches; the sample is their time divided by them, so a
    // 20 us kernel still reads about 20 us per call, and the launch count says k calls per sample.
    ct::DeviceBuffer<unsigned long long> ran_ns(1);
    ct::BenchmarkConfig config;
    config.repetitions = 5;
    config.warmup = 2;
    config.calls_per_sample = 7;
    int launches = 0;
    const ct::Stats stats = ct::time_repeated(
        [&](cudaStream_t stream) {
            ++launches;
            spin_kernel<<<1, 1, 0, stream>>>(20000, ran_ns.data());
            CT_CHECK_LAUNCH();
        },
        config);
    EXPECT_EQ(stats.samples, 5);
    EXPECT_EQ(launches, 2 + 5 * 7);
    const double kernel_ms = ran_ns.to_host()[0] * 1e-6;
    if (cudatutorial::testing::sanitizing()) {
        GTEST_SKIP() << "ran under compute-sanitizer, whose instrumentation makes timing bounds "
                        "meaningless";
    }
    EXPECT_GE(stats.median_ms, kernel_ms * 0.99);
    EXPECT_LT(stats.median_ms, kernel_ms + 0.005);
    config.flush_l2 = true;  // a flush per sample would be timed with the batch: refused
    EXPECT_THROW(ct::time_repeated([](cudaStream_t) {}, config), std::invalid_argument);
}

TEST(HarnessGpu, TheLaunchFloorIsBelowAnyKernelAndSharedByABatch) {
    CT_REQUIRE_GPU();
    // An empty kernel timed like a stage: positive, well under a 20 us kernel timed the same
    // way, and no larger per call when calls go back to back (the events' cost is shared).
    ct::BenchmarkConfig config;
    config.repetitions = 21;
    const ct::Stats one = ct::launch_floor(config);
    ct::DeviceBuffer<unsigned long long> ran_ns(1);
    const ct::Stats spin = ct::time_repeated(
        [&](cudaStream_t stream) {
            spin_kernel<<<1, 1, 0, stream>>>(20000, ran_ns.data());
            CT_CHECK_LAUNCH();
        },
        config);
    config.calls_per_sample = 20;
    const ct::Stats batched = ct::launch_floor(config);
    EXPECT_GT(one.median_ms, 0.0);
    if (cudatutorial::testing::sanitizing()) {
        GTEST_SKIP() << "ran under compute-sanitizer, whose instrumentation makes timing bounds "
                        "meaningless";
    }
    EXPECT_LT(one.median_ms, spin.median_ms);
    EXPECT_LE(batched.median_ms, one.median_ms * 1.05)
        << "back to back " << batched.median_ms << " ms, alone " << one.median_ms << " ms";
}
