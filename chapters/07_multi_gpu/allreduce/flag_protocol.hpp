/// @file flag_protocol.hpp
/// @brief The arithmetic of the flags through which the peer-memory all-reduce stages (4 and 5)
/// synchronise GPUs without the host (stages 4 and 6): sequence numbers, the staging half a call uses, and where
/// each flag lives. Host and device code share it; CPU tests check it.
///
/// Every rank owns an array of 32-bit flag words in its own memory; rank `from` tells rank `to`
/// "block b has reached point k of call s" by storing s into to's word (k, b, from). Nothing is
/// ever reset: s counts the calls (per block, kept in device memory, so that a CUDA graph replays
/// correctly), and a waiter compares with flag_reached(), which stays right when s wraps around
/// after 2^32 calls.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define CT_HOST_DEVICE __host__ __device__
#else
#define CT_HOST_DEVICE
#endif

namespace multi_gpu {

/// At most this many GPUs take part in a peer-memory all-reduce (the kernels keep one pointer
/// per rank in their parameters).
inline constexpr int kMaxPeerRanks = 8;
/// At most this many blocks per GPU: each block synchronises with the same block of every other
/// GPU, through flags of its own.
inline constexpr int kMaxPeerBlocks = 1024;
/// The synchronisation points of one call: 0 = inputs ready (one-shot: my slice has arrived in
/// your staging; two-shot: my kernel has started), 1 = done with your memory (two-shot's end).
inline constexpr int kFlagPoints = 2;

/// Whether a flag that reads `value` says that call `seq` got there. Call numbers grow by one per
/// call and wrap modulo 2^32; a peer is never more than one call ahead or 2^31 calls behind, so
/// the signed difference decides (a plain `value >= seq` would hang forever at the wrap).
CT_HOST_DEVICE constexpr bool flag_reached(std::uint32_t value, std::uint32_t seq) {
    return static_cast<std::int32_t>(value - seq) >= 0;
}

/// Which of the two staging halves call `seq` writes. Alternating halves is what lets the
/// one-shot stage skip a second barrier: a rank can be at most one call ahead of a peer, so it
/// never overwrites the half that the peer may still be reading.
CT_HOST_DEVICE constexpr int staging_half(std::uint32_t seq) {
    return static_cast<int>(seq & 1u);
}

/// Index of the flag word through which rank `from` tells the owner that block `block` reached
/// `point`.
CT_HOST_DEVICE constexpr std::size_t flag_index(int point, int block, int from) {
    return (static_cast<std::size_t>(point) * kMaxPeerBlocks + static_cast<std::size_t>(block)) *
               kMaxPeerRanks +
           static_cast<std::size_t>(from);
}

/// Flag words per rank.
inline constexpr std::size_t kFlagWords =
    static_cast<std::size_t>(kFlagPoints) * kMaxPeerBlocks * kMaxPeerRanks;

}  // namespace multi_gpu
