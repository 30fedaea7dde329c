/// @file matmul.hpp
/// @brief Chapter 9's host API: the shapes, the inputs, the CPU reference, the stage list and
/// Multiplier, which runs any stage (or cuBLAS) on matrices already on the device.
///
/// @code
///   #include "matmul.hpp"
///   matmul::Shape shape{4096, 4096, 4096};             // C (M x N) = A (M x K) . B (K x N)
///   matmul::Multiplier multiplier("3", shape);          // stage 3, its workspace made here
///   multiplier.run(d_a, d_b, d_c, stream);              // row-major FP32, asynchronous
/// @endcode
///
/// Every matrix is FP32 and row-major: element (i, j) of the M x N matrix C is c[i * N + j].
/// Arithmetic: on the integer inputs (-4..4) every partial sum is an integer below 16 K in
/// magnitude, exact in FP32 while 16 K < 2^24, so every stage, whatever order it adds in, must
/// give exactly the reference's bits (K is limited to 2^20 for that reason). On normal-distributed
/// inputs the order changes the last bits: the check allows an error proportional to the size of
/// the products it sums (verification.hpp).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

namespace matmul {

namespace detail {
struct LaunchArgs;      // stages/matmul_launchers.hpp
struct Bf16LaunchArgs;  // stages/matmul_launchers.hpp
}  // namespace detail

/// BF16: FP32's 8 exponent bits with 8 significant bits (7 stored), the tensor cores' input.
using Bf16 = __nv_bfloat16;

/// C (m x n) = A (m x k) . B (k x n).
struct Shape {
    std::uint64_t m = 0;  ///< rows of A and C
    std::uint64_t n = 0;  ///< columns of B and C
    std::uint64_t k = 0;  ///< columns of A, rows of B: the length of each dot product

    /// 2 m n k: one multiply and one add per term of every dot product.
    double flops() const;
    /// "4096 x 4096 x 4096" (m x n x k).
    std::string text() const;
};

/// The largest m, n and k: k so that integer sums stay exact in FP32, m and n so that every
/// stage's grid fits (a tile is at least 32 columns wide: 2^20 / 32 blocks is under 65,535).
inline constexpr std::uint64_t kMaxDimension = std::uint64_t{1} << 20;

/// The input patterns (--data and the tests).
enum class Pattern {
    kNormal,    ///< normal-distributed values (mean 0, deviation 1): what a model multiplies
    kIntegers,  ///< integers -4..4: every sum exact in FP32, checked bit for bit
    /// -1, 0 and +1, A with at most 256 nonzeros in a row (make_matrix's `row_length`): every
    /// element of C is an integer within +-256, exact in BF16 as well, so a BF16 output that
    /// lost a single product shows it (with -4..4, BF16's rounding hides errors above 256)
    kSparse,
    /// Every input 0: the fewest bits a multiply can toggle, for timing only (the power a GEMM
    /// draws, and so its clock, depends on its data); a run on zeros checks its rows on the
    /// integers too, since a kernel that writes nothing but zeros would pass on them
    kZeros,
};

/// "normal", "integers", "sparse", "zeros".
const char* pattern_name(Pattern pattern);

/// The pattern named `name`; throws std::invalid_argument naming the known ones.
Pattern parse_pattern(const std::string& name);

/// `count` values of `pattern`, deterministic for (seed, stream): counter-based, multithreaded.
/// `stream` keeps A's and B's values apart under one seed. kSparse with `row_length` r > 0 (A,
/// r = k): element (i, j) of a row of r may be nonzero only where j % s == i % s, s =
/// ceil(r / 256), so a row has at most 256 nonzeros and each column index is covered by some
/// rows; `row_length` 0 (B): -1, 0 or +1 anywhere.
std::vector<float> make_matrix(Pattern pattern, std::size_t count, std::uint64_t seed,
                               std::uint64_t stream, std::uint64_t row_length = 0);

/// Each value rounded to the nearest BF16 (ties to even), kept as floats: the BF16 stages'
/// inputs, whose FP64 reference is computed from these rounded values.
std::vector<float> round_to_bf16(const std::vector<float>& values);

// ---------------------------------------------------------------------------------------------
// The CPU reference (matmul_reference.cpp)

/// One element of the product in FP64: the dot product of A's row `row` and B's column `col`
/// (exact for the integer inputs), and the scale the tolerance of the normal inputs is relative
/// to: sqrt(sum over k of (a_ik b_kj)^2).
struct ReferenceElement {
    double value = 0;
    double scale = 0;
};

/// C[row][col] of A . B in FP64 (A and B row-major, as `shape` says).
ReferenceElement reference_element(const float* a, const float* b, const Shape& shape,
                                   std::uint64_t row, std::uint64_t col);

/// The whole product in FP64, on several host threads: value[i * n + j], scale[i * n + j].
void reference_product(const float* a, const float* b, const Shape& shape,
                       std::vector<double>& value, std::vector<double>& scale);

// ---------------------------------------------------------------------------------------------
// The stages (matmul_stages.cpp)

/// Id of cublasSgemm, the baseline.
inline constexpr const char* kCublasStageId = "cublas";
/// Id of cuBLAS with TF32 tensor cores: another precision, a labelled reference.
inline constexpr const char* kCublasTf32StageId = "tf32";

/// Id of cuBLAS's BF16 GEMM (BF16 in and out, FP32 sums): the baseline of the BF16 table.
inline constexpr const char* kCublasBf16StageId = "cublas_bf16";

/// How a stage computes, and so which table it belongs to and how its result is checked.
enum class Precision {
    kFp32,  ///< FP32 products and sums: the tolerance of verification.hpp
    kTf32,  ///< inputs rounded to TF32 (10-bit mantissa) by the tensor cores: a wider tolerance
    /// BF16 inputs and output, FP32 sums, on the tensor cores: the BF16 table (--precision
    /// bf16), checked against the reference rounded to BF16
    kBf16,
};

/// The tables a run can print: FP32 operands (the FP32 and TF32 rows) or BF16 operands.
enum class Operands { kFp32, kBf16 };
/// "fp32", "bf16".
const char* operands_name(Operands operands);
/// The operands named `name`; throws std::invalid_argument naming the known ones.
Operands parse_operands(const std::string& name);
/// The table a stage of `precision` belongs to.
inline Operands operands_of(Precision precision) {
    return precision == Precision::kBf16 ? Operands::kBf16 : Operands::kFp32;
}

/// What a stage's row says beyond its FP32 launcher.
struct StageNeeds {
    /// The launcher of a BF16 stage (precision kBf16); null for the others and cuBLAS.
    void (*launch_bf16)(const detail::Bf16LaunchArgs&) = nullptr;
    /// The compute capability its kernel needs (8.0 for the tensor-core stages' BF16 MMA); the
    /// run skips it, saying why, on an older GPU.
    int min_compute_capability = 0;  // major * 10 + minor; 0: any
    /// Built for sm_90a alone (wgmma): runs on compute capability 9.0 and nothing else.
    bool sm90a_only = false;
    /// How the stage divides an m x n product on the current GPU, for the table's notes (stage
    /// 14: its resident clusters and tile waves); null for the others.
    std::string (*schedule)(int m, int n) = nullptr;
    Precision precision = Precision::kFp32;
    /// Stages 1 and 2 are slow enough (1% and 9% of the peak) that the bench's big sizes would
    /// spend most of their time on them: timed with fewer repetitions.
    bool slow = false;
};

/// One entry of the stage list (cudatutorial::StageRow): the executable, the tests and the
/// lesson use the same list. Its launcher is an FP32 stage's (stages/matmul_launchers.hpp); null
/// for a BF16 stage (launch_bf16) and for the cuBLAS rows, which the Multiplier calls itself.
using StageInfo = cudatutorial::StageRow<StageNeeds, void (*)(const detail::LaunchArgs&)>;

/// Stage 8's candidate shapes (stages/stage8_tuned_warp_tiling.cu): how many, and each one's
/// name ("128x128 tile, 64x32 warps, next tile ahead"). Candidate 0 is stage 7's shape.
int tuning_candidates();
std::string tuning_candidate_name(int index);

/// Every stage, in table order: 1, 2, ..., cuBLAS, cuBLAS TF32, then the BF16 table's.
const std::vector<StageInfo>& stages();

/// The stage with this id or name, or nullptr.
const StageInfo* find_stage(const std::string& id);

/// Throws std::invalid_argument with a readable message unless every dimension is between 1
/// and kMaxDimension.
void validate_shape(const Shape& shape);

/// Runs one stage (or cuBLAS) on matrices already on the device. The constructor does the
/// setup (cuBLAS's handle and workspace); run() only launches, so that it can be timed. Not
/// copyable.
class Multiplier {
  public:
    /// Throws std::invalid_argument for an unknown stage, a shape validate_shape() refuses, or a
    /// candidate (stage 8's shape, as the tuning pass chose it; -1: stage 7's) out of range or
    /// given to a stage that does not use the tuner.
    Multiplier(const std::string& stage_id, const Shape& shape, int candidate = -1);
    ~Multiplier();
    Multiplier(const Multiplier&) = delete;
    Multiplier& operator=(const Multiplier&) = delete;

    /// C = A . B on `stream`, asynchronous. a: m x k, b: k x n, c: m x n, row-major, as
    /// cudaMalloc gives them (any alignment of 4 bytes is accepted; stages that load 16 bytes
    /// at a time check for it).
    void run(const float* a, const float* b, float* c, cudaStream_t stream) const;
    /// The same for a BF16 stage (precision kBf16): BF16 in and out, FP32 sums. Each run()
    /// throws std::logic_error when given the other stage kind's operands.
    void run(const Bf16* a, const Bf16* b, Bf16* c, cudaStream_t stream) const;

    const StageInfo& stage() const;
    const Shape& shape() const;
    /// The candidate it runs, or -1.
    int candidate() const;
    /// How cuBLAS was asked to compute ("CUBLAS_DEFAULT_MATH: FP32 on the CUDA cores"); empty
    /// for our own stages.
    std::string math_mode() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace matmul
