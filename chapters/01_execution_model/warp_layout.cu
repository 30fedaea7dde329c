// Warps seen from inside: every thread of one block reports its lane (%laneid) and which thread
// is lane 0 of its warp, so that the linearization formula can be checked on the hardware.
//
// The programming guide promises that a block is cut into warps of consecutive linear thread
// indices, x fastest, then y, then z, the first warp holding thread 0. This kernel lets the
// hardware confirm it for any block shape (and shows the partial last warp of a 40 x 2 block).
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

namespace {

__device__ unsigned int lane_id() {
    unsigned int lane = 0;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__global__ void record_lanes_kernel(int* lanes, long long* warp_leaders) {
    const long long linear =
        (static_cast<long long>(threadIdx.z) * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    lanes[linear] = static_cast<int>(lane_id());
    // The mask of a __shfl_sync must name the lanes that take part, and all of them must reach
    // the call. It is computed from the block's size, not taken from __activemask(): that returns
    // the lanes that happen to be converged at that instant, which the programming model does not
    // promise to be all of them. Every warp but the last is full; the last holds the remaining
    // threads (fewer than 32 when the block size is not a multiple of 32), and lane 0 always
    // exists. (The mask assumes the documented cut into warps; the %laneid above checks it
    // independently.)
    const long long threads = static_cast<long long>(blockDim.x) * blockDim.y * blockDim.z;
    const long long lanes_in_warp = min(32LL, threads - (linear / 32) * 32);
    const unsigned int mask = lanes_in_warp == 32 ? 0xffffffffu : (1u << lanes_in_warp) - 1u;
    warp_leaders[linear] = __shfl_sync(mask, linear, 0);
}

}  // namespace

std::vector<LaneRecord> record_lanes_on_gpu(const BlockShape& block) {
    const auto n = static_cast<std::size_t>(block.threads());
    ct::DeviceBuffer<int> lanes(n);
    ct::DeviceBuffer<long long> leaders(n);
    lanes.fill_bytes(0xff);
    leaders.fill_bytes(0xff);
    record_lanes_kernel<<<1, dim3(block.x, block.y, block.z)>>>(lanes.data(), leaders.data());
    CT_CHECK_LAUNCH();
    const auto lane_host = lanes.to_host();
    const auto leader_host = leaders.to_host();
    std::vector<LaneRecord> records(n);
    for (std::size_t i = 0; i < n; ++i) {
        records[i] = LaneRecord{lane_host[i], leader_host[i]};
    }
    return records;
}

}  // namespace execution_model
