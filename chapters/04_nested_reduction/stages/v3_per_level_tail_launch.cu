// Version 3 - the textbook's gpuRecursiveReduce2 (one launch per level), ported to CDP2.
//
// What changed from versions 1 and 2: instead of one child grid per block, thread 0 of block 0
// launches ONE grid for the next level of *all* G chunks: G blocks, each with half the threads
// of the level before (no idle threads: every thread adds). log2 B - 1 device launches in all,
// whatever N is (8 for blocks of 512, against 16384 for the textbook's 2048 blocks).
//
// The textbook launched that child right after block 0's thread 0 had done its own add - while
// the other blocks' adds, which the child reads, might still be pending: a race hidden by the
// launch latency. Here the child is a tail launch: it starts after every block of the level has
// finished, so it sees all of their sums. Each level is one dependent launch; that chain of
// log2 B - 1 launch latencies, not memory bandwidth, is what the time is made of.
//
// What to look for in the table: two to three orders of magnitude fewer launches than versions
// 1 and 2, and a time close to the cost of those few dependent launches plus one pass over the
// input.
#include "cudatutorial/check.hpp"
#include "nested_device.cuh"
#include "nested_launchers.hpp"

namespace nested_reduction::detail {
namespace {

// One level for all chunks: block b adds the upper `stride` ints of its chunk (`chunk_size`
// ints apart in `work`) onto the lower ones. Launched with G blocks of `stride` threads.
__global__ void per_level_fold(int* work, int* partials, int stride, int chunk_size,
                               LaunchCounters* counters) {
    int* data = work + static_cast<std::size_t>(blockIdx.x) * chunk_size;
    if (stride == 1) {  // the last level: one thread per block writes the chunk's sum
        partials[blockIdx.x] = wrap_add(data[0], data[1]);
        return;
    }
    const int t = static_cast<int>(threadIdx.x);
    data[t] = wrap_add(data[t], data[t + stride]);
    // EXERCISE BEGIN: one thread of the whole grid launches the next level, stride / 2, for all
    // EXERCISE HINT: chunks, so that it starts after every block of this level has finished;
    // EXERCISE HINT: count the launch with record_launch(counters)
    if (blockIdx.x == 0 && t == 0) {
        per_level_fold<<<gridDim.x, stride / 2, 0, cudaStreamTailLaunch>>>(
            work, partials, stride / 2, chunk_size, counters);
        record_launch(counters);
    }
    // EXERCISE END
}

// The host-launched first level: G blocks of B/2 threads; block b adds the two halves of input
// chunk b into its B/2 ints of `work`.
__global__ void per_level_first_level(const int* in, std::size_t n, int* work, int* partials,
                                      LaunchCounters* counters) {
    const int t = static_cast<int>(threadIdx.x);
    const int stride = static_cast<int>(blockDim.x);  // B/2
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * 2 * stride;
    work[static_cast<std::size_t>(blockIdx.x) * stride + t] =
        wrap_add(load_or_zero(in, n, first + t), load_or_zero(in, n, first + t + stride));
    if (blockIdx.x == 0 && t == 0) {
        per_level_fold<<<gridDim.x, stride / 2, 0, cudaStreamTailLaunch>>>(
            work, partials, stride / 2, stride, counters);
        record_launch(counters);
    }
}

void launch_per_level_tail(const RunBuffers& buffers, cudaStream_t stream) {
    per_level_first_level<<<buffers.chunks, buffers.block / 2, 0, stream>>>(
        buffers.in, buffers.n, buffers.work, buffers.partials, buffers.counters);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace nested_reduction::detail

// The version's row in the version list (nested_reduction.hpp): the build collects it from this
// file.
namespace nested_reduction::rows {

VersionInfo v3_per_level_tail_launch_row() {
    VersionInfo row(
        "per_level", "per_level_tail_launch",
        "every block folds; thread 0 of block 0 tail-launches the next level for all G chunks at "
        "once (log2 B - 1 launches in all, each after the previous level has finished)");
    row.launch = detail::launch_per_level_tail;
    row.version = Version::kPerLevelTail;
    row.seed_kernel = "gpuRecursiveReduce2";
    row.formula = "log2 B - 1";
    row.one_child_per_block = false;
    return row;
}

}  // namespace nested_reduction::rows
