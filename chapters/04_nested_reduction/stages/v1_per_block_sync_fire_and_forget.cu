// Version 1 - the textbook's gpuRecursiveReduce ("with synchronization"), ported to CDP2.
//
// Structure (unchanged from the textbook): G blocks of B threads, one per chunk of B ints. Each
// block halves its chunk, then thread 0 launches a child grid of ONE block that halves it
// again, and so on down to 2 ints: log2 B - 1 device launches per block, G*(log2 B - 1) in all
// (2048 * 8 = 16384 for the textbook's 2^20 ints in blocks of 512).
//
// What changed, and why:
//  - The textbook waited for each child with a device-side cudaDeviceSynchronize(). CDP2 (the
//    only dynamic parallelism on sm_90 and newer, the default since CUDA 12) removed it, so the
//    seed no longer compiles. It was never needed here: the parent does nothing with the
//    child's result. The child is launched fire-and-forget instead; the host-launched grid that
//    sums the partials still runs after every descendant has finished, because a grid is not
//    complete until all the work it launched is.
//  - The __syncthreads() before the launch stays, and it is what makes this version correct: a
//    child grid is guaranteed to see only the memory writes its *launching thread* made (or had
//    observed) before the launch. The barrier makes the sums written by every thread of the
//    block part of what thread 0 has observed.
//  - The first level reads the caller's input and writes the halved chunk to a work buffer
//    (the textbook summed in place and destroyed its input, so it could not be run twice), and
//    elements past N count as 0, so any N is accepted.
//  - Every device launch is checked with cudaGetLastError() and counted (record_launch). With
//    the default pending-launch pool of 2048 slots, thousands of these launches can fail.
//
// What to look for in the table: the launch count, and a time far above the flat reduction's:
// every level of every chunk is a separate grid of one block.
#include "cudatutorial/check.hpp"
#include "nested_device.cuh"
#include "nested_launchers.hpp"

namespace nested_reduction::detail {
namespace {

// Reduces the `size` ints at `data` into *partial. One block of `size` threads; as in the
// textbook, only the lower half of them add.
__global__ void per_block_sync_level(int* data, int* partial, int size, LaunchCounters* counters) {
    const int t = static_cast<int>(threadIdx.x);
    if (size == 2) {  // the textbook's stop condition
        if (t == 0) {
            *partial = wrap_add(data[0], data[1]);
        }
        return;
    }
    const int stride = size / 2;
    if (t < stride) {
        data[t] = wrap_add(data[t], data[t + stride]);
    }
    __syncthreads();  // every thread's sum is written before thread 0 hands the chunk on
    if (t == 0) {
        per_block_sync_level<<<1, stride, 0, cudaStreamFireAndForget>>>(data, partial, stride,
                                                                        counters);
        record_launch(counters);
    }
}

// The host-launched first level: block b halves input chunk b into its B/2 ints of `work`.
__global__ void per_block_sync_first_level(const int* in, std::size_t n, int* work, int* partials,
                                           LaunchCounters* counters) {
    const int t = static_cast<int>(threadIdx.x);
    const int stride = static_cast<int>(blockDim.x) / 2;
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    int* chunk = work + static_cast<std::size_t>(blockIdx.x) * stride;
    if (t < stride) {
        chunk[t] =
            wrap_add(load_or_zero(in, n, first + t), load_or_zero(in, n, first + t + stride));
    }
    __syncthreads();
    if (t == 0) {
        per_block_sync_level<<<1, stride, 0, cudaStreamFireAndForget>>>(
            chunk, partials + blockIdx.x, stride, counters);
        record_launch(counters);
    }
}

void launch_per_block_sync(const RunBuffers& buffers, cudaStream_t stream) {
    per_block_sync_first_level<<<buffers.chunks, buffers.block, 0, stream>>>(
        buffers.in, buffers.n, buffers.work, buffers.partials, buffers.counters);
    CT_CHECK_LAUNCH();
}

}  // namespace

}  // namespace nested_reduction::detail

// The version's row in the version list (nested_reduction.hpp): the build collects it from this
// file.
namespace nested_reduction::rows {

VersionInfo v1_per_block_sync_fire_and_forget_row() {
    VersionInfo row(
        "sync", "per_block_sync_fire_and_forget",
        "each block folds its chunk, __syncthreads(), then thread 0 launches a 1-block child "
        "fire-and-forget (the barrier makes the whole block's sums visible to the child)");
    row.launch = detail::launch_per_block_sync;
    row.version = Version::kPerBlockSync;
    row.seed_kernel = "gpuRecursiveReduce";
    row.formula = "G*(log2 B - 1)";
    row.one_child_per_block = true;
    return row;
}

}  // namespace nested_reduction::rows
