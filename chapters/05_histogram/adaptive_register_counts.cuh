// Device code of stage 8's adaptive candidates (stages/raw_count_candidates.hpp):
//  - stream_vectors_pipelined: a grid-stride walk over 16-byte vectors in which the next step's
//    loads are issued before this step's bytes are counted, so a thread has kLoads loads in
//    flight while it counts (stage 7's loop has none in flight while it counts);
//  - register_nibble_counts_kernel: counts of at most 8 bins in one register per thread, no
//    atomic per byte.
// Why registers: an SM that must count 18.4 bytes per clock (an H200 at 4.8 TB/s) cannot do it
// with one shared-memory atomic per byte (about 12.5 per SM per clock). A byte's increment
// 1 << (4 x bin) is read from a 256-entry table in shared memory (a plain load: letters hit 26
// different banks, equal letters broadcast) and added to a register holding eight 4-bit
// counters. Eight bytes (at most 8 per counter) are added, then the nibbles are spread into two
// registers of four 8-bit counters (even and odd bins); every 15 vectors (at most 240 per
// counter) those go to lane-replicated counters in shared memory with one atomic per bin.
// About 4 instructions per byte plus one shared load; what to look for: letters at the DRAM
// ceiling, like the reduction, and one-letter input as fast as uniform.
#pragma once

#include "stages/histogram_device.cuh"

namespace histogram::detail {

/// Calls count_vector(v) for every 16-byte vector of vectors[0, n_vectors) this thread owns: a
/// block's tile is kLoads x blockDim consecutive vectors, load j of thread t is vector
/// j * blockDim + t of the tile (each load of a warp reads 512 adjacent bytes), tiles are dealt
/// out grid-stride. The loads of the next tile are issued before the current one is counted.
template <int kLoads, typename CountVector>
__device__ __forceinline__ void stream_vectors_pipelined(const uint4* __restrict__ vectors,
                                                         std::size_t n_vectors,
                                                         const CountVector& count_vector) {
    const std::size_t tile = static_cast<std::size_t>(blockDim.x) * kLoads;
    const std::size_t step = static_cast<std::size_t>(gridDim.x) * tile;
    std::size_t base = blockIdx.x * tile;
    bool full = base + tile <= n_vectors;
    uint4 now[kLoads];
    if (full) {
#pragma unroll
        for (int j = 0; j < kLoads; ++j) {
            now[j] = vectors[base + j * blockDim.x + threadIdx.x];
        }
    }
    while (full) {
        const std::size_t next = base + step;
        const bool next_full = next + tile <= n_vectors;
        uint4 ahead[kLoads];
        if (next_full) {
#pragma unroll
            for (int j = 0; j < kLoads; ++j) {
                ahead[j] = vectors[next + j * blockDim.x + threadIdx.x];
            }
        }
#pragma unroll
        for (int j = 0; j < kLoads; ++j) {
            count_vector(now[j]);
        }
        if (next_full) {
#pragma unroll
            for (int j = 0; j < kLoads; ++j) {
                now[j] = ahead[j];
            }
        }
        base = next;
        full = next_full;
    }
    // The first tile that is not full is this block's last, partial one (or past the end).
    for (int j = 0; j < kLoads; ++j) {
        const std::size_t v = base + j * blockDim.x + threadIdx.x;
        if (v < n_vectors) {
            count_vector(vectors[v]);
        }
    }
}

/// The nibble increments of a word's four bytes, summed (at most 4 per nibble).
__device__ __forceinline__ unsigned word_increments(unsigned word,
                                                    const unsigned* __restrict__ increment_s) {
    return increment_s[word & 0xFFu] + increment_s[(word >> 8) & 0xFFu] +
           increment_s[(word >> 16) & 0xFFu] + increment_s[word >> 24];
}

/// One thread's counts of up to 8 bins: 8-bit fields in two registers, flushed to shared memory
/// before they can overflow.
struct NibbleCounts {
    unsigned even = 0;  ///< bins 0, 2, 4, 6: bits 0-7, 8-15, 16-23, 24-31
    unsigned odd = 0;   ///< bins 1, 3, 5, 7
    int vectors = 0;    ///< vectors added since the last flush

    /// Adds eight bins' 4-bit counts (each at most 15).
    __device__ __forceinline__ void add_nibbles(unsigned nibbles) {
        even += nibbles & 0x0F0F0F0Fu;
        odd += (nibbles >> 4) & 0x0F0F0F0Fu;
    }

    /// Adds the 8-bit fields to the block's counters, copy `lane` (see flush_lane_copies).
    __device__ __forceinline__ void flush(unsigned* copies_s, unsigned lane) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            atomicAdd(&copies_s[(2 * k) * kLaneCopies + lane], (even >> (8 * k)) & 0xFFu);
            atomicAdd(&copies_s[(2 * k + 1) * kLaneCopies + lane], (odd >> (8 * k)) & 0xFFu);
        }
        even = 0;
        odd = 0;
        vectors = 0;
    }

    /// Counts a 16-byte vector: two halves of 8 bytes (a nibble reaches at most 8), then the
    /// 8-bit fields, which grow by at most 16 per vector: flushed after 15 (at most 240).
    __device__ __forceinline__ void add_vector(const uint4& v,
                                               const unsigned* __restrict__ increment_s,
                                               unsigned* copies_s, unsigned lane) {
        add_nibbles(word_increments(v.x, increment_s) + word_increments(v.y, increment_s));
        add_nibbles(word_increments(v.z, increment_s) + word_increments(v.w, increment_s));
        if (++vectors == 15) {
            flush(copies_s, lane);
        }
    }
};

/// Stage 8 with register counters: `bins` has at most kMaxRegisterBins bins (the host checks).
template <int kLoads, typename Bins>
__global__ void __launch_bounds__(1024)
    register_nibble_counts_kernel(const unsigned char* __restrict__ input, std::size_t n,
                                  unsigned int* histo, int n_bins, Bins bins) {
    constexpr int kBins = 8;
    __shared__ unsigned int increment_s[256];               // byte value -> 1 << (4 x bin), or 0
    __shared__ unsigned int copies_s[kBins * kLaneCopies];  // [bin][lane], as in stage 6
    for (int value = threadIdx.x; value < 256; value += blockDim.x) {
        const unsigned c = static_cast<unsigned>(value);
        increment_s[value] = bins.counts(c) ? 1u << (4 * bins.bin(c)) : 0u;
    }
    for (int i = threadIdx.x; i < kBins * kLaneCopies; i += blockDim.x) {
        copies_s[i] = 0;
    }
    __syncthreads();

    const unsigned lane = threadIdx.x % kLaneCopies;
    const VectorSplit split = split_for_vectors(input, n);
    const uint4* __restrict__ vectors = reinterpret_cast<const uint4*>(input + split.head);
    NibbleCounts counts;
    stream_vectors_pipelined<kLoads>(vectors, split.vectors, [&](const uint4& v) {
        counts.add_vector(v, increment_s, copies_s, lane);
    });
    counts.flush(copies_s, lane);
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    count_leftovers(input, n, split, thread, threads, bins,
                    [&](unsigned bin) { atomicAdd(&copies_s[bin * kLaneCopies + lane], 1u); });
    __syncthreads();

    for (int b = threadIdx.x; b < n_bins; b += blockDim.x) {
        const unsigned int total = sum_lane_copies(copies_s, b, lane);
        if (total != 0) {
            atomicAdd(&histo[b], total);
        }
    }
}

}  // namespace histogram::detail
