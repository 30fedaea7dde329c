// Stage 10 (beyond the book) - 16-byte loads, several in flight, warp reductions.
//
// What changed from stage 9: three things, all aimed at the memory system.
//  1. Each load instruction moves 16 bytes (an int4) instead of 4: a warp asks for 512
//     contiguous bytes per instruction, and the load/store unit issues a quarter as many
//     instructions for the same bytes. Because int4 loads need 16-byte-aligned addresses, the
//     input is cut into a scalar head (up to 3 ints before the first 16-byte boundary), whole
//     int4 vectors, and a scalar tail (up to 3 ints) - any N, any int-aligned pointer works.
//  2. Each thread issues several independent int4 loads (2, 4 or 8: 32-128 bytes) before it adds
//     any of them, so more bytes are in flight per SM to cover DRAM latency (Little's law:
//     bandwidth x latency = bytes in flight).
//  3. The block's partial sums are combined with warp reductions (cg::reduce: one redux.sync
//     instruction per warp on sm_80+) and one barrier, instead of a shared-memory tree.
//
//   block tiles, B threads, 4 loads:  thread t of block b loads in4[tile + t], in4[tile + t + B],
//   in4[tile + t + 2B], in4[tile + t + 3B] (tile = 4*B*b, then + 4*B*gridDim.x, ...), adds
//   the 16 ints, repeats.
//
// How many loads, the load flavour (plain, or with an L2 256-byte prefetch hint), the layout
// (above, or one contiguous segment per block) and how many blocks per SM to launch are chosen
// for the GPU the program runs on, among the compiled candidates of vectorized_candidates.hpp
// (derived from the device's figures, or measured by a short tuning pass; the run's header says
// which). The second pass is the same kernel with one block over the partial sums, so this stage
// is two launches.
// Prediction: stage 9's first pass (4-byte loads) reaches about 70% of peak; 16-byte loads
// should reach the ~90% ceiling that CUB reaches: about CUB's time, but not better (CUB also
// needs two launches).
// What to look for: the first row at CUB's speed.
#include "vectorized.cuh"

namespace reduction::detail {
namespace {

template <int kBlock, int kVariant>
__global__ void __launch_bounds__(kBlock, (kMinBlocksFor<kBlock, kVariant>))
    reduce_vectorized_loads(const int* __restrict__ in, int* __restrict__ out, std::size_t n) {
    // EXERCISE BEGIN: this thread's share of in[0, n) with int4 loads, several in flight, then the
    // EXERCISE HINT: block's sum. split_vectors (vector_split.hpp) cuts in[] into a scalar head,
    // EXERCISE HINT: int4 vectors and a scalar tail; the solution's helpers are in vectorized.cuh
    // EXERCISE HINT: (thread_sum_vectorized, block_sum): write your own before you look
    const Sum sum = block_sum<kBlock>(thread_sum_vectorized<kBlock, kVariant>(in, n));
    // EXERCISE STUB: const Sum sum = 0;
    // EXERCISE END
    if (threadIdx.x == 0) {
        out[blockIdx.x] = as_int(sum);
    }
}

}  // namespace

void launch_vectorized_loads(const KernelArgs& a) {
    const bool known = dispatch_variant(a.variant, [&](auto variant) {
        launch_for_block_size(VectorizedBlocks{}, "vectorized_loads", a, [](auto block) {
            return reduce_vectorized_loads<block(), decltype(variant)::value>;
        });
    });
    if (!known) {
        unsupported_variant("vectorized_loads", a.variant);
    }
}

int vectorized_loads_blocks_per_sm(int block, int variant) {
    int resident = 0;
    const bool known = dispatch_variant(variant, [&](auto v) {
        resident = vectorized_occupancy(
            block, [](auto b) { return reduce_vectorized_loads<b(), decltype(v)::value>; },
            "vectorized_loads");
    });
    if (!known) {
        unsupported_variant("vectorized_loads", variant);
    }
    return resident;
}

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage10_vectorized_loads_row() {
    StageInfo row("10", "vectorized_loads",
                  "int4 loads, 2-8 in flight per thread (chosen for this GPU), warp reductions");
    row.launch = detail::launch_vectorized_loads;
    row.elements_per_thread = detail::kVectorizedPlanElements;
    row.uses_tuner = true;
    row.variant_blocks_per_sm = detail::vectorized_loads_blocks_per_sm;
    row.combine = Combine::kOneBlockPass;
    row.shared = Shared::kWarpSums;
    return row;
}

}  // namespace reduction::rows
