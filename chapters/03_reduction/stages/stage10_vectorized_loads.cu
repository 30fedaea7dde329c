// Stage 10 (beyond the book) - 16-byte loads, several in flight, warp reductions.
//
// What changed from stage 9: three things, all aimed at the memory system.
//  1. Each load instruction moves 16 bytes (an int4) instead of 4: a warp asks for 512
//     contiguous bytes per instruction, and the load/store unit issues a quarter as many
//     instructions for the same bytes. Because int4 loads need 16-byte-aligned addresses, the
//     input is cut into a scalar head (up to 3 ints before the first 16-byte boundary), whole
//     int4 vectors, and a scalar tail (up to 3 ints) - any N, any int-aligned pointer works.
//  2. Each thread issues kLoads independent int4 loads (4 by default: 64 bytes) before it adds
//     any of them, so more bytes are in flight per SM to cover DRAM latency (Little's law:
//     bandwidth x latency = bytes in flight).
//  3. The block's partial sums are combined with warp reductions (cg::reduce: one redux.sync
//     instruction per warp on sm_80+) and one barrier, instead of a shared-memory tree.
//
//   thread t, grid of T threads:  x0 = in4[t], x1 = in4[t+T], x2 = in4[t+2T], x3 = in4[t+3T];
//                                 sum += x0.x+x0.y+x0.z+x0.w + ... ; t += 4T; repeat
//
// The grid is still SMs x resident blocks per SM (occupancy API), and the second pass is the
// same kernel with one block over the partial sums, so this stage is still two launches.
// Prediction: stage 9's first pass (4-byte loads) reaches about 2/3 of peak; 16-byte loads
// should reach the ~90% ceiling a device-to-device copy reaches: about CUB's time.
// What to look for: the first row at CUB's speed; compare the tuning sweep in the README.
#include "vectorized.cuh"

namespace reduction::detail {
namespace {

template <int kBlock, int kLoads, LoadPolicy kPolicy>
__global__ void __launch_bounds__(kBlock)
    reduce_vectorized_loads(const int* __restrict__ in, int* __restrict__ out, std::size_t n) {
    const Sum sum = block_sum<kBlock>(thread_sum_vectorized<kBlock, kLoads, kPolicy>(in, n));
    if (threadIdx.x == 0) {
        out[blockIdx.x] = as_int(sum);
    }
}

template <int kLoads, LoadPolicy kPolicy>
void launch_with(const KernelArgs& a) {
    const bool launched = dispatch_block_size(VectorizedBlocks{}, a.block, [&](auto block) {
        reduce_vectorized_loads<block(), kLoads, kPolicy>
            <<<a.grid, block(), 0, a.stream>>>(a.in, a.out, a.n);
    });
    if (!launched) {
        unsupported_block_size("vectorized_loads", a.block);
    }
    CT_CHECK_LAUNCH();
}

template <int kLoads, LoadPolicy kPolicy>
int occupancy_with(int block) {
    return vectorized_occupancy(
        block, [](auto b) { return reduce_vectorized_loads<b(), kLoads, kPolicy>; },
        "vectorized_loads");
}

// The sweep's grid of variants: loads in flight {1, 2, 4, 8} x the three load policies.
template <typename Call>
bool dispatch_variant(int loads, int policy, Call&& call) {
    auto with_policy = [&](auto loads_constant) {
        switch (policy) {
            case 0:
                call(loads_constant, std::integral_constant<LoadPolicy, LoadPolicy::kPlain>{});
                return true;
            case 1:
                call(loads_constant, std::integral_constant<LoadPolicy, LoadPolicy::kStreaming>{});
                return true;
            case 2:
                call(loads_constant, std::integral_constant<LoadPolicy, LoadPolicy::kPrefetchL2>{});
                return true;
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
    launch_with<kStageLoadsInFlight, kStageLoadPolicy>(a);
}

int vectorized_loads_blocks_per_sm(int block) {
    return occupancy_with<kStageLoadsInFlight, kStageLoadPolicy>(block);
}

int vectorized_elements_per_iteration() {
    return 4 * kStageLoadsInFlight;
}

bool launch_vectorized_variant(const KernelArgs& a, int loads_in_flight, int policy) {
    return dispatch_variant(loads_in_flight, policy, [&](auto loads, auto load_policy) {
        launch_with<loads(), load_policy()>(a);
    });
}

int vectorized_variant_blocks_per_sm(int block, int loads_in_flight, int policy) {
    int blocks = 0;
    dispatch_variant(loads_in_flight, policy, [&](auto loads, auto load_policy) {
        blocks = occupancy_with<loads(), load_policy()>(block);
    });
    return blocks;
}

}  // namespace reduction::detail
