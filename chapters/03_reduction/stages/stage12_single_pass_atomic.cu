// Stage 12 (beyond the book) - one kernel, block sums combined with atomicAdd.
//
// What changed from stage 11: no partials array, no ticket. The output is cleared with
// cudaMemsetAsync (part of the timed work: one more operation on the stream), then thread 0 of
// every block adds its block's sum straight into it:
//
//   memset(out, 0);   block b:  atomicAdd(out, block_sum(...))      (one atomic per block)
//
// Integer addition modulo 2^32 is associative and commutative, so the blocks may add in any
// order and the result is still exact and reproducible (it would not be for float).
// Prediction: about stage 11's time; 1056 atomics to one address are negligible next to 128 MiB
// of loads; the memset may cost as much as the last-block bookkeeping saves.
// What to look for: whether the memset shows at 2^25. The table's launches column reads
// "1 + memset": one kernel, but two operations on the stream.
// Stage 12 alone may also run a one-shot candidate (vectorized_candidates.hpp): a grid of one
// block per tile of the input, each thread issuing its few int4 loads once, no loop. Only the
// atomic combine makes that grid cheap (a block's sum costs one atomic, not a partial to sum
// again); the tuning pass decides whether it is faster on this GPU.
#include <stdexcept>
#include <string>

#include "vectorized.cuh"

namespace reduction::detail {
namespace {

template <int kBlock, int kVariant>
__global__ void __launch_bounds__(kBlock, (kMinBlocksFor<kBlock, kVariant>))
    reduce_single_pass_atomic(const int* __restrict__ in, int* __restrict__ out, std::size_t n) {
    const Sum sum = block_sum<kBlock>(thread_sum_vectorized<kBlock, kVariant>(in, n));
    if (threadIdx.x == 0) {
        atomicAdd(reinterpret_cast<unsigned int*>(out), sum);  // wraps modulo 2^32
    }
}

}  // namespace

void launch_single_pass_atomic(const KernelArgs& a) {
    if (is_one_shot(a.variant)) {  // one block per tile and no loop: a smaller grid loses tiles
        const VectorSplitParts parts = split_vectors(reinterpret_cast<std::uintptr_t>(a.in), a.n);
        const std::size_t tile =
            static_cast<std::size_t>(kVectorizedVariants[a.variant].loads) * std::max(1, a.block);
        if (a.grid < (parts.vectors + tile - 1) / tile) {
            throw std::invalid_argument(
                "single_pass_atomic: one-shot candidate " + describe_variant(a.variant) +
                " needs a block per tile, " + std::to_string((parts.vectors + tile - 1) / tile) +
                " blocks for n " + std::to_string(a.n) + "; got " + std::to_string(a.grid));
        }
    }
    CT_CHECK(cudaMemsetAsync(a.out, 0, sizeof(int), a.stream));
    const bool known = dispatch_variant<true>(a.variant, [&](auto variant) {
        launch_for_block_size(VectorizedBlocks{}, "single_pass_atomic", a, [](auto block) {
            return reduce_single_pass_atomic<block(), decltype(variant)::value>;
        });
    });
    if (!known) {
        unsupported_variant("single_pass_atomic", a.variant);
    }
}

int single_pass_atomic_blocks_per_sm(int block, int variant) {
    int resident = 0;
    const bool known = dispatch_variant<true>(variant, [&](auto v) {
        resident = vectorized_occupancy(
            block, [](auto b) { return reduce_single_pass_atomic<b(), decltype(v)::value>; },
            "single_pass_atomic");
    });
    if (!known) {
        unsupported_variant("single_pass_atomic", variant);
    }
    return resident;
}

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage12_single_pass_atomic_row() {
    StageInfo row("12", "single_pass_atomic",
                  "stage 10 in one kernel: memset + one atomicAdd per block");
    row.launch = detail::launch_single_pass_atomic;
    row.elements_per_thread = detail::kVectorizedPlanElements;
    row.uses_tuner = true;
    row.variant_blocks_per_sm = detail::single_pass_atomic_blocks_per_sm;
    row.combine = Combine::kAtomic;
    row.shared = Shared::kWarpSums;
    return row;
}

}  // namespace reduction::rows
