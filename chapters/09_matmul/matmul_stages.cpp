// The stage list: one row per stage, in table order. A new stage is its file in stages/ plus one
// row here (docs/extending.md).
#include <string>
#include <vector>

#include "matmul.hpp"
#include "stages/matmul_launchers.hpp"

namespace matmul {
namespace {

/// One row of the stage list, each field named: `stage("3", "shared_tiling").idea(...)`. A field
/// left out keeps StageInfo's default (an FP32 step of the progression, part of `all`).
class StageRow {
  public:
    StageRow(const char* id, const char* name) {
        info_.id = id;
        info_.name = name;
    }
    /// What changed from the previous stage, in one line (the table and --stage list show it).
    StageRow& idea(const char* text) {
        info_.idea = text;
        return *this;
    }
    /// The file that holds the kernel and its launcher, relative to the chapter.
    StageRow& source(const char* file, void (*launch)(const detail::LaunchArgs&) = nullptr) {
        info_.source = file;
        info_.launch = launch;
        return *this;
    }
    /// A BF16 stage: its file and launcher (precision kBf16, the BF16 table).
    StageRow& source(const char* file, void (*launch)(const detail::Bf16LaunchArgs&)) {
        info_.source = file;
        info_.launch_bf16 = launch;
        info_.precision = Precision::kBf16;
        return *this;
    }
    /// The compute capability its kernel needs (major * 10 + minor).
    StageRow& needs_compute_capability(int major_minor) {
        info_.min_compute_capability = major_minor;
        return *this;
    }
    /// Built for sm_90a alone: compute capability 9.0 only.
    StageRow& sm90a_only() {
        info_.sm90a_only = true;
        info_.min_compute_capability = 90;
        return *this;
    }
    /// Says how it divides the work on this GPU (StageInfo::schedule).
    StageRow& schedule(std::string (*describe)(int m, int n)) {
        info_.schedule = describe;
        return *this;
    }
    /// Its role in the table (a progression step unless said otherwise).
    StageRow& role(cudatutorial::StageRole role) {
        info_.role = role;
        return *this;
    }
    /// How its result is checked on the normal inputs (FP32 unless said otherwise).
    StageRow& precision(Precision precision) {
        info_.precision = precision;
        return *this;
    }
    /// Runs the candidate a tuning pass chose (Multiplier's `candidate`).
    StageRow& uses_tuner() {
        info_.uses_tuner = true;
        return *this;
    }
    /// Timed with fewer repetitions (StageInfo::slow).
    StageRow& slow() {
        info_.slow = true;
        return *this;
    }
    operator StageInfo() const { return info_; }  // NOLINT(google-explicit-constructor)

  private:
    StageInfo info_;
};

std::vector<StageInfo> make_stages() {
    using cudatutorial::StageRole;
    using namespace detail;
    return {
        StageRow("1", "naive")
            .idea("one thread per element; threadIdx.x walks down a column: A's loads uncoalesced")
            .source("stages/stage1_naive.cu", launch_naive)
            .slow(),
        StageRow("2", "coalesced")
            .idea("threadIdx.x walks along a row: a warp's loads of B and stores of C are 128 "
                  "contiguous bytes")
            .source("stages/stage2_coalesced.cu", launch_coalesced)
            .slow(),
        StageRow("3", "shared_tiling")
            .idea("32 x 32 tiles of A and B staged in shared memory: each global load serves 32 "
                  "products")
            .source("stages/stage3_shared_tiling.cu", launch_shared_tiling),
        StageRow("4", "register_blocking_1d")
            .idea("8 outputs per thread down a column: one shared load of B serves 8 FMAs")
            .source("stages/stage4_register_blocking_1d.cu", launch_register_blocking_1d),
        StageRow("5", "register_blocking_2d")
            .idea("an 8 x 8 block per thread, outer products in registers: 64 FMAs per 16 shared "
                  "loads")
            .source("stages/stage5_register_blocking_2d.cu", launch_register_blocking_2d),
        StageRow("6", "vectorized_transposed")
            .idea("16-byte loads where rows allow them, A's tile transposed, no bank conflicts")
            .source("stages/stage6_vectorized_transposed.cu", launch_vectorized_transposed),
        StageRow("7", "warp_tiling")
            .idea("block tile -> 64 x 32 warp tiles -> 8 x 8 thread tiles: a third fewer shared "
                  "loads per warp")
            .source("stages/stage7_warp_tiling.cuh", launch_warp_tiling),
        StageRow("8", "tuned_warp_tiling")
            .idea("stage 7 at the tile shape (and loading the next tile ahead or not) measured "
                  "fastest on this GPU")
            .source("stages/stage8_tuned_warp_tiling.cu", launch_tuned_warp_tiling)
            .uses_tuner(),
        StageRow("9", "async_pipeline")
            .idea("the copy engine (cp.async) fills a ring of 4 shared tiles while the block "
                  "multiplies; 16 x 8 outputs a thread, 4 warps of 64 x 64")
            .source("stages/stage9_async_pipeline.cuh", launch_async_pipeline),
        StageRow(kCublasStageId, "cublas_sgemm")
            .idea("cublasSgemm, FP32 on the CUDA cores (the baseline)")
            .source("stages/cublas_baseline.cpp")
            .role(StageRole::kBaseline),
        StageRow(kCublasTf32StageId, "cublas_tf32")
            .idea("cuBLAS on the TF32 tensor cores: another precision, a reference (what part 2 "
                  "is about)")
            .source("stages/cublas_baseline.cpp")
            .role(StageRole::kBaseline)
            .precision(Precision::kTf32),
        // The BF16 table (--precision bf16): BF16 in and out, FP32 sums, on the tensor cores.
        StageRow("10", "wmma")
            .idea("the tensor cores through WMMA: a warp multiplies 16 x 16 x 16 BF16 fragments "
                  "from shared memory, cp.async double buffering")
            .source("stages/stage10_wmma.cu", launch_wmma)
            .needs_compute_capability(80),
        StageRow("11", "mma_sync")
            .idea("mma.sync m16n8k16 in PTX fed by ldmatrix (.trans for B) from XOR-swizzled "
                  "tiles, a ring of 4 k-tiles, C written from registers")
            .source("stages/stage11_mma_sync.cu", launch_mma_sync)
            .needs_compute_capability(80),
        StageRow("12", "wgmma_tma")
            .idea("Hopper: wgmma reads 64 x 128 x 16 tiles from shared memory, which the TMA copy "
                  "engine fills (128-byte swizzle, an mbarrier per buffer); B N-major, as stored")
            .source("stages/stage12_wgmma_tma.cu", launch_wgmma_tma)
            .sm90a_only(),
        StageRow("13", "warp_specialized")
            .idea("a producer warpgroup only copies, two consumers only multiply (128 x 256 "
                  "tiles, m64n256k16), full and empty mbarriers, setmaxnreg moves registers")
            .source("stages/stage13_warp_specialized.cu", launch_warp_specialized)
            .sm90a_only(),
        StageRow("14", "persistent_clusters")
            .idea("stage 13 kept resident, tiles in grouped order; 2-block clusters share B's "
                  "tile by TMA multicast; C leaves through shared memory (stmatrix, TMA store)")
            .source("stages/stage14_persistent_clusters.cu", launch_persistent_clusters)
            .sm90a_only()
            .schedule(persistent_schedule),
        StageRow(kCublasBf16StageId, "cublas_gemm_bf16")
            .idea("cublasGemmEx on BF16 A, B and C, FP32 sums (the BF16 baseline)")
            .source("stages/cublas_baseline.cpp")
            .role(StageRole::kBaseline)
            .precision(Precision::kBf16)
            .needs_compute_capability(80),
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
