// The baselines: cuBLAS's SGEMM, the library call a CUDA programmer would make; the same call
// on the TF32 tensor cores (another precision, a reference); and cuBLAS's BF16 GEMM (BF16 in
// and out, FP32 sums), the tensor-core stages' baseline.
//
// cuBLAS is column-major (Fortran's order): it reads a matrix of r rows and c columns with
// leading dimension ld as element (i, j) at p[i + j ld]. Our matrices are row-major, and a
// row-major m x n matrix, read column-major, is its transpose, n x m, in the same bytes. So
// instead of C = A . B we ask cuBLAS for C^T = B^T . A^T, passing B first: its operands are
// then exactly our bytes, nothing is transposed or copied, and the result lands row-major in C.
// That costs nothing: cuBLAS runs the same kernels either way.
#include "cublas_baseline.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/report.hpp"

namespace matmul::detail {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw cudatutorial::CudaError(
            cudaErrorUnknown, std::string(call) + " failed: " + cublasGetStatusString(status));
    }
}

/// cuBLASLt's side of the BF16 row: C^T = B^T . A^T as below, BF16 in and out, FP32 sums.
struct LtGemm {
    cublasLtHandle_t handle = nullptr;
    cublasLtMatmulDesc_t operation = nullptr;
    cublasLtMatrixLayout_t b_layout = nullptr;  // cuBLASLt's "A": our B, n x k column-major
    cublasLtMatrixLayout_t a_layout = nullptr;  // its "B": our A, k x m
    cublasLtMatrixLayout_t c_layout = nullptr;  // C, n x m
    cudatutorial::DeviceBuffer<unsigned char> workspace;

    explicit LtGemm(const Shape& s) : workspace(kWorkspaceBytes) {
        check_cublas(cublasLtCreate(&handle), "cublasLtCreate");
        check_cublas(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                     "cublasLtMatmulDescCreate");
        check_cublas(cublasLtMatrixLayoutCreate(&b_layout, CUDA_R_16BF, s.n, s.k, s.n),
                     "cublasLtMatrixLayoutCreate");
        check_cublas(cublasLtMatrixLayoutCreate(&a_layout, CUDA_R_16BF, s.k, s.m, s.k),
                     "cublasLtMatrixLayoutCreate");
        check_cublas(cublasLtMatrixLayoutCreate(&c_layout, CUDA_R_16BF, s.n, s.m, s.n),
                     "cublasLtMatrixLayoutCreate");
    }
    ~LtGemm() {
        cublasLtMatrixLayoutDestroy(c_layout);
        cublasLtMatrixLayoutDestroy(a_layout);
        cublasLtMatrixLayoutDestroy(b_layout);
        cublasLtMatmulDescDestroy(operation);
        cublasLtDestroy(handle);
    }
    LtGemm(const LtGemm&) = delete;
    LtGemm& operator=(const LtGemm&) = delete;

    /// Up to `count` algorithms, best first, as cuBLASLt's heuristic ranks them.
    std::vector<cublasLtMatmulAlgo_t> candidates(int count) const {
        cublasLtMatmulPreference_t preference = nullptr;
        check_cublas(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
        const std::size_t bytes = kWorkspaceBytes;
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &bytes, sizeof bytes);
        // Split-k partial sums added in FP32, never in the output type (BF16): the arithmetic
        // of our stages, and results that the exact check can hold to the correctly rounded sum.
        const std::uint32_t schemes =
            CUBLASLT_REDUCTION_SCHEME_MASK &
            ~static_cast<std::uint32_t>(CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE);
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                             &schemes, sizeof schemes);
        std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(count));
        int found = 0;
        const cublasStatus_t status =
            cublasLtMatmulAlgoGetHeuristic(handle, operation, b_layout, a_layout, c_layout,
                                           c_layout, preference, count, results.data(), &found);
        cublasLtMatmulPreferenceDestroy(preference);
        std::vector<cublasLtMatmulAlgo_t> algorithms;
        for (int i = 0; status == CUBLAS_STATUS_SUCCESS && i < found; ++i) {
            if (results[static_cast<std::size_t>(i)].state == CUBLAS_STATUS_SUCCESS) {
                algorithms.push_back(results[static_cast<std::size_t>(i)].algo);
            }
        }
        return algorithms;
    }

    void run(const cublasLtMatmulAlgo_t& algorithm, const Bf16LaunchArgs& a) {
        const float alpha = 1.0f;
        const float beta = 0.0f;
        check_cublas(cublasLtMatmul(handle, operation, &alpha, a.b, b_layout, a.a, a_layout, &beta,
                                    a.c, c_layout, a.c, c_layout, &algorithm, workspace.data(),
                                    workspace.size(), a.stream),
                     "cublasLtMatmul");
    }

    static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
};

/// "algorithm 21, tile 18, stages 9": cuBLASLt's own ids, for the header.
std::string algorithm_words(const cublasLtMatmulAlgo_t& algorithm) {
    int id = 0, tile = 0, stages = 0;
    std::size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&algorithm, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id,
                                         &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algorithm, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                         sizeof tile, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algorithm, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                         sizeof stages, &written);
    return "algorithm " + std::to_string(id) + ", tile " + std::to_string(tile) + ", stages " +
           std::to_string(stages);
}

/// The median of 5 timed calls of `call` after 2 warm-up ones, in ms (CUDA events).
template <class Call>
double median_ms(Call call, cudaStream_t stream) {
    cudaEvent_t start = nullptr, stop = nullptr;
    CT_CHECK(cudaEventCreate(&start));
    CT_CHECK(cudaEventCreate(&stop));
    call();
    call();
    std::vector<double> times;
    for (int rep = 0; rep < 5; ++rep) {
        CT_CHECK(cudaEventRecord(start, stream));
        call();
        CT_CHECK(cudaEventRecord(stop, stream));
        CT_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CT_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

struct CublasGemm::Impl {
    cublasHandle_t handle = nullptr;
    Precision precision = Precision::kFp32;
    // The BF16 row: cuBLASLt with the chosen algorithm, or cublasGemmEx when it was faster.
    std::unique_ptr<LtGemm> lt;
    cublasLtMatmulAlgo_t algorithm{};
    bool use_lt = false;
    std::string choice;

    void run_gemm_ex(const Bf16LaunchArgs& a) const {
        const float alpha = 1.0f;
        const float beta = 0.0f;
        check_cublas(cublasSetStream(handle, a.stream), "cublasSetStream");
        // The same transposition as the FP32 rows: C^T = B^T . A^T, all column-major.
        check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, a.n, a.m, a.k, &alpha, a.b,
                                  CUDA_R_16BF, a.n, a.a, CUDA_R_16BF, a.k, &beta, a.c, CUDA_R_16BF,
                                  a.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
    }

    /// Times cublasGemmEx and cuBLASLt's top 8 heuristic algorithms at `shape` on random BF16
    /// data (uniform in [-1, 1): the bits that toggle set the power, and so the clock) and keeps
    /// the fastest.
    void choose_bf16_call(const Shape& shape) {
        lt = std::make_unique<LtGemm>(shape);
        std::vector<__nv_bfloat16> host(std::max(shape.m * shape.k, shape.k * shape.n));
        std::uint64_t state = 0x9e3779b97f4a7c15ull;
        for (auto& value : host) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            value = __float2bfloat16(static_cast<float>(state >> 40) / 8388608.0f - 1.0f);
        }
        cudatutorial::DeviceBuffer<__nv_bfloat16> a(shape.m * shape.k), b(shape.k * shape.n),
            c(shape.m * shape.n);
        a.copy_from_host(host.data(), a.size());
        b.copy_from_host(host.data(), b.size());
        Bf16LaunchArgs args;
        args.a = a.data();
        args.b = b.data();
        args.c = c.data();
        args.m = static_cast<int>(shape.m);
        args.n = static_cast<int>(shape.n);
        args.k = static_cast<int>(shape.k);
        double best = median_ms([&] { run_gemm_ex(args); }, nullptr);
        std::string times = "cublasGemmEx " + cudatutorial::format_fixed(best, 4) + " ms";
        choice = "cublasGemmEx, CUBLAS_GEMM_DEFAULT";
        const std::vector<cublasLtMatmulAlgo_t> algorithms = lt->candidates(8);
        for (std::size_t i = 0; i < algorithms.size(); ++i) {
            const double ms = median_ms([&] { lt->run(algorithms[i], args); }, nullptr);
            times += "; cuBLASLt #" + std::to_string(i + 1) + " " +
                     cudatutorial::format_fixed(ms, 4) + " ms";
            if (ms < best) {
                best = ms;
                use_lt = true;
                algorithm = algorithms[i];
                choice = "cublasLtMatmul, heuristic #" + std::to_string(i + 1) + " of " +
                         std::to_string(algorithms.size()) + " (" + algorithm_words(algorithms[i]) +
                         ", 32 MiB workspace)";
            }
        }
        choice += " - the fastest at this shape on random data (median of 5: " + times + ")";
    }
};

CublasGemm::CublasGemm(Precision precision, const Shape& shape) : impl_(std::make_unique<Impl>()) {
    impl_->precision = precision;
    check_cublas(cublasCreate(&impl_->handle), "cublasCreate");
    // The default math mode never uses TF32 for FP32 (unless the environment variable
    // NVIDIA_TF32_OVERRIDE asks for it: the FP32 tolerance of the normal data would catch that).
    check_cublas(cublasSetMathMode(impl_->handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    if (precision == Precision::kBf16) {
        // Left to itself, cuBLAS may add split-k partial sums in BF16 (a "reduced precision
        // reduction"), which rounds more than once: 1025^3 on the integers came out 2 off the
        // correctly rounded sum in 4% of the elements. Our stages sum in FP32 throughout.
        check_cublas(
            cublasSetMathMode(impl_->handle, static_cast<cublasMath_t>(
                                                 CUBLAS_DEFAULT_MATH |
                                                 CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
            "cublasSetMathMode");
        impl_->choose_bf16_call(shape);
    }
}

CublasGemm::~CublasGemm() {
    if (impl_ && impl_->handle) {
        cublasDestroy(impl_->handle);
    }
}

void CublasGemm::run(const LaunchArgs& a) const {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    check_cublas(cublasSetStream(impl_->handle, a.stream), "cublasSetStream");
    // C^T (n x m) = B^T (n x k) . A^T (k x m), all column-major: see the file comment.
    if (impl_->precision == Precision::kBf16) {
        throw std::logic_error("the BF16 row is given FP32 operands");
    }
    if (impl_->precision == Precision::kTf32) {
        check_cublas(
            cublasGemmEx(impl_->handle, CUBLAS_OP_N, CUBLAS_OP_N, a.n, a.m, a.k, &alpha, a.b,
                         CUDA_R_32F, a.n, a.a, CUDA_R_32F, a.k, &beta, a.c, CUDA_R_32F, a.n,
                         CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
    } else {
        check_cublas(cublasSgemm(impl_->handle, CUBLAS_OP_N, CUBLAS_OP_N, a.n, a.m, a.k, &alpha,
                                 a.b, a.n, a.a, a.k, &beta, a.c, a.n),
                     "cublasSgemm");
    }
}

void CublasGemm::run(const Bf16LaunchArgs& a) const {
    if (impl_->precision != Precision::kBf16) {
        throw std::logic_error("an FP32 row is given BF16 operands");
    }
    if (impl_->use_lt) {
        impl_->lt->run(impl_->algorithm, a);
    } else {
        impl_->run_gemm_ex(a);
    }
}

std::string CublasGemm::math_mode() const {
    switch (impl_->precision) {
        case Precision::kTf32:
            return "cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32 (inputs rounded to TF32 on the "
                   "tensor cores, FP32 sums)";
        case Precision::kBf16:
            return "BF16 A, B and C, CUBLAS_COMPUTE_32F (FP32 sums, split-k partial sums in "
                   "FP32 too, C rounded to BF16): " +
                   impl_->choice;
        case Precision::kFp32:
            break;
    }
    return "cublasSgemm, CUBLAS_DEFAULT_MATH (FP32 on the CUDA cores)";
}

}  // namespace matmul::detail
