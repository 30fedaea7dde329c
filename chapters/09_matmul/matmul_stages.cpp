// The stage list: one row per stage, in table order, each field named (cudatutorial::StageRow).
// A new stage is its file in stages/ plus one row here (docs/extending.md).
#include <string>
#include <vector>

#include "matmul.hpp"
#include "stages/matmul_launchers.hpp"

namespace matmul {
namespace {

std::vector<StageInfo> make_stages() {
    using cudatutorial::StageRole;
    using namespace detail;
    using Needs = StageNeeds;
    return {
        StageInfo("1", "naive",
                  "one thread per element; threadIdx.x walks down a column: A's loads uncoalesced")
            .with_source("stages/stage1_naive.cu")
            .with_launcher(launch_naive)
            .with(&Needs::slow, true),
        StageInfo("2", "coalesced",
                  "threadIdx.x walks along a row: a warp's loads of B and stores of C are 128 "
                  "contiguous bytes")
            .with_source("stages/stage2_coalesced.cu")
            .with_launcher(launch_coalesced)
            .with(&Needs::slow, true),
        StageInfo("3", "shared_tiling",
                  "32 x 32 tiles of A and B staged in shared memory: each global load serves 32 "
                  "products")
            .with_source("stages/stage3_shared_tiling.cu")
            .with_launcher(launch_shared_tiling),
        StageInfo("4", "register_blocking_1d",
                  "8 outputs per thread down a column: one shared load of B serves 8 FMAs")
            .with_source("stages/stage4_register_blocking_1d.cu")
            .with_launcher(launch_register_blocking_1d),
        StageInfo("5", "register_blocking_2d",
                  "an 8 x 8 block per thread, outer products in registers: 64 FMAs per 16 shared "
                  "loads")
            .with_source("stages/stage5_register_blocking_2d.cu")
            .with_launcher(launch_register_blocking_2d),
        StageInfo("6", "vectorized_transposed",
                  "16-byte loads where rows allow them, A's tile transposed, no bank conflicts")
            .with_source("stages/stage6_vectorized_transposed.cu")
            .with_launcher(launch_vectorized_transposed),
        StageInfo("7", "warp_tiling",
                  "block tile -> 64 x 32 warp tiles -> 8 x 8 thread tiles: a third fewer shared "
                  "loads per warp")
            .with_source("stages/stage7_warp_tiling.cuh")
            .with_launcher(launch_warp_tiling),
        StageInfo("8", "tuned_warp_tiling",
                  "stage 7 at the tile shape (and loading the next tile ahead or not) measured "
                  "fastest on this GPU")
            .with_source("stages/stage8_tuned_warp_tiling.cu")
            .with_launcher(launch_tuned_warp_tiling)
            .tuned(),
        StageInfo("9", "async_pipeline",
                  "the copy engine (cp.async) fills a ring of 4 shared tiles while the block "
                  "multiplies; 16 x 8 outputs a thread, 4 warps of 64 x 64")
            .with_source("stages/stage9_async_pipeline.cuh")
            .with_launcher(launch_async_pipeline),
        StageInfo(kCublasStageId, "cublas_sgemm",
                  "cublasSgemm, FP32 on the CUDA cores (the baseline)")
            .with_source("stages/cublas_baseline.cpp")
            .with_role(StageRole::kBaseline),
        StageInfo(kCublasTf32StageId, "cublas_tf32",
                  "cuBLAS on the TF32 tensor cores: another precision, a reference (what part 2 "
                  "is about)")
            .with_source("stages/cublas_baseline.cpp")
            .with_role(StageRole::kBaseline)
            .with(&Needs::precision, Precision::kTf32),
        // The BF16 table (--precision bf16): BF16 in and out, FP32 sums, on the tensor cores.
        StageInfo("10", "wmma",
                  "the tensor cores through WMMA: a warp multiplies 16 x 16 x 16 BF16 fragments "
                  "from shared memory, cp.async double buffering")
            .with_source("stages/stage10_wmma.cu")
            .with(&Needs::launch_bf16, launch_wmma)
            .with(&Needs::precision, Precision::kBf16)
            .with(&Needs::min_compute_capability, 80),
        StageInfo("11", "mma_sync",
                  "mma.sync m16n8k16 in PTX fed by ldmatrix (.trans for B) from XOR-swizzled "
                  "tiles, a ring of 4 k-tiles, C written from registers")
            .with_source("stages/stage11_mma_sync.cu")
            .with(&Needs::launch_bf16, launch_mma_sync)
            .with(&Needs::precision, Precision::kBf16)
            .with(&Needs::min_compute_capability, 80),
        StageInfo("12", "wgmma_tma",
                  "Hopper: wgmma reads 64 x 128 x 16 tiles from shared memory, which the TMA copy "
                  "engine fills (128-byte swizzle, an mbarrier per buffer); B N-major, as stored")
            .with_source("stages/stage12_wgmma_tma.cu")
            .with(&Needs::launch_bf16, launch_wgmma_tma)
            .with(&Needs::precision, Precision::kBf16)
            .with(&Needs::sm90a_only, true)
            .with(&Needs::min_compute_capability, 90),
        StageInfo("13", "warp_specialized",
                  "a producer warpgroup only copies, two consumers only multiply (128 x 256 "
                  "tiles, m64n256k16), full and empty mbarriers, setmaxnreg moves registers")
            .with_source("stages/stage13_warp_specialized.cu")
            .with(&Needs::launch_bf16, launch_warp_specialized)
            .with(&Needs::precision, Precision::kBf16)
            .with(&Needs::sm90a_only, true)
            .with(&Needs::min_compute_capability, 90),
        StageInfo("14", "persistent_clusters",
                  "stage 13 kept resident, tiles in grouped order; 2-block clusters share B's "
                  "tile by TMA multicast; C leaves through shared memory (stmatrix, TMA store)")
            .with_source("stages/stage14_persistent_clusters.cu")
            .with(&Needs::launch_bf16, launch_persistent_clusters)
            .with(&Needs::precision, Precision::kBf16)
            .with(&Needs::sm90a_only, true)
            .with(&Needs::min_compute_capability, 90)
            .with(&Needs::schedule, persistent_schedule),
        StageInfo(kCublasBf16StageId, "cublas_gemm_bf16",
                  "cublasGemmEx on BF16 A, B and C, FP32 sums (the BF16 baseline)")
            .with_source("stages/cublas_baseline.cpp")
            .with_role(StageRole::kBaseline)
            .with(&Needs::precision, Precision::kBf16)
            .with(&Needs::min_compute_capability, 80),
    };
}

}  // namespace

const std::vector<StageInfo>& stages() {
    static const std::vector<StageInfo> list = make_stages();
    return list;
}

const StageInfo* find_stage(const std::string& id) {
    return cudatutorial::find_stage_in(stages(), id);
}

}  // namespace matmul
