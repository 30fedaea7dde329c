/// @file one_shot_exercise.hpp
/// @brief Exercise multi-gpu-4: what the harness (harness.cpp) and the student's kernel file
/// (one_shot_barrier.cu) share. The kernel is chapter 7's stage 4, the one-shot all-reduce, with
/// its flag barrier left for the student to write (README.md).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "flag_protocol.hpp"  // chapter 7: flag_reached, staging_half, flag_index

namespace one_shot_exercise {

/// One rank's view of every rank's buffers (peer access makes the other GPUs' pointers usable).
struct OneShotArgs {
    int rank = 0;                                         ///< this GPU's rank
    int ranks = 2;                                        ///< GPUs taking part
    const float* send = nullptr;                          ///< this rank's input, n floats
    float* recv = nullptr;                                ///< this rank's output, n floats
    std::uint32_t* flags[multi_gpu::kMaxPeerRanks] = {};  ///< every rank's kFlagWords flag words
    /// Every rank's staging area: 2 halves x `ranks` slots x `capacity` floats (slot `from` of
    /// half h is where rank `from` leaves its input for a call with staging_half(seq) == h).
    float* staging[multi_gpu::kMaxPeerRanks] = {};
    std::uint32_t* counters = nullptr;  ///< this rank's call counter per block (the last seq)
    std::size_t n = 0;                  ///< floats to all-reduce
    std::size_t capacity = 0;           ///< floats per staging slot, a multiple of 4
    /// A test knob of the harness (--hold-back-us): warps other than warp 0 wait this many
    /// nanoseconds before their stores, so that a barrier that signals before the whole block has
    /// stored is read while those stores have not even been issued. 0 in chapter 7's kernel.
    std::uint32_t hold_back_ns = 0;
};

/// Enqueues one call of the one-shot all-reduce for rank `a.rank` on `stream` (the rank's GPU
/// current): recv[i] = send of rank 0 + send of rank 1 + ..., in rank order, i < n.
/// Every rank must launch the same `blocks` and `threads`, at most one_shot_resident_blocks().
void launch_one_shot(const OneShotArgs& a, unsigned blocks, unsigned threads,
                     cudaStream_t stream);

/// How many blocks of `threads` threads of the one-shot kernel fit on the current GPU at once: a
/// block that spins on a flag must not keep the partner it waits for from being scheduled.
unsigned one_shot_resident_blocks(unsigned threads);

/// Enqueues a kernel that keeps the GPU busy for about `microseconds` on `stream`: the harness
/// makes one GPU late, so that the other reaches the barrier first (late_peer.cu).
void launch_late_peer_delay(unsigned microseconds, cudaStream_t stream);

}  // namespace one_shot_exercise
