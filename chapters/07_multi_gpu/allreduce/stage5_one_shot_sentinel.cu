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
#include "stage5_one_shot_sentinel.cuh"
#include "stage_peer.hpp"

namespace multi_gpu {

namespace {

// One call per launch: wait for the previous kernel where launched programmatically (stage 9),
// take this call's number, run the call (stage5_one_shot_sentinel.cuh), count it.
__global__ void one_shot_sentinel_kernel(PeerArgs a) {
    follow_previous_kernel();
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const float4 first_vector = first_input(a.send[a.rank], first, a.n / 4);
    const std::uint32_t seq = begin_call(a);
    one_shot_sentinel_call(a, seq, first_vector, PlainStore{});
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
