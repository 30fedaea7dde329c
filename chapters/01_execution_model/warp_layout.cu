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
    // No branch has run yet, so the lanes of this warp are converged and __activemask() is the
    // set of lanes that exist (fewer than 32 in a partial last warp). Lane 0 always exists.
    warp_leaders[linear] = __shfl_sync(__activemask(), linear, 0);
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
