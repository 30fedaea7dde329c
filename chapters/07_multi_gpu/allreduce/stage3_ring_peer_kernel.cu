// Stage 3: the same ring, but each reduce-scatter step is one kernel that loads the neighbour's
// chunk straight from its memory through peer access and adds it to its own in the same pass.
//
// Why it should be faster than stage 2: no staging buffer, so the chunk crosses the link once
// and is never written to and read back from local memory, and the transfer overlaps the add
// (each warp adds the bytes it has just received while other warps' loads are still in flight
// over the link), where stage 2 copies the whole chunk first and adds afterwards. What to look
// for: the reduce-scatter half now costs about one link transfer per step; the all-gather half
// is unchanged (it still copies). Needs peer access between neighbours (skipped otherwise).
#include <memory>

#include "cudatutorial/check.hpp"
#include "elementwise_launch.hpp"
#include "multi_gpu.hpp"
#include "ring_allreduce.hpp"

namespace multi_gpu {
namespace detail {
namespace {

// The kernel: dst = a + b, where b (or a) may be a peer GPU's memory. A load from a peer is an
// ordinary global load; the address says which GPU answers (unified virtual addressing), and
// with peer access enabled the request travels over NVLink or PCIe instead of to local DRAM.
// 16-byte loads: a peer load costs a round trip over the link, so each one should carry as many
// bytes as it can (chapter 3, stage 10's lesson, with a much longer latency).
__global__ void add_float4_kernel(const float4* a, const float4* b, float4* dst,
                                  std::size_t vectors) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < vectors;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const float4 x = a[i];
        const float4 y = b[i];
        dst[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

__global__ void add_float_kernel(const float* a, const float* b, float* dst, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        dst[i] = a[i] + b[i];
    }
}

}  // namespace

// Also stage 2's add (after its copy) and the ring team's: the same sum, only where b lives
// differs.
void launch_add_floats(const float* a, const float* b, float* dst, std::size_t count,
                       cudaStream_t stream) {
    if (count == 0) {
        return;
    }
    if (aligned16(a) && aligned16(b) && aligned16(dst)) {
        const std::size_t vectors = count / 4;
        if (vectors > 0) {
            add_float4_kernel<<<blocks_for(vectors), kElementwiseThreads, 0, stream>>>(
                reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
                reinterpret_cast<float4*>(dst), vectors);
            CT_CHECK_LAUNCH();
        }
        const std::size_t done = vectors * 4;
        if (done < count) {  // the last 1-3 floats
            add_float_kernel<<<1, kElementwiseThreads, 0, stream>>>(a + done, b + done, dst + done,
                                                                    count - done);
            CT_CHECK_LAUNCH();
        }
        return;
    }
    add_float_kernel<<<blocks_for(count), kElementwiseThreads, 0, stream>>>(a, b, dst, count);
    CT_CHECK_LAUNCH();
}

}  // namespace detail

namespace {

class RingPeerKernel final : public RingAllReducer {
  public:
    using RingAllReducer::RingAllReducer;

  protected:
    void reduce_chunk(int, int, const float* mine, const float* theirs, float* dst,
                      std::size_t count, cudaStream_t stream) const override {
        // `theirs` is the sender's device memory: the kernel's loads from it go over the link.
        detail::launch_add_floats(mine, theirs, dst, count, stream);
    }
};

}  // namespace

std::unique_ptr<AllReducer> make_ring_peer_kernel(const GpuSet& gpus, std::size_t n) {
    return std::make_unique<RingPeerKernel>(gpus, n);
}

}  // namespace multi_gpu
