// Stage 10 (beyond the book) - 16-byte loads, several in flight, warp reductions.
//
// What changed from stage 9: three things, all aimed at the memory system.
//  1. Each load instruction moves 16 bytes (an int4) instead of 4: a warp asks for 512
//     contiguous bytes per instruction, and the load/store unit issues a quarter as many
//     instructions for the same bytes. Because int4 loads need 16-byte-aligned addresses, the
//     input is cut into a scalar head (up to 3 ints before the first 16-byte boundary), whole
//     int4 vectors, and a scalar tail (up to 3 ints) - any N, any int-aligned pointer works.
//  2. Each thread issues several independent int4 loads (tuned_constants.hpp: 4, i.e. 64 bytes)
//     before it adds any of them, so more bytes are in flight per SM to cover DRAM latency
//     (Little's law: bandwidth x latency = bytes in flight).
//  3. The block's partial sums are combined with warp reductions (cg::reduce: one redux.sync
//     instruction per warp on sm_80+) and one barrier, instead of a shared-memory tree.
//
//   block tiles, B threads, 4 loads:  thread t of block b loads in4[tile + t], in4[tile + t + B],
//   in4[tile + t + 2B], in4[tile + t + 3B] (tile = 4*B*b, then + 4*B*gridDim.x, ...), adds
//   the 16 ints, repeats.
//
// The load flavour (plain, or with an L2 256-byte prefetch hint), the layout (above, or each
// thread's loads a whole grid apart) and how many blocks per SM to launch were chosen by the
// tuning sweep (tuned_constants.hpp, the README's "predictions and outcomes"). The second pass
// is the same kernel with one block over the partial sums, so this stage is two launches.
// Prediction: stage 9's first pass (4-byte loads) reaches about 70% of peak; 16-byte loads
// should reach the ~90% ceiling that CUB reaches: about CUB's time, but not better (CUB also
// needs two launches).
// What to look for: the first row at CUB's speed.
#include "vectorized.cuh"

namespace reduction::detail {
namespace {

template <int kBlock, int kLoads, LoadPolicy kPolicy, Layout kLayout>
__global__ void __launch_bounds__(kBlock)
    reduce_vectorized_loads(const int* __restrict__ in, int* __restrict__ out, std::size_t n) {
    // EXERCISE BEGIN: this thread's share of in[0, n) with int4 loads, kLoads in flight, then the
    // EXERCISE HINT: block's sum. split_vectors (vector_split.hpp) cuts in[] into a scalar head,
    // EXERCISE HINT: int4 vectors and a scalar tail; the solution's helpers are in vectorized.cuh
    // EXERCISE HINT: (thread_sum_vectorized, block_sum): write your own before you look
    const Sum sum =
        block_sum<kBlock>(thread_sum_vectorized<kBlock, kLoads, kPolicy, kLayout>(in, n));
    // EXERCISE STUB: const Sum sum = 0;
    // EXERCISE END
    if (threadIdx.x == 0) {
        out[blockIdx.x] = as_int(sum);
    }
}

template <int kLoads, LoadPolicy kPolicy, Layout kLayout>
void launch_with(const KernelArgs& a) {
    launch_for_block_size(VectorizedBlocks{}, "vectorized_loads", a, [](auto block) {
        return reduce_vectorized_loads<block(), kLoads, kPolicy, kLayout>;
    });
}

template <int kLoads, LoadPolicy kPolicy, Layout kLayout>
int occupancy_with(int block) {
    return vectorized_occupancy(
        block, [](auto b) { return reduce_vectorized_loads<b(), kLoads, kPolicy, kLayout>; },
        "vectorized_loads");
}

template <LoadPolicy kPolicy>
using PolicyConstant = std::integral_constant<LoadPolicy, kPolicy>;
template <Layout kLayout>
using LayoutConstant = std::integral_constant<Layout, kLayout>;

// The sweep's variants: loads in flight {1, 2, 4, 8} x load policy {plain, L2::256B} x layout.
// (The first sweep also had __ldcs; it was never distinguishable from the plain load, so it was
// dropped to keep the number of instantiations down.)
template <typename Call>
bool dispatch_variant(int loads, int policy, int layout, Call&& call) {
    auto with_layout = [&](auto loads_c, auto policy_c) {
        switch (layout) {
            case 0:
                call(loads_c, policy_c, LayoutConstant<Layout::kThreadStride>{});
                return true;
            case 1:
                call(loads_c, policy_c, LayoutConstant<Layout::kBlockTiles>{});
                return true;
            default:
                return false;
        }
    };
    auto with_policy = [&](auto loads_c) {
        switch (policy) {
            case 0:
                return with_layout(loads_c, PolicyConstant<LoadPolicy::kPlain>{});
            case 2:
                return with_layout(loads_c, PolicyConstant<LoadPolicy::kPrefetchL2>{});
            default:
                return false;
        }
    };
    switch (loads) {
        case 1:
            return with_policy(std::integral_constant<int, 1>{});
        case 2:
            return with_policy(std::integral_constant<int, 2>{});
        case 4:
            return with_policy(std::integral_constant<int, 4>{});
        case 8:
            return with_policy(std::integral_constant<int, 8>{});
        default:
            return false;
    }
}

}  // namespace

void launch_vectorized_loads(const KernelArgs& a) {
    launch_with<kStageLoadsInFlight, kStageLoadPolicy, kStageLayout>(a);
}

int vectorized_loads_blocks_per_sm(int block) {
    return stage_blocks_per_sm(
        occupancy_with<kStageLoadsInFlight, kStageLoadPolicy, kStageLayout>(block));
}

int vectorized_elements_per_iteration() {
    return 4 * kStageLoadsInFlight;
}

bool launch_vectorized_variant(const KernelArgs& a, int loads_in_flight, int policy, int layout) {
    return dispatch_variant(loads_in_flight, policy, layout,
                            [&](auto loads, auto p, auto l) { launch_with<loads(), p(), l()>(a); });
}

int vectorized_variant_blocks_per_sm(int block, int loads_in_flight, int policy, int layout) {
    int blocks = 0;
    dispatch_variant(loads_in_flight, policy, layout, [&](auto loads, auto p, auto l) {
        blocks = occupancy_with<loads(), p(), l()>(block);
    });
    return blocks;
}

}  // namespace reduction::detail
