// Stage 4: one-shot. For small messages the ring's 2(G - 1) dependent steps are the cost, not
// the bytes: each step is a launch or a copy and a wait, a few microseconds each, to move a few
// kilobytes. One-shot does the whole all-reduce in one kernel per GPU: every GPU stores its
// input into a slot of every other GPU's staging area over the link, raises a flag in each of
// them, waits for every peer's flag, and adds the slots it holds. One launch, one wait, no host.
//
// Why it should be faster than stages 1-3 on small messages: one kernel instead of 2(G - 1)
// steps, and the GPUs synchronise through memory (a store and a spin over the link) instead of
// through events and the host. Why it loses on large ones: every GPU receives all G - 1 inputs
// whole, (G - 1) x n floats, into a staging area that it then reads back (an extra pass through
// memory); at G = 2 the link carries what a ring's would, from G = 3 on G/2 times as much (a ring
// moves 2(G - 1)/G x n per GPU). The memory-ordering argument is in peer_device.cuh; the flags'
// arithmetic in flag_protocol.hpp.
#include "peer_device.cuh"
#include "stage_peer.hpp"

namespace multi_gpu {

namespace {

// Stage 4. Every rank stores its input into its own slot of every peer's staging area (stores
// over the link are posted: the block does not wait for them to land, only the release does),
// signals, waits for every peer's signal, and sums the slots it now holds, in rank order.
// Without the flags a rank would read slots before they arrive; without the two halves, a rank
// one call ahead would overwrite a slot its peer is still summing (flag_protocol.hpp).
__global__ void one_shot_kernel(PeerArgs a) {
    follow_previous_kernel();
    const std::size_t vectors = a.n / 4;
    const std::size_t tail = a.n % 4;
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const float* mine = a.send[a.rank];
    const float4 first_vector = first_input(mine, first, vectors);
    const std::uint32_t seq = begin_call(a);
    const int half = staging_half(seq);
    for (std::size_t i = first; i < vectors; i += stride) {
        const float4 v = i == first ? first_vector : reinterpret_cast<const float4*>(mine)[i];
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                reinterpret_cast<float4*>(staging_slot(a, p, half, a.rank))[i] = v;
            }
        }
    }
    if (first < tail) {  // the last 1-3 floats, one thread each (the same thread on every rank)
        const std::size_t i = vectors * 4 + first;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                staging_slot(a, p, half, a.rank)[i] = mine[i];
            }
        }
    }
    peer_barrier(a, 0, seq);
    const auto source = [&](int p) -> const float* {
        return p == a.rank ? mine : staging_slot(a, a.rank, half, p);
    };
    float* out = a.recv[a.rank];
    for (std::size_t i = first; i < vectors; i += stride) {
        float4 sum = reinterpret_cast<const float4*>(source(0))[i];
        for (int p = 1; p < a.ranks; ++p) {
            sum = sum + reinterpret_cast<const float4*>(source(p))[i];
        }
        reinterpret_cast<float4*>(out)[i] = sum;
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        float sum = source(0)[i];
        for (int p = 1; p < a.ranks; ++p) {
            sum += source(p)[i];
        }
        out[i] = sum;
    }
    end_call(a, seq);
}

}  // namespace

PeerKernel one_shot_peer_kernel() {
    return {PeerAlgorithm::kOneShot, reinterpret_cast<const void*>(one_shot_kernel),
            launch_peer_kernel<one_shot_kernel>};
}

std::unique_ptr<TeamAllReducer> make_one_shot(PeerTeam& team, const std::vector<const float*>& send,
                                              const std::vector<float*>& recv, std::size_t n) {
    return make_peer_all_reducer(team, one_shot_peer_kernel(), send, recv, n);
}

}  // namespace multi_gpu
