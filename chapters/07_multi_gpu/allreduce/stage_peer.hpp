/// @file stage_peer.hpp
/// @brief What stages 4-9 share: a TeamAllReducer around a PeerAllReduce of fixed n, and the
/// size rule cached per set of GPUs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "multi_gpu.hpp"
#include "peer_allreduce.hpp"

namespace multi_gpu {

/// A peer-memory all-reduce of n floats over fixed buffers.
class PeerTeamAllReducer final : public TeamAllReducer {
  public:
    PeerTeamAllReducer(PeerTeam& team, const PeerKernel& kernel,
                       const std::vector<const float*>& send, const std::vector<float*>& recv,
                       std::size_t n, PeerLaunchMode mode = PeerLaunchMode::kOrdinary)
        : all_reduce_(team, kernel, send, recv, n, mode), n_(n) {}
    void run() const override { all_reduce_.run(n_); }

  private:
    PeerAllReduce all_reduce_;
    std::size_t n_;
};

/// A PeerTeamAllReducer (collective over the ranks).
inline std::unique_ptr<PeerTeamAllReducer> make_peer_all_reducer(
    PeerTeam& team, const PeerKernel& kernel, const std::vector<const float*>& send,
    const std::vector<float*>& recv, std::size_t n,
    PeerLaunchMode mode = PeerLaunchMode::kOrdinary) {
    return std::make_unique<PeerTeamAllReducer>(team, kernel, send, recv, n, mode);
}

/// The kernel the size rule picks for a message of `bytes`: stage 5's below its boundary,
/// stage 6's from it.
inline PeerKernel size_rule_kernel(const SizeRule& rule, std::uint64_t bytes) {
    return rule.choose(bytes) == PeerAlgorithm::kOneShotSentinel ? sentinel_peer_kernel()
                                                                 : two_shot_peer_kernel();
}

/// The size rule of `team`'s GPUs, measured at the first call (collective) and cached.
SizeRule size_rule_for(PeerTeam& team);

}  // namespace multi_gpu
