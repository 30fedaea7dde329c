/// @file ring_allreduce.hpp
/// @brief The ring all-reduce's schedule and synchronization, shared by stages 2 and 3, which
/// differ only in how one step moves (and adds) a chunk.
#pragma once

#include <vector>

#include "multi_gpu.hpp"

namespace multi_gpu {

/// Runs the 2(G - 1) steps of ring_step() on every GPU at once. Before step s, GPU g waits (on
/// its stream, never on the host) for two events of step s - 1: its predecessor's, because it
/// reads what the predecessor wrote then, and its successor's, because the successor reads g's
/// chunks, and g must not overwrite one that is still being read. With those two waits each GPU
/// runs as soon as its neighbours allow: no global barrier between steps.
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
