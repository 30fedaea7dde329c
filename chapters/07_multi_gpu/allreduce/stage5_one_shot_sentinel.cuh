/// @file stage5_one_shot_sentinel.cuh
/// @brief Stage 5's call on one block's elements: the heart of stage5_one_shot_sentinel.cu's
/// kernel, which stage 10 (stage10_persistent.cu) runs too, inside its resident kernel. The
/// kernel around it (and why the data can be its own signal) is in stage5_one_shot_sentinel.cu.
#pragma once

#include "peer_device.cuh"

namespace multi_gpu {

/// How stage 5 stores a value into a peer's staging slot: an ordinary store, posted over the link.
struct PlainStore {
    __device__ void operator()(float4* slot, float4 v) const { *slot = v; }
    __device__ void operator()(float* slot, float v) const { *slot = v; }
};

/// Stage 5. No flags, no fences, no barrier: every rank stores its input into its slot of every
/// peer's staging buffer, and each thread spins on the very elements it will add until none of
/// them reads "empty" any more. A value that is there is the value (each 4-byte lane is checked
/// on its own, so a 16-byte store seen half-landed is simply waited for). The reader then marks
/// the buffer it read at the previous call empty again, for the call after next; three buffers
/// rotate, so the one a peer writes is never the one being read or being emptied (a rank can be
/// one call ahead, never two: call k + 1 needs the peers' data of call k + 1).
/// `first_vector` is this thread's first input vector, loaded early (first_input); `store` puts
/// a value into a peer's staging slot (PlainStore here; stage 10 stores volatile).
template <typename Store>
__device__ void one_shot_sentinel_call(const PeerArgs& a, std::uint32_t seq, float4 first_vector,
                                       const Store& store) {
    const std::size_t vectors = a.n / 4;
    const std::size_t tail = a.n % 4;
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const float* mine = a.send[a.rank];
    const int buffer = static_cast<int>(seq % 3);
    const int emptied = static_cast<int>((seq + 2) % 3);  // the one read at call seq - 1
    for (std::size_t i = first; i < vectors; i += stride) {
        const float4 v =
            sendable(i == first ? first_vector : reinterpret_cast<const float4*>(mine)[i]);
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                store(reinterpret_cast<float4*>(staging_slot(a, p, buffer, a.rank)) + i, v);
            }
        }
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                store(staging_slot(a, p, buffer, a.rank) + i, sendable(mine[i]));
            }
        }
    }
    const float empty = __uint_as_float(kEmptySlotBits);
    const float4 empty4 = make_float4(empty, empty, empty, empty);
    float* out = a.recv[a.rank];
    for (std::size_t i = first; i < vectors; i += stride) {
        float4 sum = make_float4(0, 0, 0, 0);
        for (int p = 0; p < a.ranks; ++p) {
            const float4 v =
                p == a.rank
                    ? sendable(reinterpret_cast<const float4*>(mine)[i])
                    : wait_for(reinterpret_cast<const float4*>(staging_slot(a, a.rank, buffer, p)) +
                               i);
            sum = p == 0 ? v : sum + v;
        }
        reinterpret_cast<float4*>(out)[i] = sum;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                reinterpret_cast<float4*>(staging_slot(a, a.rank, emptied, p))[i] = empty4;
            }
        }
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        float sum = 0;
        for (int p = 0; p < a.ranks; ++p) {
            const float v =
                p == a.rank ? sendable(mine[i]) : wait_for(staging_slot(a, a.rank, buffer, p) + i);
            sum = p == 0 ? v : sum + v;
        }
        out[i] = sum;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                staging_slot(a, a.rank, emptied, p)[i] = empty;
            }
        }
    }
}

}  // namespace multi_gpu
