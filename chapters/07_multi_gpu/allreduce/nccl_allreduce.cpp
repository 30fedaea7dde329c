// The baseline: NCCL's ncclAllReduce, the library every multi-GPU program uses (as CUB is for
// chapters 3 and 5). On one host it picks ring or tree algorithms and NVLink or PCIe paths from
// the topology it detects, splits each message into many slices pipelined by persistent kernels
// (so transfer, reduction and the next step overlap), and uses its own copy kernels instead of
// copy engines. NVLink multicast (NVLS) is switched off in this chapter's runs (README).
#include <memory>

#include "cudatutorial/check.hpp"
#include "multi_gpu.hpp"
#include "nccl_support.hpp"
#include "peer_team.hpp"

namespace multi_gpu {
namespace {

class NcclAllReduce final : public TeamAllReducer {
  public:
    NcclAllReduce(PeerTeam& team, const std::vector<const float*>& send,
                  const std::vector<float*>& recv, std::size_t n)
        : team_(team), n_(n), in_(send.begin(), send.end()), out_(recv.begin(), recv.end()) {
        for (int g = 0; g < team.local_gpus(); ++g) {
            streams_.push_back(team.stream_of(g));
        }
        team.nccl();  // communicators now, outside the timed runs
    }

    void run() const override {
        team_.fork();
        detail::nccl_allreduce(team_.nccl(), streams_, in_, out_, n_, detail::NcclType::kFloat,
                               detail::NcclOp::kSum);
        team_.join();
    }

  private:
    PeerTeam& team_;
    std::size_t n_;
    std::vector<const void*> in_;
    std::vector<void*> out_;
    std::vector<cudaStream_t> streams_;
};

}  // namespace

std::unique_ptr<TeamAllReducer> make_nccl_allreduce(PeerTeam& team,
                                                    const std::vector<const float*>& send,
                                                    const std::vector<float*>& recv,
                                                    std::size_t n) {
    if (!nccl_available()) {
        throw cudatutorial::UsageError("the NCCL baseline needs a build with NCCL");
    }
    return std::make_unique<NcclAllReduce>(team, send, recv, n);
}

}  // namespace multi_gpu
