// Stage 1: the all-reduce anyone writes first. Every GPU's vector is copied to GPU 0, GPU 0 adds
// them, and the sum is copied back to every GPU.
//
// Why it is slow: every byte crosses GPU 0's link twice (in and out), 2(G - 1) x n x
// sizeof(float) bytes in all (n counts floats), one after another, while the other GPUs' links
// carry one direction each and mostly idle. Its
// time grows with G. What to look for: its bus bandwidth is about half the link's one-way rate
// on two GPUs and falls as GPUs are added; on small messages it is fine, because it makes few
// copies and one launch (latency, not bandwidth, decides there).
#include <memory>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "multi_gpu.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {
namespace {

class NaiveGatherBroadcast final : public AllReducer {
  public:
    NaiveGatherBroadcast(const GpuSet& gpus, std::size_t n) : gpus_(gpus), n_(n), order_(gpus) {
        const DeviceGuard guard(gpus.device(0));
        staging_ = ct::DeviceBuffer<float>(n * static_cast<std::size_t>(gpus.size() - 1));
    }

    void run(const std::vector<const float*>& send,
             const std::vector<float*>& recv) const override {
        const int G = gpus_.size();
        const std::size_t bytes = n_ * sizeof(float);
        order_.fork();
        const DeviceGuard guard(gpus_.device(0));
        const cudaStream_t stream = gpus_.stream(0);
        // Gather: every copy is queued on GPU 0's stream, so they run one after another.
        std::vector<const float*> sources{send[0]};
        for (int g = 1; g < G; ++g) {
            float* slot = staging_.data() + (g - 1) * n_;
            CT_CHECK(cudaMemcpyPeerAsync(slot, gpus_.device(0), send[g], gpus_.device(g), bytes,
                                         stream));
            sources.push_back(slot);
        }
        detail::launch_sum_floats(sources.data(), G, recv[0], n_, stream);
        // Broadcast: GPU 0 sends the sum to each GPU in turn.
        for (int g = 1; g < G; ++g) {
            CT_CHECK(cudaMemcpyPeerAsync(recv[g], gpus_.device(g), recv[0], gpus_.device(0), bytes,
                                         stream));
        }
        order_.join();
    }

  private:
    const GpuSet& gpus_;
    std::size_t n_;
    ForkJoin order_;
    mutable ct::DeviceBuffer<float> staging_;
};

}  // namespace

std::unique_ptr<AllReducer> make_naive_gather_broadcast(const GpuSet& gpus, std::size_t n) {
    return std::make_unique<NaiveGatherBroadcast>(gpus, n);
}

}  // namespace multi_gpu
