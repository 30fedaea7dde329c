// Stages 2 and 3 on a team, so that they run in one process per GPU too. The schedule is the
// ring's (ring_step). Events could be shared between processes (cudaIpcGetEventHandle,
// cudaIpcOpenEventHandle), but cudaStreamWaitEvent waits for the event's latest record at the
// time of the call: before waiting for a neighbour's step s - 1, this process would first have to
// learn through the host that the neighbour has recorded it, a host round trip per step. So each
// step boundary is a one-block kernel that tells both neighbours "my step is done" through a flag
// in their memory and waits for theirs (launch_neighbour_sync; the release/acquire pair of stage
// 4's barrier). One more boundary before the first step (every input final) and after the last
// (no neighbour still reads my output) bracket the call. In one process the same stages keep
// their events (ring_allreduce.cpp): driven from one process, the team form hung (on two H200s)
// until its spin gave up, most likely because the driver ordered a peer copy behind the other
// GPU's still-spinning step kernel, an ordering separate processes never share. So the team
// form refuses a team of more than one local GPU.
#include <memory>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "peer_allreduce.hpp"
#include "ring_allreduce.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {
namespace {

class TeamRing final : public TeamAllReducer {
  public:
    TeamRing(PeerTeam& team, const std::vector<const float*>& send,
             const std::vector<float*>& recv, std::size_t n, bool staged)
        : team_(team), n_(n), staged_(staged) {
        if (team.local_gpus() > 1) {
            throw std::invalid_argument(
                "the ring's team form is for one process per GPU; in one process, stages 2 and "
                "3 order the GPUs with events (make, not make_team)");
        }
        const int ranks = team.ranks();
        const PeerWorkspaceLayout layout = peer_workspace_layout(PeerAlgorithm::kTwoShot, ranks, 0);
        std::vector<void*> mine_send, mine_recv, mine_workspace;
        for (int g = 0; g < team.local_gpus(); ++g) {
            const DeviceGuard guard(team.device_of(g));
            workspace_.emplace_back(layout.bytes);
            workspace_.back().fill_bytes(0);
            if (staged) {
                staging_.emplace_back(ring_chunk(n, ranks, 0).size());  // the largest chunk
            }
            mine_send.push_back(const_cast<float*>(send[g]));
            mine_recv.push_back(recv[g]);
            mine_workspace.push_back(workspace_.back().data());
            CT_CHECK(cudaDeviceSynchronize());
        }
        send_ = team.share(mine_send);
        recv_ = team.share(mine_recv);
        workspaces_ = team.share(mine_workspace);
    }

    void run() const override {
        const int G = team_.ranks();
        team_.fork();
        for (int step = 0; step <= ring_steps(G); ++step) {
            for (int g = 0; g < team_.local_gpus(); ++g) {
                const DeviceGuard guard(team_.device_of(g));
                const cudaStream_t stream = team_.stream_of(g);
                const int rank = team_.rank_of(g);
                if (G > 1) {
                    launch_neighbour_sync(workspaces_->pointers()[g], rank, (rank + G - 1) % G,
                                          (rank + 1) % G, stream);
                }
                if (step < ring_steps(G)) {
                    move(g, rank, step, stream);
                } else if (G == 1) {
                    CT_CHECK(cudaMemcpyAsync(recv_->pointers()[g][0], send_->pointers()[g][0],
                                             n_ * sizeof(float), cudaMemcpyDeviceToDevice,
                                             stream));
                }
            }
        }
        team_.join();
    }

  private:
    const float* send_of(int g, int rank) const {
        return static_cast<const float*>(send_->pointers()[g][rank]);
    }
    float* recv_of(int g, int rank) const { return static_cast<float*>(recv_->pointers()[g][rank]); }

    // One step of ring_step() on local GPU g (rank `rank`), as RingAllReducer::run does it.
    void move(int g, int rank, int step, cudaStream_t stream) const {
        const int G = team_.ranks();
        const RingStep s = ring_step(G, rank, step);
        const Range chunk = ring_chunk(n_, G, s.chunk);
        if (chunk.empty()) {
            return;
        }
        float* dst = recv_of(g, rank) + chunk.begin;
        if (s.reduce) {
            const float* theirs =
                (step == 0 ? send_of(g, s.sender) : recv_of(g, s.sender)) + chunk.begin;
            const float* mine = send_of(g, rank) + chunk.begin;
            if (staged_) {  // stage 2: copy over the link, then add
                CT_CHECK(cudaMemcpyAsync(staging_[g].data(), theirs, chunk.size() * sizeof(float),
                                         cudaMemcpyDefault, stream));
                theirs = staging_[g].data();
            }
            detail::launch_add_floats(mine, theirs, dst, chunk.size(), stream);
        } else {
            CT_CHECK(cudaMemcpyAsync(dst, recv_of(g, s.sender) + chunk.begin,
                                     chunk.size() * sizeof(float), cudaMemcpyDefault, stream));
        }
    }

    PeerTeam& team_;
    std::size_t n_;
    bool staged_;
    std::vector<ct::DeviceBuffer<unsigned char>> workspace_;
    mutable std::vector<ct::DeviceBuffer<float>> staging_;
    std::shared_ptr<SharedBuffers> send_, recv_, workspaces_;
};

}  // namespace

std::unique_ptr<TeamAllReducer> make_ring_memcpy_team(PeerTeam& team,
                                                      const std::vector<const float*>& send,
                                                      const std::vector<float*>& recv,
                                                      std::size_t n) {
    return std::make_unique<TeamRing>(team, send, recv, n, true);
}

std::unique_ptr<TeamAllReducer> make_ring_peer_kernel_team(PeerTeam& team,
                                                           const std::vector<const float*>& send,
                                                           const std::vector<float*>& recv,
                                                           std::size_t n) {
    return std::make_unique<TeamRing>(team, send, recv, n, false);
}

}  // namespace multi_gpu
