/// @file chunking.hpp
/// @brief The arithmetic of a streamed input: how n bytes are cut into chunks that each fit the
/// device buffers, and how one chunk is cut into pieces that several host threads fill at once.
///
/// Kept apart (host only, no CUDA) because an off-by-one here loses or double-counts bytes
/// silently: the last chunk is usually partial, a chunk may end anywhere inside a 16-byte vector
/// (the counting kernel then reads its last bytes one by one), and the pieces of a chunk start
/// at multiples of a page so that each host thread copies whole pages out of the page cache.
/// chunking_test checks every formula against a byte-by-byte walk.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace histogram {

/// n bytes cut into chunks of `chunk_bytes` (the last one shorter unless chunk_bytes divides n).
struct ChunkPlan {
    std::uint64_t total_bytes = 0;  ///< n
    std::uint64_t chunk_bytes = 1;  ///< the size of every chunk but the last

    /// Throws std::invalid_argument for a zero chunk size.
    ChunkPlan(std::uint64_t total, std::uint64_t chunk) : total_bytes(total), chunk_bytes(chunk) {
        if (chunk == 0) {
            throw std::invalid_argument("a chunk must hold at least one byte");
        }
    }

    /// Number of chunks: ceil(n / chunk); 0 for an empty input (nothing to copy or count).
    std::uint64_t count() const {
        return total_bytes / chunk_bytes + (total_bytes % chunk_bytes != 0 ? 1 : 0);
    }
    /// Where chunk i starts in the input.
    std::uint64_t offset(std::uint64_t i) const { return i * chunk_bytes; }
    /// Bytes in chunk i: chunk_bytes, except for the last chunk, which holds what is left.
    std::uint64_t length(std::uint64_t i) const {
        const std::uint64_t begin = offset(i);
        return begin >= total_bytes ? 0 : std::min(chunk_bytes, total_bytes - begin);
    }
    /// The largest chunk actually used (what the buffers must hold): min(chunk, n).
    std::uint64_t buffer_bytes() const { return std::min(chunk_bytes, total_bytes); }
};

/// One piece of a chunk, filled by one host thread: [begin, end) relative to the chunk.
struct Piece {
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// Piece `index` of `parts` pieces covering [0, length): every boundary but the last is a
/// multiple of `alignment` (a page, so that a thread's pread or memcpy covers whole pages), the
/// pieces are as even as that allows, and a piece may be empty when there is not enough to go
/// round. `alignment` must be at least 1.
inline Piece aligned_piece(std::size_t length, std::size_t parts, std::size_t alignment,
                           std::size_t index) {
    const std::size_t units = (length + alignment - 1) / alignment;  // alignment-sized units
    const std::size_t per_part = units / parts;
    const std::size_t extra = units % parts;  // the first `extra` parts get one unit more
    const auto boundary = [&](std::size_t part) {
        const std::size_t unit = part * per_part + std::min(part, extra);
        return std::min(length, unit * alignment);
    };
    return Piece{boundary(index), boundary(index + 1)};
}

/// How many pieces to cut `length` bytes into: one per `min_piece` bytes (so that a small chunk
/// is not shared by threads that would cost more to start than to copy), at most `threads`,
/// at least one.
inline std::size_t pieces_for(std::size_t length, std::size_t threads, std::size_t min_piece) {
    return std::max<std::size_t>(1,
                                 std::min(threads, length / std::max<std::size_t>(1, min_piece)));
}

}  // namespace histogram
