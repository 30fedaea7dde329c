// Stage 8 - stage 7's kernel at the shape a short tuning pass measures fastest on this GPU.
//
// What changed from stage 7: nothing in the kernel (stage7_warp_tiling.cuh); its shape is chosen
// by measurement instead of by hand. The candidates differ in three ways, each a trade the GPU
// that runs decides:
//  - the block tile (128 x 128 or 256 x 128): a bigger tile reuses each global
//    load more, but needs more registers and shared memory per block, so fewer blocks fit on an
//    SM, and leaves a ragged last wave of blocks on a small matrix;
//  - the warp tile (64 x 32, 32 x 64, or 16 x 128 as in stage 6): how much of A and of B a warp
//    reads from shared memory per step; and the thread tile (8 x 8, or 16 x 8: twice the sums in
//    registers, one block of 8 warps per SM instead of two);
//  - whether the next k-tile is loaded ahead: its global loads are issued before the current
//    tile's multiply-adds and stored to a second shared buffer after them, so that their
//    latency is hidden by arithmetic within the block, not only by the other blocks of the SM
//    (double buffering: twice the shared memory, one barrier per tile instead of two).
// The tuning pass (main.cpp) runs every candidate on the run's own data, checks it against the
// reference, times it, and hands the fastest to this stage; the header says which and why. Shapes
// whose rows do not allow 16-byte loads run stage 7's one-float-at-a-time kernel.
#include <stdexcept>
#include <string>

#include "stage7_warp_tiling.cuh"

namespace matmul::detail {
namespace {

struct Candidate {
    const char* name;
    void (*launch)(const LaunchArgs&);
};

// Candidate 0 is stage 7's own shape; only it is compiled for rows that need scalar loads. A
// build for the fallback architectures (no GPU at configure time, as in CI) compiles it alone,
// so that every kernel is compiled once per architecture there; a build for the GPU that runs
// (native) has them all.
const Candidate kCandidates[] = {
    {"128x128 tile, 64x32 warps", launch_warp_tiled<WarpTiling<128, 128, 8, false>, true>},
#ifndef MATMUL_STAGE7_SHAPE_ONLY
    {"128x128 tile, 64x32 warps, next tile ahead",
     launch_warp_tiled<WarpTiling<128, 128, 8, true>, false>},
    {"128x128 tile, 32x64 warps, next tile ahead",
     launch_warp_tiled<WarpTiling<128, 128, 4, true>, false>},
    {"128x128 tile, 16x128 warps, next tile ahead",
     launch_warp_tiled<WarpTiling<128, 128, 2, true>, false>},
    {"256x128 tile, 64x32 warps, next tile ahead",
     launch_warp_tiled<WarpTiling<256, 128, 8, true>, false>},
    {"256x128 tile, 128x32 warps of 16x8 threads, next tile ahead",
     launch_warp_tiled<WarpTiling<256, 128, 8, true, 4, 2>, false>},
#endif
};

}  // namespace

int warp_tiling_candidates() {
    return static_cast<int>(sizeof kCandidates / sizeof kCandidates[0]);
}

std::string warp_tiling_candidate_name(int index) {
    return kCandidates[index].name;
}

void launch_tuned_warp_tiling(const LaunchArgs& a) {
    const int index = a.candidate < 0 ? 0 : a.candidate;
    if (index >= warp_tiling_candidates()) {
        throw std::invalid_argument("stage 8 has no candidate " + std::to_string(index));
    }
    if (!rows_allow_float4(a)) {
        kCandidates[0].launch(a);  // the scalar-load kernel of stage 7's shape
        return;
    }
    kCandidates[index].launch(a);
}

}  // namespace matmul::detail
