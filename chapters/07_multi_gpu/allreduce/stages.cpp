// The all-reduce stage list: the executable, the tests and the README share it.
#include "cudatutorial/check.hpp"
#include "multi_gpu.hpp"

namespace multi_gpu {

const std::vector<AllReduceStage>& allreduce_stages() {
    static const std::vector<AllReduceStage> list = [] {
        std::vector<AllReduceStage> stages = {
            {{"1", "naive_gather_broadcast",
              "copy every vector to GPU 0, add there, copy the sum back to every GPU"},
             false,
             make_naive_gather_broadcast},
            {{"2", "ring_memcpy",
              "a ring: 2(G-1) steps, every GPU sending and receiving at once; each step a peer copy, then an add"},
             false,
             make_ring_memcpy},
            {{"3", "ring_peer_kernel",
              "stage 2 with each reduce step one kernel that reads the neighbour's chunk over "
              "the link and adds in the same pass"},
             true,
             make_ring_peer_kernel},
        };
        if (nccl_available()) {
            stages.push_back({{"nccl", "nccl_allreduce",
                               "ncclAllReduce: pipelined slices, its own kernels, topology-aware",
                               Role::kBaseline},
                              false,
                              make_nccl_allreduce});
        }
        return stages;
    }();
    return list;
}

const AllReduceStage* find_allreduce_stage(const std::string& id_or_name) {
    return cudatutorial::find_stage_in(allreduce_stages(), id_or_name);
}

}  // namespace multi_gpu
