// The nested "hello world": the smallest program that launches kernels from a kernel.
//
// Two recursions from the textbook, each level with half the threads of the one before, down
// to one thread; every thread prints one line and counts it (an atomic counter per depth, so
// the host and the tests can check the count without parsing the output):
//  - one-block children (nestedHelloWorld): thread 0 of EVERY block launches <<<1, T/2>>>, so a
//    grid of G blocks grows G independent chains of one-block grids (G*log2 T launches), and
//    every child prints block 0;
//  - same-grid children (nestedHelloWorld2): thread 0 of block 0 launches <<<G, T/2>>>, so each
//    depth is one grid of G blocks (log2 T launches).
// Both print G*T/2^d lines at depth d. The children are fire-and-forget: nobody waits for a
// line to be printed; device printf output reaches stdout when the host synchronizes.
#include <cstdio>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "nested_device.cuh"

namespace nested_reduction {
namespace {

using detail::record_launch;

__global__ void hello_one_block_children(int depth, unsigned long long* lines,
                                         LaunchCounters* counters) {
    printf("[depth %d] hello from block %d, thread %d\n", depth, static_cast<int>(blockIdx.x),
           static_cast<int>(threadIdx.x));
    atomicAdd(&lines[depth], 1ull);
    const unsigned int child_threads = blockDim.x / 2;
    if (threadIdx.x == 0 && child_threads > 0) {
        hello_one_block_children<<<1, child_threads, 0, cudaStreamFireAndForget>>>(depth + 1, lines,
                                                                                   counters);
        record_launch(counters);
        printf("  -> block %d at depth %d launched depth %d: 1 block of %u threads\n",
               static_cast<int>(blockIdx.x), depth, depth + 1, child_threads);
    }
}

__global__ void hello_same_grid_children(int depth, unsigned long long* lines,
                                         LaunchCounters* counters) {
    printf("[depth %d] hello from block %d, thread %d\n", depth, static_cast<int>(blockIdx.x),
           static_cast<int>(threadIdx.x));
    atomicAdd(&lines[depth], 1ull);
    const unsigned int child_threads = blockDim.x / 2;
    if (blockIdx.x == 0 && threadIdx.x == 0 && child_threads > 0) {
        hello_same_grid_children<<<gridDim.x, child_threads, 0, cudaStreamFireAndForget>>>(
            depth + 1, lines, counters);
        record_launch(counters);
        printf("  -> block 0 at depth %d launched depth %d: %u blocks of %u threads\n", depth,
               depth + 1, gridDim.x, child_threads);
    }
}

}  // namespace

HelloResult run_nested_hello(HelloVariant variant, int blocks, int threads) {
    validate_hello(blocks, threads);
    const std::size_t depths = expected_hello_lines(blocks, threads).size();
    cudatutorial::DeviceBuffer<unsigned long long> lines(depths);
    cudatutorial::DeviceBuffer<LaunchCounters> counters(1);
    lines.fill_bytes(0);
    counters.fill_bytes(0);
    std::fflush(stdout);  // host output first; the device's lines follow at the synchronization
    if (variant == HelloVariant::kOneBlockChildren) {
        hello_one_block_children<<<blocks, threads>>>(0, lines.data(), counters.data());
    } else {
        hello_same_grid_children<<<blocks, threads>>>(0, lines.data(), counters.data());
    }
    CT_CHECK_LAUNCH();
    CT_CHECK(cudaDeviceSynchronize());  // waits for every descendant and flushes device printf
    std::fflush(stdout);

    HelloResult result;
    const std::vector<unsigned long long> counted = lines.to_host();
    result.lines_per_depth.assign(counted.begin(), counted.end());
    counters.copy_to_host(&result.launches, 1);
    return result;
}

}  // namespace nested_reduction
