// The CPU side: inputs, the FP64 reference, the tolerances, the sampled elements, the FP32 peak.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "fp32_peak.hpp"
#include "matmul.hpp"
#include "tile_tuning.hpp"
#include "verification.hpp"

using matmul::Pattern;
using matmul::Shape;

TEST(MatmulInputs, IntegersStayInRangeAndCoverIt) {
    const std::vector<float> values = matmul::make_matrix(Pattern::kIntegers, 100000, 7, 1);
    std::set<float> seen(values.begin(), values.end());
    EXPECT_EQ(seen, (std::set<float>{-4, -3, -2, -1, 0, 1, 2, 3, 4}));
}

TEST(MatmulInputs, NormalValuesHaveMeanZeroAndDeviationOne) {
    const std::vector<float> values = matmul::make_matrix(Pattern::kNormal, 1 << 20, 7, 1);
    double sum = 0, squares = 0;
    for (const float v : values) {
        ASSERT_TRUE(std::isfinite(v));
        sum += v;
        squares += static_cast<double>(v) * v;
    }
    const double mean = sum / values.size();
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(std::sqrt(squares / values.size() - mean * mean), 1.0, 0.01);
}

TEST(MatmulInputs, DeterministicPerSeedAndStream) {
    const auto a = matmul::make_matrix(Pattern::kNormal, 4096, 1, 1);
    EXPECT_EQ(a, matmul::make_matrix(Pattern::kNormal, 4096, 1, 1));
    EXPECT_NE(a, matmul::make_matrix(Pattern::kNormal, 4096, 1, 2));  // A and B differ
    EXPECT_NE(a, matmul::make_matrix(Pattern::kNormal, 4096, 2, 1));
    // The first values do not depend on how many are made (counter-based, any thread count).
    const auto longer = matmul::make_matrix(Pattern::kNormal, 3 << 20, 1, 1);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), longer.begin()));
}

TEST(MatmulInputs, PatternNames) {
    EXPECT_EQ(matmul::parse_pattern("integers"), Pattern::kIntegers);
    EXPECT_EQ(matmul::parse_pattern("normal"), Pattern::kNormal);
    EXPECT_EQ(matmul::parse_pattern("sparse"), Pattern::kSparse);
    EXPECT_EQ(matmul::parse_pattern("zeros"), Pattern::kZeros);
    for (const Pattern p :
         {Pattern::kNormal, Pattern::kIntegers, Pattern::kSparse, Pattern::kZeros}) {
        EXPECT_EQ(matmul::parse_pattern(matmul::pattern_name(p)), p);
    }
    const std::vector<float> zeros = matmul::make_matrix(Pattern::kZeros, 1000, 7, 1);
    EXPECT_EQ(std::count(zeros.begin(), zeros.end(), 0.0f), 1000);
    EXPECT_THROW(matmul::parse_pattern("random"), std::invalid_argument);
    EXPECT_EQ(matmul::parse_operands("bf16"), matmul::Operands::kBf16);
    EXPECT_EQ(matmul::parse_operands("fp32"), matmul::Operands::kFp32);
    EXPECT_THROW(matmul::parse_operands("fp16"), std::invalid_argument);
}

TEST(MatmulInputs, SparseProductsStayWithin256SoBf16HoldsThemExactly) {
    // For k from 1 to well past 256 columns: at most 256 nonzeros in every row of A, values
    // -1, 0, +1 in both, every column index of A nonzero in some row (no k is never used), and
    // so every element of C an integer of magnitude <= 256, which BF16 holds exactly.
    for (const std::uint64_t k : {1u, 7u, 255u, 256u, 257u, 1000u, 4093u}) {
        const std::uint64_t m = 40, n = 3;
        const auto a = matmul::make_matrix(Pattern::kSparse, m * k, 3, 1, k);
        const auto b = matmul::make_matrix(Pattern::kSparse, k * n, 3, 2);
        std::set<std::uint64_t> used;
        for (std::uint64_t row = 0; row < m; ++row) {
            int nonzeros = 0;
            for (std::uint64_t col = 0; col < k; ++col) {
                const float v = a[row * k + col];
                ASSERT_TRUE(v == -1 || v == 0 || v == 1) << v;
                if (v != 0) {
                    ++nonzeros;
                }
                // where a nonzero may stand: every column for some row of the first s
                if ((col % ((k + 255) / 256)) == (row % ((k + 255) / 256))) {
                    used.insert(col);
                }
            }
            EXPECT_LE(nonzeros, 256) << "k " << k << " row " << row;
        }
        if (m >= (k + 255) / 256) {
            EXPECT_EQ(used.size(), k) << k;
        }
        std::vector<double> value, scale;
        matmul::reference_product(a.data(), b.data(), Shape{m, n, k}, value, scale);
        for (const double v : value) {
            EXPECT_LE(std::fabs(v), 256.0);
            EXPECT_EQ(
                static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(v)))),
                v);
        }
    }
    const auto b = matmul::make_matrix(Pattern::kSparse, 100000, 3, 2);
    EXPECT_EQ(std::set<float>(b.begin(), b.end()), (std::set<float>{-1, 0, 1}));
}

TEST(MatmulInputs, RoundToBf16KeepsEightSignificantBitsTiesToEven) {
    const std::vector<float> in = {1.0f, 257.0f, 259.0f, 1.0f + 1.0f / 256, 3.14159f, -0.1f};
    const std::vector<float> out = matmul::round_to_bf16(in);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[1], 256.0f);  // 257 is halfway between 256 and 258: to the even 256
    EXPECT_EQ(out[2], 260.0f);  // 259: halfway between 258 and 260, to the even 260
    EXPECT_EQ(out[3], 1.0f);    // 1 + 2^-8 is halfway: to the even 1
    EXPECT_EQ(out[4], 3.140625f);
    EXPECT_EQ(out[5], -0.10009765625f);
}

TEST(MatmulReference, SmallProductByHand) {
    // A = [1 2 3; 4 5 6] (2 x 3), B = [7 8; 9 10; 11 12] (3 x 2): C = [58 64; 139 154].
    const std::vector<float> a = {1, 2, 3, 4, 5, 6};
    const std::vector<float> b = {7, 8, 9, 10, 11, 12};
    std::vector<double> value, scale;
    matmul::reference_product(a.data(), b.data(), Shape{2, 2, 3}, value, scale);
    EXPECT_EQ(value, (std::vector<double>{58, 64, 139, 154}));
    EXPECT_DOUBLE_EQ(scale[0], std::sqrt(7.0 * 7 + 18.0 * 18 + 33.0 * 33));
    const matmul::ReferenceElement e =
        matmul::reference_element(a.data(), b.data(), Shape{2, 2, 3}, 1, 0);
    EXPECT_EQ(e.value, 139);
}

TEST(MatmulReference, ShapeWords) {
    const Shape s{4095, 4097, 4093};
    EXPECT_EQ(s.text(), "4095 x 4097 x 4093");
    EXPECT_DOUBLE_EQ(s.flops(), 2.0 * 4095 * 4097 * 4093);
    EXPECT_NO_THROW(matmul::validate_shape(Shape{1, 1, 1}));
    EXPECT_NO_THROW(matmul::validate_shape(Shape{1 << 20, 1, 1 << 20}));
    EXPECT_THROW(matmul::validate_shape(Shape{0, 1, 1}), std::invalid_argument);
    EXPECT_THROW(matmul::validate_shape(Shape{1, (1 << 20) + 1, 1}), std::invalid_argument);
}

TEST(MatmulTolerance, Fp32AllowsRoundingAndTf32DoesNotFitIt) {
    // FP32 at k = 4096: 16 x 2^-24 x 72 = 6.9e-5 of the scale; TF32 alone errs by ~2^-11 =
    // 4.9e-4 per product (relative): at k = 2^20 the FP32 tolerance is 9.8e-4, still below the
    // TF32 one (7.8e-3 + that).
    EXPECT_NEAR(matmul::fp32_tolerance(4096), 16.0 * 72 / 16777216.0, 1e-12);
    for (const std::uint64_t k : {1ull, 64ull, 4096ull, 1ull << 20}) {
        EXPECT_LT(matmul::fp32_tolerance(k), std::ldexp(1.0, -9)) << k;
        EXPECT_GT(matmul::tf32_tolerance(k), std::ldexp(1.0, -8)) << k;
    }
    EXPECT_EQ(matmul::tolerance_for(matmul::Precision::kTf32, 64), matmul::tf32_tolerance(64));
}

TEST(MatmulTolerance, SampledElementsIncludeCornersAndStayInside) {
    const Shape s{4095, 4097, 1};
    const auto picks = matmul::sampled_elements(s, 4096);
    ASSERT_EQ(picks.size(), 4096u);
    for (const std::uint64_t i : picks) {
        ASSERT_LT(i, s.m * s.n);
    }
    for (const std::uint64_t corner : {0ull, 4096ull, 4094ull * 4097, 4095ull * 4097 - 1}) {
        EXPECT_NE(std::find(picks.begin(), picks.end(), corner), picks.end()) << corner;
    }
    EXPECT_EQ(picks, matmul::sampled_elements(s, 4096));
    EXPECT_EQ(matmul::sampled_elements(Shape{1, 1, 1}, 3).size(), 3u);
}

namespace {

/// An H100 as the device query describes it: 132 SMs, compute capability 9.0, 1980 MHz.
cudatutorial::DeviceInfo h100_info() {
    cudatutorial::DeviceInfo h100;
    h100.sm_count = 132;
    h100.cc_major = 9;
    h100.sm_clock_khz = 1980000;
    return h100;
}

/// Three NVML readings whose highest SM clock was `mhz`.
cudatutorial::ClockObservation clocks_seen_at(unsigned mhz) {
    cudatutorial::ClockObservation seen;
    seen.samples = 3;
    seen.sm_mhz_max = mhz;
    return seen;
}

}  // namespace

TEST(MatmulPeak, LanesAndPeakFromTheClockSeen) {
    EXPECT_EQ(matmul::fp32_lanes_per_sm(9, 0).lanes, 128);
    EXPECT_EQ(matmul::fp32_lanes_per_sm(8, 0).lanes, 64);
    EXPECT_EQ(matmul::fp32_lanes_per_sm(8, 6).lanes, 128);
    EXPECT_EQ(matmul::fp32_lanes_per_sm(7, 5).lanes, 64);
    EXPECT_FALSE(matmul::fp32_lanes_per_sm(42, 0).known);
    const cudatutorial::DeviceInfo h100 = h100_info();
    const cudatutorial::ClockObservation seen = clocks_seen_at(1755);
    const matmul::Fp32Peak observed = matmul::fp32_peak(h100, seen);
    EXPECT_NEAR(observed.tflops, 132 * 128 * 2 * 1755e6 / 1e12, 1e-9);
    EXPECT_NE(observed.describe().find("1755 MHz (the highest SM clock seen"), std::string::npos);
    const matmul::Fp32Peak nominal = matmul::fp32_peak(h100, {});
    EXPECT_NEAR(nominal.tflops, 66.9, 0.05);  // 132 x 128 x 2 x 1.98 GHz
    EXPECT_NE(nominal.describe().find("NVML saw none"), std::string::npos);
}

TEST(MatmulPeak, Bf16TensorPeakKnownOnlyWhereTheDataSheetSaysIt) {
    EXPECT_EQ(matmul::bf16_flops_per_clock_per_sm(9, 0), 4096);
    EXPECT_EQ(matmul::bf16_flops_per_clock_per_sm(8, 0), 2048);
    EXPECT_EQ(matmul::bf16_flops_per_clock_per_sm(8, 6), 0);
    const cudatutorial::DeviceInfo h100 = h100_info();
    const cudatutorial::ClockObservation seen = clocks_seen_at(1830);
    EXPECT_NEAR(matmul::bf16_peak(h100, seen).tflops, 989.4, 0.1);  // the data sheet: 989.4
    cudatutorial::DeviceInfo laptop;
    laptop.cc_major = 8;
    laptop.cc_minor = 6;
    laptop.sm_count = 30;
    EXPECT_EQ(matmul::bf16_peak(laptop, seen).tflops, 0.0);
    EXPECT_NE(matmul::bf16_peak(laptop, seen).describe().find("unknown"), std::string::npos);
}

TEST(MatmulTuning, OnlyShapesWithFloat4RowsAreTunedAndTheHeaderSaysSo) {
    EXPECT_TRUE(matmul::tuning::shape_allows_tuning(Shape{4095, 4096, 4092}));
    EXPECT_FALSE(matmul::tuning::shape_allows_tuning(Shape{4096, 4097, 4096}));
    EXPECT_FALSE(matmul::tuning::shape_allows_tuning(Shape{4096, 4096, 4093}));
    matmul::tuning::TuningResult result;
    result.timings = {
        {0, "a", 2.0, true, ""}, {1, "b", 1.5, true, ""}, {2, "c", 0, false, "wrong"}};
    result.chosen = 1;
    cudatutorial::RunInfo info;
    matmul::tuning::describe_choice(result, info);
    ASSERT_EQ(info.parameters.size(), 1u);
    const std::string& text = info.parameters[0].second;
    EXPECT_EQ(text.rfind("b, the fastest of 3 candidates", 0), 0u) << text;
    EXPECT_NE(text.find("a: 2.000 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("c: FAIL (wrong)"), std::string::npos) << text;
    matmul::tuning::TuningResult skipped;
    skipped.skipped_because = "k and n are not both multiples of 4";
    cudatutorial::RunInfo other;
    matmul::tuning::describe_choice(skipped, other);
    EXPECT_EQ(other.parameters[0].second, skipped.skipped_because);
}
