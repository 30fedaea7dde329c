// Stage 2: the ring. The vector is cut into G chunks; in G - 1 reduce-scatter steps each GPU
// receives one chunk from its predecessor and adds its own contribution, until every GPU holds
// one chunk summed over all GPUs; in G - 1 all-gather steps the finished chunks travel once more
// around the ring. Each chunk move here is a cudaMemcpyAsync (copy engine) into a staging
// buffer, followed by an add kernel.
//
// Why it should be faster than stage 1: in every step every GPU sends a chunk and receives one at
// once, and each GPU sends and receives only 2(G - 1)/G x n x sizeof(float) bytes in all (n
// counts floats), whatever G is: the all-reduce costs about what one GPU's link needs to move its
// share, which is what bus bandwidth measures.
// What to look for: on two GPUs about twice stage 1's bus bandwidth on large messages; on small
// ones, slower, since it makes 2(G - 1) dependent steps, each a copy and a launch.
#include <memory>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "ring_allreduce.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {
namespace {

class RingMemcpy final : public RingAllReducer {
  public:
    RingMemcpy(const GpuSet& gpus, std::size_t n) : RingAllReducer(gpus, n) {
        const std::size_t largest_chunk =
            ring_chunk(n, gpus.size(), 0).size();  // chunk 0 is the largest
        for (int g = 0; g < gpus.size(); ++g) {
            const DeviceGuard guard(gpus.device(g));
            staging_.emplace_back(largest_chunk);
        }
    }

  protected:
    void reduce_chunk(int gpu, int, const float* mine, const float* theirs, float* dst,
                      std::size_t count, cudaStream_t stream) const override {
        // Copy, then add: the add cannot start before the whole chunk has arrived, and the link
        // idles while the add runs (stage 3 removes both waits).
        float* staging = staging_[gpu].data();
        CT_CHECK(
            cudaMemcpyAsync(staging, theirs, count * sizeof(float), cudaMemcpyDefault, stream));
        detail::launch_add_floats(mine, staging, dst, count, stream);
    }

  private:
    mutable std::vector<ct::DeviceBuffer<float>> staging_;
};

}  // namespace

std::unique_ptr<AllReducer> make_ring_memcpy(const GpuSet& gpus, std::size_t n) {
    return std::make_unique<RingMemcpy>(gpus, n);
}

}  // namespace multi_gpu
