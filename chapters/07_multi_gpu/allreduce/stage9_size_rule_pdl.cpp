// Stage 9: stage 7 launched programmatically (programmatic dependent launch, chapter 6). Timed
// one call at a time, a small all-reduce is mostly the launch: an empty kernel timed the same way
// takes most of stage 7's time (the table's "launch floor"). When calls follow each other, as in
// a training or inference step, each kernel can start being scheduled while the previous kernel
// of its stream is still running: it is launched with cudaLaunchAttributeProgrammaticStreamSerialization,
// waits on the GPU for that kernel to finish (cudaGridDependencySynchronize, the first thing every
// peer kernel does), and lets the next call be scheduled at once. Nothing about the all-reduce
// changes, only when its kernel gets onto the GPU, so what it saves shows in the back-to-back
// table (--batch), hardly at all one call at a time. Inference engines launch their small
// all-reduces this way. Needs compute capability 9.0; elsewhere it is stage 7.
#include "stage_peer.hpp"

namespace multi_gpu {

std::unique_ptr<TeamAllReducer> make_size_rule_pdl(PeerTeam& team,
                                                   const std::vector<const float*>& send,
                                                   const std::vector<float*>& recv,
                                                   std::size_t n) {
    const SizeRule rule = size_rule_for(team);
    auto reducer = make_peer_all_reducer(team, size_rule_kernel(rule, n * sizeof(float)), send, recv, n,
                                         PeerLaunchMode::kProgrammatic);
    reducer->set_remark("stage 7's size rule, measured on these GPUs: " + rule.reason);
    return reducer;
}

}  // namespace multi_gpu
