// Stage 5: one-shot without flags. Stage 4 pays for its barrier twice over the link: the release
// makes the signalling thread wait until every store of its block has landed on the peer (a
// round trip), and only then does the flag travel (one more trip). Here the data is the signal
// (Lamport's trick, as in production inference all-reduces): every staging slot holds a marker
// that no input sends (-0.0, sent as +0.0), and each thread spins on the very elements it will
// add until none of them reads as the marker. The stores are posted and the reader sees each
// value as it lands: one trip over the link, no fence.
//
// What it costs: three staging buffers instead of two, and emptying each after use (a local
// store per element, off the critical path); correctness rests on each 4-byte value landing
// whole, which NVLink and PCIe guarantee for aligned stores. Why it should be faster than stage
// 4 on small messages: one link latency on the critical path instead of about three.
#include "peer_device.cuh"
#include "stage_peer.hpp"

namespace multi_gpu {

namespace {

// Stage 5. No flags, no fences, no barrier: every rank stores its input into its slot of every
// peer's staging buffer, and each thread spins on the very elements it will add until none of
// them reads "empty" any more. A value that is there is the value (each 4-byte lane is checked
// on its own, so a 16-byte store seen half-landed is simply waited for). The reader then marks
// the buffer it read at the previous call empty again, for the call after next; three buffers
// rotate, so the one a peer writes is never the one being read or being emptied (a rank can be
// one call ahead, never two: call k + 1 needs the peers' data of call k + 1).
__global__ void one_shot_sentinel_kernel(PeerArgs a) {
    follow_previous_kernel();
    const std::size_t vectors = a.n / 4;
    const std::size_t tail = a.n % 4;
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const float* mine = a.send[a.rank];
    const float4 first_vector = first_input(mine, first, vectors);
    const std::uint32_t seq = begin_call(a);
    const int buffer = static_cast<int>(seq % 3);
    const int emptied = static_cast<int>((seq + 2) % 3);  // the one read at call seq - 1
    for (std::size_t i = first; i < vectors; i += stride) {
        const float4 v =
            sendable(i == first ? first_vector : reinterpret_cast<const float4*>(mine)[i]);
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                reinterpret_cast<float4*>(staging_slot(a, p, buffer, a.rank))[i] = v;
            }
        }
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                staging_slot(a, p, buffer, a.rank)[i] = sendable(mine[i]);
            }
        }
    }
    const float4 empty4 =
        make_float4(__uint_as_float(kEmptySlotBits), __uint_as_float(kEmptySlotBits),
                    __uint_as_float(kEmptySlotBits), __uint_as_float(kEmptySlotBits));
    float* out = a.recv[a.rank];
    for (std::size_t i = first; i < vectors; i += stride) {
        float4 sum = make_float4(0, 0, 0, 0);
        for (int p = 0; p < a.ranks; ++p) {
            const float4 v =
                p == a.rank
                    ? sendable(reinterpret_cast<const float4*>(mine)[i])
                    : wait_for(reinterpret_cast<const float4*>(staging_slot(a, a.rank, buffer, p)) +
                               i);
            sum = p == 0 ? v : sum + v;
        }
        reinterpret_cast<float4*>(out)[i] = sum;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                reinterpret_cast<float4*>(staging_slot(a, a.rank, emptied, p))[i] = empty4;
            }
        }
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        float sum = 0;
        for (int p = 0; p < a.ranks; ++p) {
            const float v =
                p == a.rank ? sendable(mine[i]) : wait_for(staging_slot(a, a.rank, buffer, p) + i);
            sum = p == 0 ? v : sum + v;
        }
        out[i] = sum;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                staging_slot(a, a.rank, emptied, p)[i] = __uint_as_float(kEmptySlotBits);
            }
        }
    }
    end_call(a, seq);
}

}  // namespace

PeerKernel sentinel_peer_kernel() {
    return {PeerAlgorithm::kOneShotSentinel,
            reinterpret_cast<const void*>(one_shot_sentinel_kernel),
            launch_peer_kernel<one_shot_sentinel_kernel>};
}

std::unique_ptr<TeamAllReducer> make_one_shot_sentinel(PeerTeam& team,
                                                       const std::vector<const float*>& send,
                                                       const std::vector<float*>& recv,
                                                       std::size_t n) {
    return make_peer_all_reducer(team, sentinel_peer_kernel(), send, recv, n);
}

}  // namespace multi_gpu
