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
#include "stage_peer.hpp"

namespace multi_gpu {

std::unique_ptr<TeamAllReducer> make_two_shot(PeerTeam& team,
                                              const std::vector<const float*>& send,
                                              const std::vector<float*>& recv, std::size_t n) {
    return make_peer_all_reducer(team, PeerAlgorithm::kTwoShot, send, recv, n);
}

}  // namespace multi_gpu
