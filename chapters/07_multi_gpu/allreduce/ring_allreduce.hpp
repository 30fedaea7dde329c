/// @file ring_allreduce.hpp
/// @brief The ring all-reduce's schedule and synchronization, shared by stages 2 and 3, which
/// differ only in how one step moves (and adds) a chunk.
#pragma once

#include <vector>

#include "multi_gpu.hpp"

namespace multi_gpu {

/// Chunks start on multiples of 4 floats (16 bytes), so that the add kernel's 16-byte loads stay
/// aligned; every buffer sized for a chunk must use the same granule.
inline constexpr std::size_t kRingChunkGranule = 4;

/// Chunk `index` of the ring over n floats and `gpus` GPUs.
inline Range ring_chunk(std::size_t n, int gpus, int index) {
    return split_range(n, gpus, index, kRingChunkGranule);
}

/// Runs the 2(G - 1) steps of ring_step() on every GPU at once. Before step s, GPU g waits (on
/// its stream, never on the host) for two events of step s - 1: its predecessor's, because it
/// reads what the predecessor wrote then, and its successor's, because the successor reads g's
/// chunks. With both waits, neighbours can only overlap within one step, where the schedule
/// never has a GPU write the chunk its successor reads (a CPU test checks it). The predecessor
/// chain alone already orders every hazard of this schedule; the successor wait keeps that true
/// for any schedule a student writes, at no measurable cost. No global barrier between steps.
class RingAllReducer : public AllReducer {
  public:
    RingAllReducer(const GpuSet& gpus, std::size_t n);
    void run(const std::vector<const float*>& send, const std::vector<float*>& recv) const override;

  protected:
    /// Reduce-scatter step on GPU `gpu` (current, its stream given): dst = mine + the sender's
    /// chunk at `theirs` (on GPU `sender`), `count` floats.
    virtual void reduce_chunk(int gpu, int sender, const float* mine, const float* theirs,
                              float* dst, std::size_t count, cudaStream_t stream) const = 0;
    /// All-gather step: dst (on `gpu`) = the sender's complete chunk at `theirs`.
    virtual void copy_chunk(int gpu, int sender, const float* theirs, float* dst, std::size_t count,
                            cudaStream_t stream) const;

    const GpuSet& gpus() const { return gpus_; }
    std::size_t n() const { return n_; }

  private:
    const GpuSet& gpus_;
    std::size_t n_ = 0;
    ForkJoin order_;
    GpuEvents step_done_;  // one per GPU, re-recorded every step
};

}  // namespace multi_gpu
