// The baseline: NCCL's ncclAllReduce, the library every multi-GPU program uses (as CUB is for
// chapters 3 and 5). On one host it picks ring or tree algorithms and NVLink or PCIe paths from
// the topology it detects, splits each message into many slices pipelined by persistent kernels
// (so transfer, reduction and the next step overlap), and uses its own copy kernels instead of
// copy engines. NVLink multicast (NVLS) is switched off in this chapter's runs (README).
#include <memory>

#include "cudatutorial/check.hpp"

#include "multi_gpu.hpp"
#include "nccl_support.hpp"

namespace multi_gpu {
namespace {

class NcclAllReduce final : public AllReducer {
  public:
    NcclAllReduce(const GpuSet& gpus, std::size_t n) : gpus_(gpus), n_(n), order_(gpus) {
        gpus.nccl();  // communicators now, outside the timed runs
    }

    void run(const std::vector<const float*>& send,
             const std::vector<float*>& recv) const override {
        std::vector<cudaStream_t> streams;
        std::vector<const void*> in;
        std::vector<void*> out;
        for (int g = 0; g < gpus_.size(); ++g) {
            streams.push_back(gpus_.stream(g));
            in.push_back(send[g]);
            out.push_back(recv[g]);
        }
        order_.fork();
        detail::nccl_allreduce(gpus_.nccl(), streams, in, out, n_, detail::NcclType::kFloat,
                               detail::NcclOp::kSum);
        order_.join();
    }

  private:
    const GpuSet& gpus_;
    std::size_t n_;
    ForkJoin order_;
};

}  // namespace

std::unique_ptr<AllReducer> make_nccl_allreduce(const GpuSet& gpus, std::size_t n) {
    if (!nccl_available()) {
        throw cudatutorial::UsageError("the NCCL baseline needs a build with NCCL");
    }
    return std::make_unique<NcclAllReduce>(gpus, n);
}

}  // namespace multi_gpu
