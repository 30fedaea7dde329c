// Ways to time a kernel: the same vector add timed five ways, to show what each number contains.
//
//  t1  the host clock around the launch call alone: a launch only queues work and returns, so
//      this measures the queuing (microseconds), not the kernel: its "GB/s" is impossible;
//  t2  the host clock around launch + cudaDeviceSynchronize: the kernel plus the launch and the
//      wake-up of the waiting host thread;
//  t3  the first launch of a kernel not run before in this process: CUDA loads a kernel's code
//      onto the GPU when it is first launched (lazy loading, the default since CUDA 12.2), and
//      the first run also finds cold caches and TLBs: why every table here warms up first;
//  t4  CUDA events recorded on the stream around each launch: the GPU's own timestamps, no host
//      in between;
//  t5  the harness every later chapter uses (common/: measure, time_repeated): warm-up runs,
//      the stream held until all timed runs are queued, events around each, the median.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/stats.hpp"
#include "cudatutorial/wall_clock.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace ct = cudatutorial;

namespace {

// A copy of stage 1's kernel that nothing else launches, so that its first launch is a first.
__global__ void first_launch_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

}  // namespace

std::vector<TimingMethod> time_five_ways(const float* a, const float* b, float* c, std::size_t n,
                                         int block, int reps, int warmup) {
    using clock = std::chrono::steady_clock;
    std::vector<TimingMethod> methods;
    CT_CHECK(cudaDeviceSynchronize());

    {  // t3 first, while its kernel has never run
        const auto start = clock::now();
        first_launch_add_kernel<<<blocks_for(n, block), block>>>(a, b, c, n);
        CT_CHECK_LAUNCH();
        CT_CHECK(cudaDeviceSynchronize());
        methods.push_back({"t3", "first_launch_host_clock",
                           "first launch of a kernel in this process, host clock + synchronize: "
                           "loads the kernel, cold caches",
                           ct::summarize({cudatutorial::ms_since(start)})});
    }
    for (int i = 0; i < warmup; ++i) {
        launch_vector_add(a, b, c, n, block, 0, nullptr);
    }
    CT_CHECK(cudaDeviceSynchronize());

    std::vector<double> launch_only;
    std::vector<double> with_sync;
    std::vector<double> events;
    ct::CudaEvent begin;
    ct::CudaEvent end;
    for (int r = 0; r < reps; ++r) {
        auto start = clock::now();
        launch_vector_add(a, b, c, n, block, 0, nullptr);
        launch_only.push_back(
            cudatutorial::ms_since(start));  // t1: the clock stops while the GPU still works
        CT_CHECK(cudaDeviceSynchronize());

        start = clock::now();
        launch_vector_add(a, b, c, n, block, 0, nullptr);
        CT_CHECK(cudaDeviceSynchronize());
        with_sync.push_back(cudatutorial::ms_since(start));

        CT_CHECK(cudaEventRecord(begin.get(), nullptr));
        launch_vector_add(a, b, c, n, block, 0, nullptr);
        CT_CHECK(cudaEventRecord(end.get(), nullptr));
        CT_CHECK(cudaEventSynchronize(end.get()));
        float ms = 0.0f;
        CT_CHECK(cudaEventElapsedTime(&ms, begin.get(), end.get()));
        events.push_back(ms);
    }
    methods.push_back({"t1", "host_clock_launch_only",
                       "host clock around the launch call alone: the queuing, not the kernel",
                       ct::summarize(launch_only)});
    methods.push_back({"t2", "host_clock_with_sync",
                       "host clock around launch + cudaDeviceSynchronize: kernel + launch + "
                       "wake-up",
                       ct::summarize(with_sync)});
    methods.push_back({"t4", "events_each_launch",
                       "CUDA events around each launch, on the GPU's clock",
                       ct::summarize(events)});

    ct::BenchmarkConfig config;
    config.warmup = warmup;
    config.repetitions = reps;
    methods.push_back(
        {"t5", "harness_median",
         "the tables' method: warm-up, stream held while the runs queue, events, "
         "median",
         ct::time_repeated(
             [&](cudaStream_t stream) { launch_vector_add(a, b, c, n, block, 0, stream); },
             config)});
    // Table order: t1..t5 (t3 was measured first, while it could still be cold).
    std::sort(methods.begin(), methods.end(),
              [](const TimingMethod& x, const TimingMethod& y) { return x.id < y.id; });
    return methods;
}

}  // namespace first_kernel
