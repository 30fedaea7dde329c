/// @file verification.hpp
/// @brief How chapter 9 checks a product: against an FP64 reference computed once on the GPU
/// (itself checked against the CPU), exactly on the integer inputs, within a stated tolerance on
/// the normal ones.
///
/// The CPU computes a 4096^3 product in minutes; the GPU in a fraction of a second. So the
/// reference is a plain FP64 kernel (one thread per element, nothing clever to get wrong), and the
/// CPU checks it: every element when m n k is at most kFullCpuCheckWork, otherwise a sample of
/// elements (the corners and the edges included). The stages are then compared with it on the
/// device, element by element.
///
/// The tolerance of the normal inputs, per element: |c - reference| <= tolerance x scale, where
/// scale = sqrt(sum over i of (a_ri b_ic)^2) is the size of the products the element sums. An
/// FP32 sum of k products in any order errs by about 2^-24 sqrt(k) scale (each rounding error is
/// relative to a partial sum that grows like sqrt(i) scale / sqrt(k)); fp32_tolerance() allows
/// 16 times that, plus a floor for short sums. TF32 rounds every input to 10 bits of mantissa
/// first, an error of about 2^-11 scale whatever k is: far outside the FP32 tolerance at every k
/// the chapter runs (a TF32 result fails it: the tests show it), and inside tf32_tolerance().
///
/// The BF16 stages' inputs are BF16 values, and their reference is computed from those same
/// values (round_to_bf16): the inputs' rounding is not an error. Their products are exact in
/// FP32 and their sums FP32, so the FP32 tolerance applies, plus the rounding of the output to
/// BF16; on integers the output must be the reference rounded to the nearest BF16, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "matmul.hpp"

namespace matmul {

/// Work (m n k) up to which the CPU checks every element of the GPU reference.
inline constexpr std::uint64_t kFullCpuCheckWork = std::uint64_t{1} << 27;
/// Elements the CPU checks above that.
inline constexpr std::size_t kSampledElements = 4096;

/// The FP32 tolerance for sums of k products: 16 x 2^-24 x (sqrt(k) + 8).
double fp32_tolerance(std::uint64_t k);
/// The TF32 tolerance: 2^-7, plus the FP32 tolerance.
double tf32_tolerance(std::uint64_t k);
/// The tolerance of a stage computing in `precision`.
double tolerance_for(Precision precision, std::uint64_t k);

/// What a comparison found.
struct Comparison {
    std::uint64_t checked = 0;     ///< elements compared
    std::uint64_t mismatches = 0;  ///< elements outside the tolerance (or not equal, when exact)
    std::uint64_t first = 0;       ///< index of the first mismatch (row-major)
    double got = 0;                ///< the stage's value there
    double want = 0;               ///< the reference's
    double worst_ratio = 0;        ///< the largest |c - reference| / scale seen
    bool passed() const { return mismatches == 0; }
    /// "" when passed; else "3 of 16777216 elements differ; first at (0, 517): got 12, expected
    /// 13" (with the worst error in units of scale when not exact).
    std::string describe(const Shape& shape, bool exact) const;
};

/// The FP64 product of two device matrices, computed on the GPU at construction (value and
/// scale per element, 16 bytes each). Not copyable.
class DeviceReference {
  public:
    /// d_a (m x k) and d_b (k x n) on the device, row-major.
    DeviceReference(const float* d_a, const float* d_b, const Shape& shape);
    ~DeviceReference();
    DeviceReference(const DeviceReference&) = delete;
    DeviceReference& operator=(const DeviceReference&) = delete;

    /// Checks this reference against reference_element() on the CPU, for the same inputs `a` and
    /// `b` (host copies): every element when m n k <= kFullCpuCheckWork, else kSampledElements
    /// of them. `exact`: equal bits (integer inputs); else within 1e-9 x scale (FP64 in another
    /// order). Returns "" or what differed.
    std::string check_against_cpu(const std::vector<float>& a, const std::vector<float>& b,
                                  bool exact) const;
    /// How check_against_cpu() checks: "every element" or "4096 sampled elements".
    std::string cpu_check_words() const;

    /// Compares the device result d_c (m x n) with this reference: exact (the float must equal
    /// the reference) or within `tolerance` x scale. Synchronizes.
    Comparison compare(const float* d_c, bool exact, double tolerance) const;
    /// The same for a BF16 output: exact means equal to the reference rounded to the nearest
    /// BF16; otherwise BF16's rounding (2^-8 of the value) is allowed on top of the tolerance.
    Comparison compare(const Bf16* d_c, bool exact, double tolerance) const;

    const Shape& shape() const { return shape_; }

  private:
    template <class T>
    Comparison compare_output(const T* d_c, bool exact, double tolerance) const;

    Shape shape_;
    double* value_ = nullptr;
    double* scale_ = nullptr;
    void* result_ = nullptr;  // the comparison kernel's counters
};

/// The element indices the CPU checks above kFullCpuCheckWork: the four corners, the middle of
/// each edge, then pseudo-random ones, `count` in all, each below m n. Deterministic.
std::vector<std::uint64_t> sampled_elements(const Shape& shape, std::size_t count);

}  // namespace matmul
