// The compiled candidates of stages 10-12: how many 16-byte loads each thread keeps in flight,
// how each load is issued, and which vectors a block reads. Every stage file instantiates each
// candidate for every block size (vectorized.cuh dispatches a run-time index to it); which one
// runs is chosen for the GPU at run time (vectorized_choice.hpp), derived or measured by the
// tuning pass of measuring/adaptive_vectorized.hpp. Host and device code both read this table.
#pragma once

#include <string>

namespace reduction::detail {

/// How a 16-byte load is issued.
enum class LoadPolicy : int {
    kPlain = 0,      ///< `*p` through a const __restrict__ pointer (the read-only data path)
    kPrefetchL2 = 2  ///< ld.global.nc.L1::no_allocate.L2::256B: ask L2 to fetch 256-byte blocks
                     ///< (sm_80 and newer; sm_75 falls back to __ldg)
};

/// How the int4 vectors are dealt out to the blocks (B threads, L loads in flight, G blocks):
///  - kBlockTiles: block b owns tiles of L*B consecutive vectors (b, b + G, b + 2G, ...);
///    thread t loads t, t + B, ..., t + (L-1)B of its block's tile. The grid sweeps through
///    memory together, one window of G tiles at a time.
///  - kBlockSegments: block b owns one contiguous run of about 1/G of the vectors and walks it in
///    tiles of L*B (CUB's "even share"): G separate streams through memory, each in order.
///  - kOneShot: block b reads tile b and nothing else; the grid has one block per tile
///    (config::one_shot_blocks()), so there is no loop at all. Stage 12 only.
enum class Layout : int { kBlockTiles = 1, kBlockSegments = 3, kOneShot = 4 };

/// One compiled candidate of stages 10-12.
struct VectorizedVariant {
    int loads;          ///< int4 loads issued per thread before any is added
    LoadPolicy policy;  ///< how each is issued
    Layout layout;      ///< which vectors a block reads
};

/// The candidates (each is instantiated for every block size of stages 10-12; the one-shot ones
/// for stage 12 only). Index 1 is the H100 sweep's old fixed choice.
inline constexpr VectorizedVariant kVectorizedVariants[] = {
    {2, LoadPolicy::kPrefetchL2, Layout::kBlockTiles},
    {4, LoadPolicy::kPrefetchL2, Layout::kBlockTiles},
    {8, LoadPolicy::kPrefetchL2, Layout::kBlockTiles},
    {4, LoadPolicy::kPlain, Layout::kBlockTiles},
    {4, LoadPolicy::kPlain, Layout::kBlockSegments},
    {8, LoadPolicy::kPrefetchL2, Layout::kBlockSegments},
    {4, LoadPolicy::kPlain, Layout::kOneShot},
    {8, LoadPolicy::kPlain, Layout::kOneShot},
    {4, LoadPolicy::kPrefetchL2, Layout::kOneShot},
    {8, LoadPolicy::kPrefetchL2, Layout::kOneShot},
};
inline constexpr int kVectorizedVariantCount =
    static_cast<int>(sizeof(kVectorizedVariants) / sizeof(kVectorizedVariants[0]));

/// Whether candidate `variant` is a one-shot grid (stage 12 only); false for an unknown index.
constexpr bool is_one_shot(int variant) {
    return variant >= 0 && variant < kVectorizedVariantCount &&
           kVectorizedVariants[variant].layout == Layout::kOneShot;
}

/// "4 x int4 L2::256B tiles", "8 x int4 plain one-shot"
std::string describe_variant(int variant);

/// Throws std::invalid_argument for a candidate index that `stage` has no instantiation of (one
/// outside kVectorizedVariants, or a one-shot candidate for stages 10 and 11).
[[noreturn]] void unsupported_variant(const char* stage, int variant);

}  // namespace reduction::detail
