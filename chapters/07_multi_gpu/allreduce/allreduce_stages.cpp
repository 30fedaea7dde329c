// The all-reduce stage list, one row per stage, each field named (cudatutorial::StageRow): the
// executable, the tests and the README share it. A new stage is its file plus one row here.
#include <memory>

#include "cudatutorial/check.hpp"
#include "multi_gpu.hpp"
#include "peer_team.hpp"

namespace multi_gpu {

const std::vector<AllReduceStage>& allreduce_stages() {
    static const std::vector<AllReduceStage> list = [] {
        using Needs = AllReduceNeeds;
        std::vector<AllReduceStage> stages = {
            AllReduceStage("1", "naive_gather_broadcast",
                           "copy every vector to GPU 0, add there, copy the sum back to every GPU")
                .with_launcher(make_naive_gather_broadcast),
            AllReduceStage("2", "ring_memcpy",
                           "a ring: 2(G-1) steps, every GPU sending and receiving at once; each "
                           "step a peer copy, then an add")
                .with_launcher(make_ring_memcpy)
                .with(&Needs::make_team, make_ring_memcpy_team),
            AllReduceStage("3", "ring_peer_kernel",
                           "stage 2 with each reduce step one kernel that reads the neighbour's "
                           "chunk over the link and adds in the same pass")
                .with_launcher(make_ring_peer_kernel)
                .with(&Needs::make_team, make_ring_peer_kernel_team)
                .with(&Needs::needs_peer_access, true),
            AllReduceStage("4", "one_shot",
                           "one kernel per GPU: push the whole input into every peer's memory, "
                           "one flag barrier, sum locally (latency: one launch, one wait)")
                .with(&Needs::make_team, make_one_shot)
                .with(&Needs::needs_peer_access, true)
                .with(&Needs::max_bytes, kOneShotMaxBytes)
                .with(&Needs::why_max_bytes,
                      "every GPU receives all G - 1 inputs whole and stages two copies of each"),
            AllReduceStage("5", "one_shot_sentinel",
                           "stage 4 without flags: every slot starts as a marker no input sends, "
                           "and each thread spins on the values it adds until they have landed "
                           "(one trip, no fence)")
                .with(&Needs::make_team, make_one_shot_sentinel)
                .with(&Needs::needs_peer_access, true)
                .with(&Needs::max_bytes, kOneShotMaxBytes)
                .with(&Needs::why_max_bytes,
                      "every GPU receives all G - 1 inputs whole and stages three copies of each"),
            AllReduceStage("6", "two_shot",
                           "one kernel per GPU: sum my chunk loaded from every peer, store it "
                           "into every peer's output (the ring's traffic, no steps)")
                .with(&Needs::make_team, make_two_shot)
                .with(&Needs::needs_peer_access, true),
            AllReduceStage("7", "size_rule",
                           "stage 5 below the size from which stage 6 measured faster on these "
                           "GPUs, stage 6 above")
                .with(&Needs::make_team, make_size_rule)
                .with(&Needs::needs_peer_access, true),
            AllReduceStage("8", "size_rule_graph",
                           "stage 7 captured once in a CUDA graph: one launch instead of fork, "
                           "kernels and join")
                .with(&Needs::make_team, make_size_rule_graph)
                .with(&Needs::needs_peer_access, true),
            AllReduceStage("9", "size_rule_pdl",
                           "stage 7 with each kernel launched programmatically: scheduled while "
                           "the previous call still runs, it waits for it on the GPU (the launch "
                           "overlaps the last call)")
                .with(&Needs::make_team, make_size_rule_pdl)
                .with(&Needs::needs_peer_access, true),
            AllReduceStage("10", "persistent",
                           "stage 5 in a kernel that stays resident on every GPU and takes its "
                           "calls from a doorbell in host memory: no launch per call (timed in "
                           "the round-trip section)")
                .with(&Needs::needs_peer_access, true)
                .with(&Needs::max_bytes, kPersistentMaxBytes)
                .with(&Needs::why_max_bytes,
                      "its kernel holds its blocks, and their SMs, for as long as it lives")
                .with(&Needs::make_resident, make_persistent),
        };
        if (nccl_available()) {
            stages.push_back(AllReduceStage("nccl", "nccl_allreduce",
                                            "ncclAllReduce: pipelined slices, its own kernels, "
                                            "topology-aware")
                                 .with_role(Role::kBaseline)
                                 .with(&Needs::make_team, make_nccl_allreduce));
        }
        return stages;
    }();
    return list;
}

const AllReduceStage* find_allreduce_stage(const std::string& id_or_name) {
    return cudatutorial::find_stage_in(allreduce_stages(), id_or_name);
}

namespace {

// A team-made stage seen as an AllReducer of one process: made on the first run, when the
// buffers are known (they are shared with the other GPUs then), and again if they change.
class OneProcessAllReducer final : public AllReducer {
  public:
    OneProcessAllReducer(MakeTeamAllReducer make, const GpuSet& gpus, std::size_t n)
        : make_(make), team_(gpus), n_(n) {}

    void run(const std::vector<const float*>& send,
             const std::vector<float*>& recv) const override {
        if (!made_ || send != send_ || recv != recv_) {
            made_.reset();
            made_ = make_(team_, send, recv, n_);
            send_ = send;
            recv_ = recv;
        }
        made_->run();
    }

    std::string remark() const override { return made_ ? made_->remark() : std::string(); }

  private:
    MakeTeamAllReducer make_;
    mutable OneProcessTeam team_;
    std::size_t n_;
    mutable std::unique_ptr<TeamAllReducer> made_;
    mutable std::vector<const float*> send_;
    mutable std::vector<float*> recv_;
};

}  // namespace

std::unique_ptr<AllReducer> make_all_reducer(const AllReduceStage& stage, const GpuSet& gpus,
                                             std::size_t n) {
    if (stage.launch != nullptr) {
        return stage.launch(gpus, n);
    }
    return std::make_unique<OneProcessAllReducer>(stage.make_team, gpus, n);
}

}  // namespace multi_gpu
