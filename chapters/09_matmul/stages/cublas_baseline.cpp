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

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

#include "cudatutorial/check.hpp"

namespace matmul::detail {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw cudatutorial::CudaError(
            cudaErrorUnknown, std::string(call) + " failed: " + cublasGetStatusString(status));
    }
}

}  // namespace

struct CublasGemm::Impl {
    cublasHandle_t handle = nullptr;
    Precision precision = Precision::kFp32;
};

CublasGemm::CublasGemm(Precision precision) : impl_(std::make_unique<Impl>()) {
    impl_->precision = precision;
    check_cublas(cublasCreate(&impl_->handle), "cublasCreate");
    // The default math mode never uses TF32 for FP32 (unless the environment variable
    // NVIDIA_TF32_OVERRIDE asks for it: the FP32 tolerance of the normal data would catch that).
    check_cublas(cublasSetMathMode(impl_->handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
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
    const float alpha = 1.0f;
    const float beta = 0.0f;
    check_cublas(cublasSetStream(impl_->handle, a.stream), "cublasSetStream");
    // The same transposition as above: C^T = B^T . A^T, all column-major.
    check_cublas(cublasGemmEx(impl_->handle, CUBLAS_OP_N, CUBLAS_OP_N, a.n, a.m, a.k, &alpha, a.b,
                              CUDA_R_16BF, a.n, a.a, CUDA_R_16BF, a.k, &beta, a.c, CUDA_R_16BF, a.n,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
}

std::string CublasGemm::math_mode() const {
    switch (impl_->precision) {
        case Precision::kTf32:
            return "cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32 (inputs rounded to TF32 on the "
                   "tensor cores, FP32 sums)";
        case Precision::kBf16:
            return "cublasGemmEx, CUDA_R_16BF A, B and C, CUBLAS_COMPUTE_32F (BF16 on the tensor "
                   "cores, FP32 sums, C rounded to BF16)";
        case Precision::kFp32:
            break;
    }
    return "cublasSgemm, CUBLAS_DEFAULT_MATH (FP32 on the CUDA cores)";
}

}  // namespace matmul::detail
