// The ring all-reduce's driver: which chunk moves where at each step (ring_step), and the
// event waits that order neighbouring GPUs. The stages plug in how a chunk moves.
#include "ring_allreduce.hpp"

#include "cudatutorial/check.hpp"

namespace multi_gpu {

RingAllReducer::RingAllReducer(const GpuSet& gpus, std::size_t n)
    : gpus_(gpus), n_(n), order_(gpus), step_done_(gpus) {}

void RingAllReducer::copy_chunk(int, int, const float* theirs, float* dst, std::size_t count,
                                cudaStream_t stream) const {
    // With unified addressing the runtime knows which GPU each pointer belongs to; with peer
    // access enabled the copy engine moves the bytes over the link directly.
    CT_CHECK(cudaMemcpyAsync(dst, theirs, count * sizeof(float), cudaMemcpyDefault, stream));
}

void RingAllReducer::run(const std::vector<const float*>& send,
                         const std::vector<float*>& recv) const {
    const int G = gpus_.size();
    order_.fork();
    if (G == 1) {  // nothing to exchange: the "sum" over one GPU is its own input
        const DeviceGuard guard(gpus_.device(0));
        CT_CHECK(cudaMemcpyAsync(recv[0], send[0], n_ * sizeof(float), cudaMemcpyDeviceToDevice,
                                 gpus_.stream(0)));
        return;
    }
    for (int step = 0; step < ring_steps(G); ++step) {
        // All waits of this step are issued before any event of this step is recorded: an event
        // wait applies to the event's latest record at the time of the call.
        if (step > 0) {
            for (int g = 0; g < G; ++g) {
                const cudaStream_t stream = gpus_.stream(g);
                CT_CHECK(cudaStreamWaitEvent(stream, step_done_[(g + G - 1) % G], 0));
                CT_CHECK(cudaStreamWaitEvent(stream, step_done_[(g + 1) % G], 0));
            }
        }
        for (int g = 0; g < G; ++g) {
            const DeviceGuard guard(gpus_.device(g));
            const cudaStream_t stream = gpus_.stream(g);
            const RingStep s = ring_step(G, g, step);
            const Range chunk = ring_chunk(n_, G, s.chunk);
            if (!chunk.empty()) {
                if (s.reduce) {
                    // At step 0 the sender has not added anything to this chunk yet: its
                    // contribution is its input.
                    const float* theirs =
                        (step == 0 ? send[s.sender] : recv[s.sender]) + chunk.begin;
                    reduce_chunk(g, s.sender, send[g] + chunk.begin, theirs, recv[g] + chunk.begin,
                                 chunk.size(), stream);
                } else {
                    copy_chunk(g, s.sender, recv[s.sender] + chunk.begin, recv[g] + chunk.begin,
                               chunk.size(), stream);
                }
            }
            CT_CHECK(cudaEventRecord(step_done_[g], stream));
        }
    }
    order_.join();
}

}  // namespace multi_gpu
