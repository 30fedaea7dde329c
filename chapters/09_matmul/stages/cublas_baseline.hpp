// Internal to matmul_kernels: the cuBLAS rows (cublas_baseline.cpp). Host code only.
#pragma once

#include <memory>
#include <string>

#include "matmul.hpp"
#include "matmul_launchers.hpp"

namespace matmul::detail {

/// A cuBLAS handle set up for one row: plain FP32 (CUBLAS_DEFAULT_MATH, the baseline), TF32
/// tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32, a labelled reference in another precision), or
/// BF16 in and out with FP32 sums (the BF16 table's baseline). For BF16 the constructor also
/// chooses how to call cuBLAS at `shape`: cublasGemmEx and cuBLASLt's top heuristic algorithms
/// (a 32 MiB workspace) are each timed on random data of that shape, and the fastest is used;
/// math_mode() names it and lists the times. Created outside the timed runs; needs a GPU.
class CublasGemm {
  public:
    explicit CublasGemm(Precision precision, const Shape& shape = Shape{});
    ~CublasGemm();
    CublasGemm(const CublasGemm&) = delete;
    CublasGemm& operator=(const CublasGemm&) = delete;

    /// C = A . B, row-major, on args.stream.
    void run(const LaunchArgs& args) const;
    /// The BF16 row's C = A . B, row-major, on args.stream.
    void run(const Bf16LaunchArgs& args) const;
    /// The call and math mode, for the header: "cublasGemmEx, CUBLAS_COMPUTE_32F (FP32 ...)".
    std::string math_mode() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace matmul::detail
