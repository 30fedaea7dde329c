// Stage 11 (beyond the book) - one launch: the last block to finish adds the partial sums.
//
// What changed from stage 10: no second launch. Every block writes its partial sum, then takes a
// ticket from a device-wide counter; the block that draws the last ticket (gridDim.x - 1) knows
// that every other partial has been written, reads them all, and writes the final sum. It then
// resets the counter to 0, so the next launch needs no memset.
//
//   block b:  partials[b] = block_sum(...)
//             ticket = counter.fetch_add(1, acq_rel)        (thread 0)
//             if ticket == gridDim.x - 1:  *out = block_sum(partials[0..gridDim.x)); counter = 0
//
// The memory ordering is what makes this correct, and what the textbook pattern
// (threadFenceReduction: __threadfence() then atomicInc) spells with a fence: the release half of
// the fetch_add publishes this block's partial before its ticket is counted; the acquire half
// lets the last block see every partial published before the tickets it counted. Here it is said
// with cuda::atomic_ref at device scope. The __syncthreads() after the ticket carries both
// directions to the other threads of the block.
// Prediction: saves one launch and one kernel boundary (a few microseconds): worth ~5% at 2^25
// (about 50 us), nothing measurable at 2^28 (about 350 us).
// What to look for: beating CUB at 2^25, where CUB needs two launches.
#include <cuda/atomic>

#include "vectorized.cuh"

namespace reduction::detail {
namespace {

template <int kBlock, int kVariant>
__global__ void __launch_bounds__(kBlock, (kMinBlocksFor<kBlock, kVariant>))
    reduce_single_pass_last_block(const int* __restrict__ in, int* __restrict__ out, std::size_t n,
                                  int* __restrict__ partials, unsigned int* counter) {
    __shared__ bool is_last_block;
    Sum sum = block_sum<kBlock>(thread_sum_vectorized<kBlock, kVariant>(in, n));
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = as_int(sum);
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> tickets(*counter);
        const unsigned int ticket = tickets.fetch_add(1, cuda::memory_order_acq_rel);
        is_last_block = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last_block) {
        return;
    }
    Sum total = 0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += kBlock) {
        total += as_sum(partials[b]);
    }
    total = block_sum<kBlock>(total);
    if (threadIdx.x == 0) {
        *out = as_int(total);
        // Ready for the next launch; kernel completion orders this before the next kernel.
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*counter).store(
            0, cuda::memory_order_relaxed);
    }
}

}  // namespace

void launch_single_pass_last_block(const KernelArgs& a) {
    bool launched = false;
    const bool known = dispatch_variant(a.variant, [&](auto variant) {
        launched = dispatch_block_size(VectorizedBlocks{}, a.block, [&](auto block) {
            reduce_single_pass_last_block<block(), decltype(variant)::value>
                <<<a.grid, block(), 0, a.stream>>>(a.in, a.out, a.n, a.partials, a.counter);
        });
    });
    if (!known) {
        unsupported_variant("single_pass_last_block", a.variant);
    }
    if (!launched) {
        unsupported_block_size("single_pass_last_block", a.block);
    }
    CT_CHECK_LAUNCH();
}

int single_pass_last_block_blocks_per_sm(int block, int variant) {
    int resident = 0;
    const bool known = dispatch_variant(variant, [&](auto v) {
        resident = vectorized_occupancy(
            block, [](auto b) { return reduce_single_pass_last_block<b(), decltype(v)::value>; },
            "single_pass_last_block");
    });
    if (!known) {
        unsupported_variant("single_pass_last_block", variant);
    }
    return resident;
}

}  // namespace reduction::detail

// The stage's row in the stage list (reduction.hpp): the build collects it from this file.
namespace reduction::rows {

StageInfo stage11_single_pass_last_block_row() {
    StageInfo row("11", "single_pass_last_block",
                  "stage 10 in one launch: the last block sums the partials");
    row.launch = detail::launch_single_pass_last_block;
    row.elements_per_thread = detail::kVectorizedPlanElements;
    row.uses_tuner = true;
    row.variant_blocks_per_sm = detail::single_pass_last_block_blocks_per_sm;
    row.combine = Combine::kLastBlock;
    row.shared = Shared::kWarpSums;
    return row;
}

}  // namespace reduction::rows
