// Copy bandwidth: the DRAM bandwidth a program can actually get on this GPU, next to the
// theoretical figure of the device query.
//
// The theoretical bandwidth (2 x memory clock x bus width / 8) is never reached: refresh, bank
// and page turnarounds, and the switch between reads and writes take their share. A plain copy
// is the simplest kernel that does nothing but move bytes, so its rate is the practical ceiling
// for any memory-bound kernel that reads and writes the same amount. Two copies are timed:
//  - cudaMemcpyAsync device to device (the driver's own copy kernel);
//  - a grid-stride int4 copy: 16 bytes per load, two independent loads per thread per trip,
//    enough warps to fill every SM.
// Both move 2 x size bytes (one read and one write of every byte). Every byte of the destination
// is checked against the source on the GPU after the first run and after the timed runs.
#include <cuda_runtime.h>

#include <algorithm>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

namespace {

constexpr int kCopyBlock = 256;

__global__ void fill_pattern_kernel(int4* data, std::size_t count, unsigned int salt) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += stride) {
        // A value that differs in every word, so a skipped or misplaced int4 is caught.
        const unsigned int base = static_cast<unsigned int>(i) * 4u ^ salt;
        data[i] = make_int4(static_cast<int>(base), static_cast<int>(base + 1),
                            static_cast<int>(base + 2), static_cast<int>(base + 3));
    }
}

__global__ void copy_int4_kernel(const int4* __restrict__ source, int4* __restrict__ destination,
                                 std::size_t count) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    // Two independent 16-byte loads before the stores: 32 bytes in flight per thread.
    for (; i + stride < count; i += 2 * stride) {
        const int4 first = source[i];
        const int4 second = source[i + stride];
        destination[i] = first;
        destination[i + stride] = second;
    }
    if (i < count) {
        destination[i] = source[i];
    }
}

__global__ void count_mismatches_kernel(const int4* a, const int4* b, std::size_t count,
                                        unsigned long long* mismatches) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += stride) {
        const int4 x = a[i];
        const int4 y = b[i];
        local += (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) ? 1 : 0;
    }
    if (local != 0) {
        atomicAdd(mismatches, local);
    }
}

}  // namespace

std::vector<CopyBandwidth> measure_copy_bandwidth(const ct::DeviceInfo& device, std::size_t bytes,
                                                  const ct::BenchmarkConfig& config) {
    const std::size_t count = std::max<std::size_t>(1, bytes / sizeof(int4));
    ct::DeviceBuffer<int4> source(count), destination(count);
    ct::DeviceBuffer<unsigned long long> mismatches(1);
    const int max_blocks_per_sm = std::max(1, device.max_threads_per_sm / kCopyBlock);
    const int grid = std::max(1, device.sm_count * max_blocks_per_sm);
    fill_pattern_kernel<<<grid, kCopyBlock>>>(source.data(), count, 0x5a5a5a5au);
    CT_CHECK_LAUNCH();

    const auto verify = [&]() -> ct::Verification {
        CT_CHECK(cudaMemset(mismatches.data(), 0, sizeof(unsigned long long)));
        count_mismatches_kernel<<<grid, kCopyBlock>>>(source.data(), destination.data(), count,
                                                      mismatches.data());
        CT_CHECK_LAUNCH();
        unsigned long long wrong = 0;
        CT_CHECK(cudaMemcpy(&wrong, mismatches.data(), sizeof(wrong), cudaMemcpyDeviceToHost));
        // Poison the destination so the next run must write every byte again to pass.
        CT_CHECK(cudaMemset(destination.data(), 0xff, count * sizeof(int4)));
        return wrong == 0 ? ct::Verification::pass()
                          : ct::Verification::fail(std::to_string(wrong) + " of " +
                                                   std::to_string(count) + " int4 differ");
    };
    const double peak = device.theoretical_bandwidth_gbs();

    std::vector<CopyBandwidth> results;
    // Each copy is a stage like any table row's (benchmark.hpp): the destination poisoned, the
    // copy verified on the GPU before and after the timed runs.
    ct::StageHooks hooks;
    hooks.poison = [&] { CT_CHECK(cudaMemset(destination.data(), 0xff, count * sizeof(int4))); };
    hooks.verify = verify;
    hooks.bytes = ct::MemoryTraffic().reads<int4>(count).writes<int4>(count);
    const auto record = [&](const std::string& method, const ct::LaunchFunction& launch) {
        hooks.launch = launch;
        const ct::ResultRow row = ct::time_stage({"copy", method, ""}, hooks, config);
        CopyBandwidth r;
        r.method = method;
        r.bytes_copied = count * sizeof(int4);
        r.median_ms = row.stats.median_ms;
        r.gbs = ct::bandwidth_gbs(row.bytes, row.stats.median_ms);
        r.percent_of_peak = ct::percent_of(r.gbs, peak);
        r.passed = row.passed;
        r.detail = row.detail;
        results.push_back(r);
    };
    record("cudaMemcpyAsync, device to device", [&](cudaStream_t stream) {
        CT_CHECK(cudaMemcpyAsync(destination.data(), source.data(), count * sizeof(int4),
                                 cudaMemcpyDeviceToDevice, stream));
    });
    record("int4 copy kernel (grid-stride, 2 loads in flight per thread)",
           [&](cudaStream_t stream) {
               copy_int4_kernel<<<grid, kCopyBlock, 0, stream>>>(source.data(), destination.data(),
                                                                 count);
               CT_CHECK_LAUNCH();
           });
    return results;
}

}  // namespace execution_model
