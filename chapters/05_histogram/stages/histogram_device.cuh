// Device-side pieces every kernel file shares: the two binnings as small value types that a
// kernel template takes by value (so the byte binning compiles to no work at all), the dispatch
// from the host's Binning to one of them, and the launch-configuration arithmetic.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "bin_math.hpp"
#include "cudatutorial/check.hpp"
#include "histogram.hpp"

namespace histogram::detail {

/// --bins bytes: every byte counts, its value is its bin.
struct ByteBins {
    __device__ bool counts(unsigned) const { return true; }
    __device__ unsigned bin(unsigned c) const { return c; }
};

/// --bins letters: 'a'..'z' count, in groups of `width` (see bin_math.hpp for the arithmetic).
struct LetterBins {
    unsigned reciprocal;  ///< letter_reciprocal(width)
    __device__ bool counts(unsigned c) const { return is_letter(c); }
    __device__ unsigned bin(unsigned c) const { return letter_bin(c, reciprocal); }
};

/// Calls `body(ByteBins{})` or `body(LetterBins{...})`: one kernel instantiation per binning.
template <typename Body>
void with_bins(const Binning& binning, Body&& body) {
    if (binning.kind == Binning::Kind::kBytes) {
        body(ByteBins{});
    } else {
        body(LetterBins{letter_reciprocal(static_cast<unsigned>(binning.width))});
    }
}

/// Resident blocks per SM times SMs for `kernel` at this block size and shared memory, on the
/// current device. Cached: the occupancy calculator costs host time, and host time spent before
/// the launch shows up in the timed interval (the start event is already recorded).
template <typename Kernel>
std::size_t blocks_filling_the_gpu(Kernel kernel, int block, std::size_t shared_bytes) {
    using Key = std::tuple<const void*, int, std::size_t, int>;
    static std::map<Key, std::size_t> cache;
    static std::mutex mutex;
    int device = 0;
    CT_CHECK(cudaGetDevice(&device));
    const Key key{reinterpret_cast<const void*>(kernel), block, shared_bytes, device};
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(key);
    if (found != cache.end()) {
        return found->second;
    }
    int per_sm = 0;
    int sms = 0;
    CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, shared_bytes));
    CT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const std::size_t fill = static_cast<std::size_t>(std::max(per_sm, 1)) * sms;
    cache.emplace(key, fill);
    return fill;
}

/// The grid of a grid-stride kernel: the requested one, or else as many blocks as fit on the GPU
/// at once (SMs x resident blocks per SM), but no more blocks than it takes to give every
/// thread at least one of `work_items`. Never 0.
template <typename Kernel>
int resolve_grid(Kernel kernel, int requested, int block, std::size_t shared_bytes,
                 std::size_t work_items) {
    if (requested > 0) {
        return requested;
    }
    const std::size_t fill = blocks_filling_the_gpu(kernel, block, shared_bytes);
    const std::size_t needed = (work_items + block - 1) / block;
    return static_cast<int>(std::max<std::size_t>(1, std::min(fill, needed)));
}

/// Makes a CUB DeviceHistogram call, `call(temp, temp_bytes)`, with its temporary storage: the
/// size asked for once per problem (n samples, a key of the bins), the storage grown to it, and
/// never a null pointer for real work: null means "only tell me the size", and the histogram
/// would silently stay uncleared. Allocates at least one byte.
template <typename CubCall>
void call_with_cub_temp(CubTempStorage& temp, std::size_t n, int bins_key, const CubCall& call) {
    if (temp.query_n != n || temp.query_bins != bins_key || temp.buffer.empty()) {
        std::size_t needed = 0;
        CT_CHECK(call(nullptr, needed));
        temp.query_n = n;
        temp.query_bins = bins_key;
        temp.bytes = std::max<std::size_t>(needed, 1);
        if (temp.buffer.size() < temp.bytes) {
            temp.buffer = cudatutorial::DeviceBuffer<unsigned char>(temp.bytes);
        }
    }
    std::size_t temp_bytes = temp.bytes;
    CT_CHECK(call(temp.buffer.data(), temp_bytes));
    CT_CHECK_LAUNCH();
}

/// Zeroes the output histogram: every launch starts from zero, so a second run cannot add to
/// the first (the seed's host code never cleared it).
inline void clear_histogram(const StageArgs& args, cudaStream_t stream) {
    CT_CHECK(cudaMemsetAsync(args.histogram, 0,
                             static_cast<std::size_t>(args.binning.bins()) * sizeof(unsigned int),
                             stream));
}

/// How 16-byte (uint4) loads cover n bytes starting at `input`: the `head` bytes before the
/// first 16-byte-aligned address and the bytes from `tail_begin` on are read one by one (each
/// fewer than 16); `vectors` aligned uint4 loads cover the rest. cudaMalloc returns 256-byte
/// aligned memory, so head is 0 for a whole buffer, but the kernels accept any pointer.
struct VectorSplit {
    std::size_t head = 0;
    std::size_t vectors = 0;
    std::size_t tail_begin = 0;
};

__host__ __device__ inline VectorSplit split_for_vectors(const unsigned char* input,
                                                         std::size_t n) {
    VectorSplit split;
    const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(input) % 16;
    split.head = misalignment ? 16 - misalignment : 0;
    if (split.head > n) {
        split.head = n;
    }
    split.vectors = (n - split.head) / 16;
    split.tail_begin = split.head + split.vectors * 16;
    return split;
}

/// Calls count(bin) for each counted byte of a 32-bit word (4 bytes, little-endian order).
template <typename Bins, typename Count>
__device__ __forceinline__ void count_word(unsigned word, Bins bins, Count&& count) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const unsigned c = (word >> (8 * k)) & 0xFFu;
        if (bins.counts(c)) {
            count(bins.bin(c));
        }
    }
}

/// count_word over the four words of a 16-byte vector.
template <typename Bins, typename Count>
__device__ __forceinline__ void count_vector(const uint4& v, Bins bins, Count&& count) {
    count_word(v.x, bins, count);
    count_word(v.y, bins, count);
    count_word(v.z, bins, count);
    count_word(v.w, bins, count);
}

/// The bytes the 16-byte loads do not cover (head and tail, at most 15 each), spread over the
/// grid's threads: thread t counts head byte t and tail byte t, t + threads, ... A grid of 16 or
/// more threads takes one step; the loops keep a smaller grid (a block of 8, say) correct too.
template <typename Bins, typename Count>
__device__ __forceinline__ void count_leftovers(const unsigned char* input, std::size_t n,
                                                const VectorSplit& split, std::size_t thread,
                                                std::size_t threads, Bins bins, Count&& count) {
    for (std::size_t i = thread; i < split.head; i += threads) {
        const unsigned c = input[i];
        if (bins.counts(c)) {
            count(bins.bin(c));
        }
    }
    for (std::size_t i = split.tail_begin + thread; i < n; i += threads) {
        const unsigned c = input[i];
        if (bins.counts(c)) {
            count(bins.bin(c));
        }
    }
}

/// Counts every byte of input[0, n) with `count(bin)` (stage 7's coarsening, reused by stage 8):
/// each thread keeps kVectorsPerThread independent 16-byte loads in flight. A block's tile is
/// kVectorsPerThread x blockDim consecutive vectors; load j of thread t is vector
/// j * blockDim + t of the tile, so each load of a warp still reads 512 adjacent bytes. The
/// unaligned head and the tail are counted by count_leftovers.
template <int kVectorsPerThread, typename Bins, typename Count>
__device__ __forceinline__ void count_input_coarsened(const unsigned char* __restrict__ input,
                                                      std::size_t n, const Bins& bins,
                                                      const Count& count) {
    const VectorSplit split = split_for_vectors(input, n);
    const uint4* __restrict__ vectors = reinterpret_cast<const uint4*>(input + split.head);
    const std::size_t tile = static_cast<std::size_t>(blockDim.x) * kVectorsPerThread;
    for (std::size_t base = blockIdx.x * tile; base < split.vectors; base += gridDim.x * tile) {
        if (base + tile <= split.vectors) {
            uint4 loaded[kVectorsPerThread];
#pragma unroll
            for (int j = 0; j < kVectorsPerThread; ++j) {
                loaded[j] = vectors[base + j * blockDim.x + threadIdx.x];
            }
#pragma unroll
            for (int j = 0; j < kVectorsPerThread; ++j) {
                count_vector(loaded[j], bins, count);
            }
        } else {  // the last, partial tile
            for (int j = 0; j < kVectorsPerThread; ++j) {
                const std::size_t v = base + j * blockDim.x + threadIdx.x;
                if (v < split.vectors) {
                    count_vector(vectors[v], bins, count);
                }
            }
        }
    }
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    count_leftovers(input, n, split, thread, threads, bins, count);
}

/// Lane-replicated counters (stages 6-8): kLaneCopies copies of every counter in shared memory,
/// laid out [counter][copy], so that lane l only ever updates copy l (bank l).
inline constexpr int kLaneCopies = 32;

/// The sum of counter `c`'s kLaneCopies copies. Reading copy k in the same order in every lane
/// would put all 32 lanes in bank k at once (a 32-way conflict); starting at copy `lane` rotates
/// them. Not unrolled: unrolled, the 32 addresses live in registers, and 48 registers per thread
/// cut the resident blocks per SM from 8 to 5 (ptxas -v).
__device__ __forceinline__ unsigned int sum_lane_copies(const unsigned int* copies_s, int c,
                                                        unsigned lane) {
    unsigned int total = 0;
#pragma unroll 1
    for (int k = 0; k < kLaneCopies; ++k) {
        total += copies_s[c * kLaneCopies + (k + lane) % kLaneCopies];
    }
    return total;
}

}  // namespace histogram::detail
