// Version 2 - the textbook's gpuRecursiveReduceNosync ("without synchronization"), made correct
// with a tail launch.
//
// What changed from version 1: no __syncthreads() before the launch, as in the textbook. The
// textbook's version was a data race: thread 0 launched the child right after its *own* add,
// while other threads of the block (other warps, scheduled later) might not have written their
// sums yet - and the child is only guaranteed to see what the launching thread wrote or had
// observed. It usually "worked" because a launch took longer than the parent's adds.
//
// The CDP2 fix without a barrier is the tail launch: a grid launched into cudaStreamTailLaunch
// starts only after the *whole* launching grid (every block, every thread) and all the other
// work it launched have finished, so the grid boundary is the barrier, and a strong one.
//
// The price, and what to look for in the table: each grid has ONE tail-launch stream, and
// grids in it run one after another, each waiting for the previous one *and all its
// descendants*. The G children of the first level - and their own chains - therefore run
// strictly one at a time: G*(log2 B - 1) dependent launches in a row, paid at the device's
// launch latency each. Same launch count as version 1, no parallelism left between chunks.
#include "cudatutorial/check.hpp"
#include "nested_device.cuh"
#include "nested_launchers.hpp"

namespace nested_reduction::detail {
namespace {

// Reduces the `size` ints at `data` into *partial. One block of `size` threads.
__global__ void per_block_tail_level(int* data, int* partial, int size, LaunchCounters* counters) {
    const int t = static_cast<int>(threadIdx.x);
    if (size == 2) {
        if (t == 0) {
            *partial = wrap_add(data[0], data[1]);
        }
        return;
    }
    const int stride = size / 2;
    if (t < stride) {
        data[t] = wrap_add(data[t], data[t + stride]);
    }
    // No barrier: the child is a tail launch, so it cannot start before this grid has finished.
    if (t == 0) {
        per_block_tail_level<<<1, stride, 0, cudaStreamTailLaunch>>>(data, partial, stride,
                                                                     counters);
        record_launch(counters);
    }
}

__global__ void per_block_tail_first_level(const int* in, std::size_t n, int* work, int* partials,
                                           LaunchCounters* counters) {
    const int t = static_cast<int>(threadIdx.x);
    const int stride = static_cast<int>(blockDim.x) / 2;
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    int* chunk = work + static_cast<std::size_t>(blockIdx.x) * stride;
    if (t < stride) {
        chunk[t] =
            wrap_add(load_or_zero(in, n, first + t), load_or_zero(in, n, first + t + stride));
    }
    if (t == 0) {
        per_block_tail_level<<<1, stride, 0, cudaStreamTailLaunch>>>(chunk, partials + blockIdx.x,
                                                                     stride, counters);
        record_launch(counters);
    }
}

void launch_per_block_tail(const RunBuffers& buffers, cudaStream_t stream) {
    per_block_tail_first_level<<<buffers.chunks, buffers.block, 0, stream>>>(
        buffers.in, buffers.n, buffers.work, buffers.partials, buffers.counters);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace nested_reduction::detail

// The version's row in the version list (nested_reduction.hpp): the build collects it from this
// file.
namespace nested_reduction::rows {

VersionInfo v2_per_block_tail_launch_row() {
    VersionInfo row("nosync", "per_block_no_barrier_tail_launch",
                    "no barrier: thread 0 tail-launches the 1-block child, which runs only after "
                    "the whole parent grid has finished (the grid boundary is the barrier); one "
                    "tail stream per grid runs the G children one after another");
    row.launch = detail::launch_per_block_tail;
    row.version = Version::kPerBlockTail;
    row.seed_kernel = "gpuRecursiveReduceNosync";
    row.formula = "G*(log2 B - 1)";
    row.one_child_per_block = true;
    return row;
}

}  // namespace nested_reduction::rows
