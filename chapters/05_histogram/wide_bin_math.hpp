/// @file wide_bin_math.hpp
/// @brief The wide histogram's arithmetic, shared word for word by the CPU and the GPU: which bin
/// a 16-bit value falls in, and which block of a thread-block cluster owns a bin.
///
/// Bins are equal slices of the 65,536 possible values: bin = floor(value x bins / 65536), the
/// integer formula CUB's HistogramEven uses for integer samples with levels 0 and 65536, so the
/// CUB row and the kernels agree for every bin count, including ones that do not divide 65,536.
///
/// In a cluster of 2^s blocks the bins are dealt out like cards: bin b lives in block
/// (b mod 2^s), at offset (b >> s) of that block's slice. Two neighbouring bins (often both hot
/// in real data) then sit in different SMs, and the arithmetic is a mask and a shift instead of
/// a division. wide_cpu_test checks that the mapping is a bijection for every bin count and
/// cluster size the chapter uses.
#pragma once

#include "bin_math.hpp"  // HISTOGRAM_HD

namespace histogram {

/// Number of distinct 16-bit values, and the most bins the wide histogram has.
inline constexpr unsigned kWideValues = 65536;
/// The largest cluster the wide section launches (16 is beyond the portable 8: opt-in).
inline constexpr unsigned kMaxWideCluster = 16;

/// The bin of 16-bit `value` among `bins` (1..65536) equal bins. value x bins < 2^32.
HISTOGRAM_HD constexpr unsigned wide_bin(unsigned value, unsigned bins) {
    return (value * bins) >> 16;
}

/// log2 of a cluster size that is a power of two (1, 2, 4, 8, 16).
HISTOGRAM_HD constexpr unsigned cluster_shift(unsigned cluster_size) {
    unsigned shift = 0;
    while ((1u << shift) < cluster_size) {
        ++shift;
    }
    return shift;
}

/// Where bin `bin` lives in a cluster of 2^shift blocks.
struct BinOwner {
    unsigned rank;    ///< the block of the cluster that holds the counter
    unsigned offset;  ///< the counter's index in that block's slice
};

/// The owner of `bin` in a cluster of 2^shift blocks.
HISTOGRAM_HD constexpr BinOwner bin_owner(unsigned bin, unsigned shift) {
    return BinOwner{bin & ((1u << shift) - 1u), bin >> shift};
}

/// The inverse of bin_owner: the bin held at `offset` of block `rank`'s slice (it may be >= the
/// bin count in the last offset of a slice when 2^shift does not divide the bins).
HISTOGRAM_HD constexpr unsigned owned_bin(unsigned rank, unsigned offset, unsigned shift) {
    return (offset << shift) | rank;
}

/// Counters in each block's slice: ceil(bins / 2^shift), the shared memory a block needs / 4.
HISTOGRAM_HD constexpr unsigned slice_size(unsigned bins, unsigned shift) {
    return (bins + (1u << shift) - 1u) >> shift;
}

}  // namespace histogram
