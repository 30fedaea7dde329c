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
// moves 2(G - 1)/G x n per GPU). The memory-ordering argument is in peer_kernels.cu; the flags'
// arithmetic in flag_protocol.hpp.
#include "stage_peer.hpp"

namespace multi_gpu {

std::unique_ptr<TeamAllReducer> make_one_shot(PeerTeam& team,
                                              const std::vector<const float*>& send,
                                              const std::vector<float*>& recv, std::size_t n) {
    return make_peer_all_reducer(team, PeerAlgorithm::kOneShot, send, recv, n);
}

}  // namespace multi_gpu
