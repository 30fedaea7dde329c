// Divergence made visible without a profiler: instrumented copies of the short-branch kernels
// that record, inside each path, which lanes of the warp are executing it.
//
// __activemask() returns the lanes of the calling warp that execute the call together. The
// lowest of them ORs that mask into the warp's slot for the path and counts one "pass". After the
// kernel, per warp:
//  - if_lanes / else_lanes: the lanes that ran each path (the union over passes, so this part
//    does not depend on how the hardware schedules divergent lanes);
//  - if_passes / else_passes: how many separate groups executed the path (1 when the lanes that
//    took it ran it together; more if the scheduler split them).
//  - join_passes: how many separate groups executed the first statement after the if/else.
// A warp with lanes on both paths is a divergent warp: it issues both paths, one group of lanes
// at a time. Since Volta each thread has its own program counter (independent thread
// scheduling): the hardware may interleave the two groups, and nothing in the programming model
// makes them run the join together again. What does is the compiler: it brackets the branch with
// a convergence barrier (BSSY before it, BSYNC at the join, in the SASS), and join_passes shows
// whether the groups met there. __activemask() only reports who happens to execute together at
// that instruction; it does not wait for anyone (__syncwarp() does).
// The instrumentation changes the code (a short branch that the plain kernel turns into a select
// must now really execute an instruction in each path), so this shows which lanes *want* which
// path - the divergence the source code asks for - not how the compiled plain kernel runs it.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "divergence.hpp"

namespace divergence {

namespace ct = cudatutorial;

namespace {

struct PathSlots {
    std::uint32_t* if_lanes;
    std::uint32_t* else_lanes;
    std::uint32_t* if_passes;
    std::uint32_t* else_passes;
    std::uint32_t* join_passes;
};

__device__ unsigned int lane_id() {
    unsigned int lane = 0;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__device__ void note_path(std::uint32_t* lanes, std::uint32_t* passes, int warp) {
    const unsigned int active = __activemask();
    if (lane_id() == static_cast<unsigned int>(__ffs(active) - 1)) {  // one lane per pass
        atomicOr(&lanes[warp], active);
        atomicAdd(&passes[warp], 1u);
    }
}

template <Recorded kWhich>
__global__ void record_paths_kernel(float* c, int n, PathSlots slots) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) {
        return;  // the last warp may be partial: its missing lanes record nothing
    }
    const int warp = tid / warpSize;
    float ia = 0.0f;
    float ib = 0.0f;
    if constexpr (kWhich == Recorded::kPredicated) {
        const bool ipred = (tid % 2 == 0);
        if (ipred) {
            note_path(slots.if_lanes, slots.if_passes, warp);
            ia = kIfValue;
        }
        if (!ipred) {
            note_path(slots.else_lanes, slots.else_passes, warp);
            ib = kElseValue;
        }
    } else {
        bool take_if = false;
        if constexpr (kWhich == Recorded::kEvenOdd) {
            take_if = (tid % 2 == 0);
        } else if constexpr (kWhich == Recorded::kWarpAligned) {
            take_if = ((tid / warpSize) % 2 == 0);
        } else if constexpr (kWhich == Recorded::kFixedBitmask) {
            take_if = (((tid >> 5) & 0x01) == 0);
        } else {
            const int itid = tid >> 5;
            take_if = (itid & 0x01 == 0);  // the textbook's precedence bug: always false
        }
        if (take_if) {
            note_path(slots.if_lanes, slots.if_passes, warp);
            ia = kIfValue;
        } else {
            note_path(slots.else_lanes, slots.else_passes, warp);
            ib = kElseValue;
        }
    }
    // The join: one count per group of lanes that arrives here together (1 if the warp
    // reconverged after the branch, 2 if its two groups got here separately).
    const unsigned int joined = __activemask();
    if (lane_id() == static_cast<unsigned int>(__ffs(joined) - 1)) {
        atomicAdd(&slots.join_passes[warp], 1u);
    }
    c[tid] = ia + ib;
}

template <Recorded kWhich>
void launch_recorder(float* c, int n, int block, PathSlots slots) {
    record_paths_kernel<kWhich><<<(n + block - 1) / block, block>>>(c, n, slots);
    CT_CHECK_LAUNCH();
}

}  // namespace

PathRecord record_paths(Recorded which, int n, int block) {
    int device = 0;
    int warp_size = 32;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&warp_size, cudaDevAttrWarpSize, device));
    if (n < 1 || block < warp_size || block % warp_size != 0) {
        throw std::invalid_argument("record_paths: n must be >= 1 and the block a multiple of " +
                                    std::to_string(warp_size));
    }
    const std::size_t warps = (static_cast<std::size_t>(n) + warp_size - 1) / warp_size;
    ct::DeviceBuffer<float> c(static_cast<std::size_t>(n));
    ct::DeviceBuffer<std::uint32_t> if_lanes(warps), else_lanes(warps), if_passes(warps),
        else_passes(warps), join_passes(warps);
    c.fill_bytes(0xff);
    for (auto* buffer : {&if_lanes, &else_lanes, &if_passes, &else_passes, &join_passes}) {
        buffer->fill_bytes(0);  // the kernel ORs and adds into these
    }
    const PathSlots slots{if_lanes.data(), else_lanes.data(), if_passes.data(), else_passes.data(),
                          join_passes.data()};
    switch (which) {
        case Recorded::kEvenOdd:
            launch_recorder<Recorded::kEvenOdd>(c.data(), n, block, slots);
            break;
        case Recorded::kWarpAligned:
            launch_recorder<Recorded::kWarpAligned>(c.data(), n, block, slots);
            break;
        case Recorded::kPredicated:
            launch_recorder<Recorded::kPredicated>(c.data(), n, block, slots);
            break;
        case Recorded::kFixedBitmask:
            launch_recorder<Recorded::kFixedBitmask>(c.data(), n, block, slots);
            break;
        case Recorded::kTextbookBitmask:
            launch_recorder<Recorded::kTextbookBitmask>(c.data(), n, block, slots);
            break;
    }
    CT_CHECK(cudaDeviceSynchronize());
    PathRecord record;
    record.warp_size = warp_size;
    record.if_lanes = if_lanes.to_host();
    record.else_lanes = else_lanes.to_host();
    record.if_passes = if_passes.to_host();
    record.else_passes = else_passes.to_host();
    record.join_passes = join_passes.to_host();
    record.c = c.to_host();
    return record;
}

}  // namespace divergence
