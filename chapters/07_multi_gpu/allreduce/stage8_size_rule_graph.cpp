// Stage 8: stage 7 captured in a CUDA graph (chapter 6's lesson). A small all-reduce costs about
// as much to launch as to run. In one process the launch is more than one kernel: an event and a
// wait to fork every GPU's stream from GPU 0's, a launch per GPU, and a wait per GPU to join them
// back; captured once into a graph, all of it becomes a single cudaGraphLaunch, which the driver
// submits with far less host and GPU work per node. In one process per GPU the graph replaces a
// single kernel launch, and saves correspondingly less. The kernels keep their call numbers in
// device memory (flag_protocol.hpp), which is what makes replaying the same graph correct.
#include "cudatutorial/check.hpp"
#include "stage_peer.hpp"

namespace multi_gpu {
namespace {

class GraphAllReducer final : public TeamAllReducer {
  public:
    GraphAllReducer(PeerTeam& team, std::unique_ptr<PeerTeamAllReducer> inner)
        : team_(team), inner_(std::move(inner)) {
        const DeviceGuard guard(team.device_of(0));
        const cudaStream_t stream = team.stream_of(0);
        // Thread-local capture: only this thread's calls are captured; the fork inside run()
        // brings every other GPU's stream into the capture through its event wait.
        CT_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        inner_->run();
        cudaGraph_t graph = nullptr;
        CT_CHECK(cudaStreamEndCapture(stream, &graph));
        const cudaError_t status = cudaGraphInstantiate(&exec_, graph, 0);
        cudaGraphDestroy(graph);
        CT_CHECK(status);
    }
    ~GraphAllReducer() override {
        if (exec_ != nullptr) {
            cudaGraphExecDestroy(exec_);
        }
    }
    GraphAllReducer(const GraphAllReducer&) = delete;
    GraphAllReducer& operator=(const GraphAllReducer&) = delete;

    void run() const override {
        const DeviceGuard guard(team_.device_of(0));
        CT_CHECK(cudaGraphLaunch(exec_, team_.stream_of(0)));
    }

  private:
    PeerTeam& team_;
    std::unique_ptr<PeerTeamAllReducer> inner_;
    cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

std::unique_ptr<TeamAllReducer> make_size_rule_graph(PeerTeam& team,
                                                     const std::vector<const float*>& send,
                                                     const std::vector<float*>& recv,
                                                     std::size_t n) {
    const SizeRule rule = size_rule_for(team);
    auto reducer = std::make_unique<GraphAllReducer>(
        team, make_peer_all_reducer(team, size_rule_kernel(rule, n * sizeof(float)), send, recv, n));
    reducer->set_remark("stage 7's size rule, measured on these GPUs: " + rule.reason);
    return reducer;
}

}  // namespace multi_gpu
