// Stage 6: two-shot. The ring's traffic in one kernel: each GPU owns a chunk of the vector,
// loads that chunk from every peer's input over the link and adds (the reduce-scatter), and
// stores the sum straight into every GPU's output (the all-gather), in the same pass. Two flag
// barriers bracket it: at the start (every input is final, every output free) and at the end
// (no peer still reads my input or writes my output).
//
// Why it should be faster than stages 3-5 on large messages: every GPU moves 2(G - 1)/G x n floats
// over its link, as in the ring, but both halves run at once inside one kernel, with no step
// boundaries, no copy engine and no events; the loads of the reduce half and the stores of the
// gather half share the link in both directions. Why one-shot (stage 5) beats it on small ones: two
// barriers instead of none, and a load over the link (a round trip) instead of a posted store.
#include "peer_device.cuh"
#include "stage_peer.hpp"

namespace multi_gpu {

namespace {

constexpr int kTwoShotUnroll = 4;  // independent 16-byte loads per thread per peer in flight

// Stage 6. After a first barrier (every rank's kernel has started, so every input is final and
// every output may be written), each rank sums its own chunk over all ranks, loading the peers'
// inputs over the link (reduce-scatter), and stores the sum into every rank's output (all-gather),
// in the same pass. A second barrier keeps every rank's kernel running until the peers are done
// with its memory: when a rank's kernel ends, its output is complete and its input free again.
__global__ void two_shot_kernel(PeerArgs a) {
    follow_previous_kernel();
    const std::uint32_t seq = begin_call(a);
    peer_barrier(a, 0, seq);
    const std::size_t begin_vector = a.chunk_begin / 4;  // chunks start on multiples of 4 floats
    const std::size_t vectors = (a.chunk_end - a.chunk_begin) / 4;
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    for (std::size_t base = first; base < vectors; base += stride * kTwoShotUnroll) {
        float4 sum[kTwoShotUnroll];
#pragma unroll
        for (int u = 0; u < kTwoShotUnroll; ++u) {
            const std::size_t i = base + u * stride;
            if (i < vectors) {
                sum[u] = reinterpret_cast<const float4*>(a.send[0])[begin_vector + i];
            }
        }
        for (int p = 1; p < a.ranks; ++p) {
#pragma unroll
            for (int u = 0; u < kTwoShotUnroll; ++u) {
                const std::size_t i = base + u * stride;
                if (i < vectors) {
                    sum[u] = sum[u] + reinterpret_cast<const float4*>(a.send[p])[begin_vector + i];
                }
            }
        }
        for (int p = 0; p < a.ranks; ++p) {
#pragma unroll
            for (int u = 0; u < kTwoShotUnroll; ++u) {
                const std::size_t i = base + u * stride;
                if (i < vectors) {
                    reinterpret_cast<float4*>(a.recv[p])[begin_vector + i] = sum[u];
                }
            }
        }
    }
    const std::size_t tail = (a.chunk_end - a.chunk_begin) % 4;  // only the last chunk has one
    if (first < tail) {
        const std::size_t i = a.chunk_begin + vectors * 4 + first;
        float sum = a.send[0][i];
        for (int p = 1; p < a.ranks; ++p) {
            sum += a.send[p][i];
        }
        for (int p = 0; p < a.ranks; ++p) {
            a.recv[p][i] = sum;
        }
    }
    peer_barrier(a, 1, seq);
    end_call(a, seq);
}

}  // namespace

PeerKernel two_shot_peer_kernel() {
    return {PeerAlgorithm::kTwoShot, reinterpret_cast<const void*>(two_shot_kernel),
            launch_peer_kernel<two_shot_kernel>};
}

std::unique_ptr<TeamAllReducer> make_two_shot(PeerTeam& team, const std::vector<const float*>& send,
                                              const std::vector<float*>& recv, std::size_t n) {
    return make_peer_all_reducer(team, two_shot_peer_kernel(), send, recv, n);
}

}  // namespace multi_gpu
