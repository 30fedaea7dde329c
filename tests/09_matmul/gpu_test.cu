// Every stage against the FP64 reference on shapes that break tiles, bit for bit on integers and
// within the FP32 tolerance on normal data; the TF32 row as the negative control; the BF16 stages
// bit for bit against the exact sums rounded to BF16 (on -4..4, and on the sparse data whose
// every sum BF16 holds exactly); the executable end to end. Skipped without a GPU; smaller shapes
// under compute-sanitizer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cudatutorial/device_buffer.hpp"
#include "gpu_test.hpp"
#include "matmul.hpp"
#include "process.hpp"
#include "verification.hpp"

namespace ct = cudatutorial;
using matmul::Pattern;
using matmul::Shape;

namespace {

std::vector<matmul::Bf16> to_bf16(const std::vector<float>& values) {
    std::vector<matmul::Bf16> out;
    for (const float v : values) {
        out.push_back(__float2bfloat16_rn(v));
    }
    return out;
}

/// One shape's inputs on the device with their FP64 reference (checked against the CPU); with
/// `bf16`, the inputs rounded to BF16 and BF16 copies of them for the BF16 stages.
struct Inputs {
    Shape shape;
    Pattern pattern;
    std::vector<float> a, b;
    ct::DeviceBuffer<float> d_a, d_b, d_c;
    ct::DeviceBuffer<matmul::Bf16> d_a16, d_b16, d_c16;
    matmul::DeviceReference reference;

    Inputs(const Shape& s, Pattern p, bool bf16 = false)
        : shape(s),
          pattern(p),
          a(maybe_rounded(matmul::make_matrix(p, s.m * s.k, 11, 1, s.k), bf16)),
          b(maybe_rounded(matmul::make_matrix(p, s.k * s.n, 11, 2), bf16)),
          d_a(a),
          d_b(b),
          d_c(s.m * s.n),
          d_a16(bf16 ? to_bf16(a) : std::vector<matmul::Bf16>()),
          d_b16(bf16 ? to_bf16(b) : std::vector<matmul::Bf16>()),
          d_c16(bf16 ? s.m * s.n : 0),
          reference(d_a.data(), d_b.data(), s) {}

    bool exact() const { return pattern != Pattern::kNormal; }

    /// Runs `stage` (its output poisoned with NaN first) and compares with the reference.
    matmul::Comparison run(const std::string& stage, double tolerance) {
        const matmul::Multiplier multiplier(stage, shape);
        if (multiplier.stage().precision == matmul::Precision::kBf16) {
            d_c16.fill_bytes(0xff);
            multiplier.run(d_a16.data(), d_b16.data(), d_c16.data(), nullptr);
            CT_CHECK(cudaDeviceSynchronize());
            return reference.compare(d_c16.data(), exact(), tolerance);
        }
        d_c.fill_bytes(0xff);
        multiplier.run(d_a.data(), d_b.data(), d_c.data(), nullptr);
        CT_CHECK(cudaDeviceSynchronize());
        return reference.compare(d_c.data(), exact(), tolerance);
    }

  private:
    static std::vector<float> maybe_rounded(std::vector<float> values, bool bf16) {
        return bf16 ? matmul::round_to_bf16(values) : values;
    }
};

/// This GPU's compute capability, major * 10 + minor.
int compute_capability() {
    int device = 0, major = 0, minor = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CT_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return major * 10 + minor;
}

/// Whether the GPU has BF16 tensor cores (compute capability 8.0 or later).
bool has_bf16_tensor_cores() {
    return compute_capability() >= 80;
}

std::vector<Shape> shapes() {
    if (ct::testing::sanitizing()) {  // several tiles in every dimension, still small
        // {129, 131, 97}: 13 k-tiles of 8, so stage 9's ring of buffers wraps more than twice.
        return {{1, 1, 1}, {33, 65, 17}, {130, 129, 33}, {257, 129, 9}, {129, 131, 97}};
    }
    return {{1, 1, 1},          {7, 7, 7},          {33, 33, 33},       {127, 127, 127},
            {1025, 1025, 1025}, {4095, 4097, 4093}, {1, 4097, 31},      {4097, 1, 31},
            {2049, 33, 63},     {33, 2049, 1023},   {65, 63, 8193},     {31, 32, 1},
            {8192, 256, 64},    {256, 8192, 64},    {1023, 1024, 1025}, {129, 127, 4097}};
}

/// Our own FP32 stages.
std::vector<std::string> our_stages() {
    std::vector<std::string> ids;
    for (const matmul::StageInfo& stage : matmul::stages()) {
        if (stage.launch != nullptr) {
            ids.push_back(stage.id);
        }
    }
    return ids;
}

/// Every row of the BF16 table this GPU runs: our tensor-core stages (the sm_90a ones on 9.0
/// only) and cuBLAS's BF16 GEMM.
std::vector<std::string> bf16_rows() {
    std::vector<std::string> ids;
    for (const matmul::StageInfo& stage : matmul::stages()) {
        if (stage.precision == matmul::Precision::kBf16 &&
            (!stage.sm90a_only || compute_capability() == 90)) {
            ids.push_back(stage.id);
        }
    }
    return ids;
}

}  // namespace

TEST(MatmulGpu, ReferenceMatchesTheCpu) {
    CT_REQUIRE_GPU();
    for (const Shape& s : {Shape{33, 65, 17}, Shape{300, 200, 1000}}) {
        for (const Pattern p : {Pattern::kIntegers, Pattern::kNormal}) {
            Inputs in(s, p);
            EXPECT_EQ(in.reference.check_against_cpu(in.a, in.b, p == Pattern::kIntegers), "")
                << s.text();
        }
    }
}

TEST(MatmulGpu, EveryStageExactOnIntegersAtEdgeShapes) {
    CT_REQUIRE_GPU();
    for (const Shape& s : shapes()) {
        Inputs in(s, Pattern::kIntegers);
        for (const std::string& id : our_stages()) {
            if (id == "1" && s.m * s.n * s.k > (1ull << 33) && !ct::testing::sanitizing()) {
                continue;  // the naive stage at 4095 x 4097 x 4093: seconds, nothing new
            }
            const matmul::Comparison found = in.run(id, 0);
            EXPECT_TRUE(found.passed())
                << "stage " << id << " at " << s.text() << ": " << found.describe(s, true);
        }
    }
}

TEST(MatmulGpu, EveryStage8CandidateExactOnIntegers) {
    // Shapes whose rows allow 16-byte loads (k and n multiples of 4: the candidates differ) and
    // shapes whose rows do not (every candidate falls back to stage 7's scalar kernel).
    CT_REQUIRE_GPU();
    const std::vector<Shape> list =
        ct::testing::sanitizing()
            ? std::vector<Shape>{{33, 36, 12}, {130, 132, 20}, {65, 66, 17}}
            : std::vector<Shape>{{1, 4, 4},          {33, 36, 12},    {257, 260, 1028},
                                 {4095, 4096, 4092}, {129, 132, 8},   {1, 1, 1},
                                 {65, 66, 17},       {300, 4097, 64}, {1000, 8, 4}};
    for (const Shape& s : list) {
        Inputs in(s, Pattern::kIntegers);
        for (int candidate = 0; candidate < matmul::tuning_candidates(); ++candidate) {
            const matmul::Multiplier multiplier("8", s, candidate);
            in.d_c.fill_bytes(0xff);
            multiplier.run(in.d_a.data(), in.d_b.data(), in.d_c.data(), nullptr);
            CT_CHECK(cudaDeviceSynchronize());
            const matmul::Comparison found = in.reference.compare(in.d_c.data(), true, 0);
            EXPECT_TRUE(found.passed()) << matmul::tuning_candidate_name(candidate) << " at "
                                        << s.text() << ": " << found.describe(s, true);
        }
    }
}

TEST(MatmulGpu, EveryRowWithinItsToleranceOnNormalData) {
    CT_REQUIRE_GPU();
    const std::vector<Shape> list = ct::testing::sanitizing()
                                        ? std::vector<Shape>{{65, 33, 129}}
                                        : std::vector<Shape>{{127, 129, 4093}, {1024, 1024, 1024}};
    for (const Shape& s : list) {
        Inputs in(s, Pattern::kNormal);
        for (const matmul::StageInfo& stage : matmul::stages()) {
            if (stage.precision == matmul::Precision::kBf16) {
                continue;  // below, on BF16 inputs
            }
            const matmul::Comparison found =
                in.run(stage.id, matmul::tolerance_for(stage.precision, s.k));
            EXPECT_TRUE(found.passed())
                << "stage " << stage.id << " at " << s.text() << ": " << found.describe(s, false);
        }
    }
}

TEST(MatmulGpu, Tf32IsExactOnIntegersButFailsTheFp32Tolerance) {
    // The negative control: small integers are exact in TF32 too, so only the normal data can
    // tell an FP32 product from a TF32 one - and the FP32 tolerance must.
    CT_REQUIRE_GPU();
    const Shape s = ct::testing::sanitizing() ? Shape{64, 64, 64} : Shape{512, 512, 512};
    Inputs integers(s, Pattern::kIntegers);
    EXPECT_TRUE(integers.run("tf32", 0).passed());
    Inputs normal(s, Pattern::kNormal);
    const matmul::Comparison as_fp32 = normal.run("tf32", matmul::fp32_tolerance(s.k));
    EXPECT_FALSE(as_fp32.passed()) << "TF32 passed the FP32 tolerance: the check cannot tell";
    EXPECT_GT(as_fp32.mismatches, s.m * s.n / 2) << as_fp32.describe(s, false);
    EXPECT_TRUE(normal.run("tf32", matmul::tf32_tolerance(s.k)).passed());
    EXPECT_TRUE(normal.run("cublas", matmul::fp32_tolerance(s.k)).passed());
}

TEST(MatmulGpu, ACorruptedElementIsFound) {
    CT_REQUIRE_GPU();
    Inputs in(Shape{65, 67, 33}, Pattern::kIntegers);
    ASSERT_TRUE(in.run("5", 0).passed());
    const float wrong = 12345.0f;
    CT_CHECK(cudaMemcpy(in.d_c.data() + 66 * 67 / 2, &wrong, sizeof wrong, cudaMemcpyHostToDevice));
    const matmul::Comparison found = in.reference.compare(in.d_c.data(), true, 0);
    EXPECT_EQ(found.mismatches, 1u);
    EXPECT_EQ(found.first, 66u * 67 / 2);
}

TEST(MatmulGpu, Bf16RowsExactOnIntegersAndSparseAtEdgeShapes) {
    // Integers -4..4: C must be the exact sum rounded to the nearest BF16 (an error smaller than
    // half a BF16 step of a sum above 256 would hide there); sparse -1/0/+1: every sum within
    // +-256, exact in BF16, so a single lost product shows.
    CT_REQUIRE_GPU();
    if (!has_bf16_tensor_cores()) {
        GTEST_SKIP() << "BF16 tensor cores need compute capability 8.0";
    }
    std::vector<Shape> list = shapes();
    // 17 k-tiles of 32 with 16-byte rows: the ring of stage 11 (4 buffers) wraps four times.
    list.push_back({65, 72, 520});
    if (!ct::testing::sanitizing()) {
        list.push_back({129, 136, 200});  // 16-byte rows, k-tiles of 32 not dividing k
        list.push_back({256, 256, 1});
        // 17 x 16 tiles of 256 x 256, more than a GPU holds clusters of stage 14 at once (66 on
        // an H100): each cluster runs several, its ring's phases carried from tile to tile (4
        // k-tiles of 64 each, the last partial); the last row of tiles has 8 rows, the second
        // block of its clusters none.
        list.push_back({4104, 4040, 200});
    }
    for (const Shape& s : list) {
        for (const Pattern p : {Pattern::kIntegers, Pattern::kSparse}) {
            Inputs in(s, p, true);
            for (const std::string& id : bf16_rows()) {
                const matmul::Comparison found = in.run(id, 0);
                EXPECT_TRUE(found.passed())
                    << "stage " << id << " at " << s.text() << " on " << matmul::pattern_name(p)
                    << ": " << found.describe(s, true);
            }
        }
    }
}

TEST(MatmulGpu, Bf16RowsWithinTheirToleranceOnNormalData) {
    CT_REQUIRE_GPU();
    if (!has_bf16_tensor_cores()) {
        GTEST_SKIP() << "BF16 tensor cores need compute capability 8.0";
    }
    const std::vector<Shape> list = ct::testing::sanitizing()
                                        ? std::vector<Shape>{{65, 33, 129}}
                                        : std::vector<Shape>{{127, 129, 4093}, {1024, 1024, 1024}};
    for (const Shape& s : list) {
        Inputs in(s, Pattern::kNormal, true);
        for (const std::string& id : bf16_rows()) {
            const matmul::Comparison found =
                in.run(id, matmul::tolerance_for(matmul::Precision::kBf16, s.k));
            EXPECT_TRUE(found.passed())
                << "stage " << id << " at " << s.text() << ": " << found.describe(s, false);
        }
    }
}

TEST(MatmulGpu, Bf16CheckCatchesTruncationAndOneLostProduct) {
    // The BF16 comparison's negative controls: the exact sums truncated to BF16 instead of
    // rounded fail on integers, and one product (+-1) missing from one sparse sum fails too.
    CT_REQUIRE_GPU();
    const Shape s{64, 96, 300};
    Inputs integers(s, Pattern::kIntegers, true);
    std::vector<double> value, scale;
    matmul::reference_product(integers.a.data(), integers.b.data(), s, value, scale);
    std::vector<matmul::Bf16> truncated, rounded;
    for (const double v : value) {
        truncated.push_back(__float2bfloat16_rz(static_cast<float>(v)));
        rounded.push_back(__float2bfloat16_rn(static_cast<float>(v)));
    }
    integers.d_c16.copy_from_host(rounded);
    EXPECT_TRUE(integers.reference.compare(integers.d_c16.data(), true, 0).passed());
    integers.d_c16.copy_from_host(truncated);
    EXPECT_GT(integers.reference.compare(integers.d_c16.data(), true, 0).mismatches, 0u);

    Inputs sparse(s, Pattern::kSparse, true);
    matmul::reference_product(sparse.a.data(), sparse.b.data(), s, value, scale);
    std::vector<matmul::Bf16> one_lost;
    for (const double v : value) {
        one_lost.push_back(__float2bfloat16_rn(static_cast<float>(v)));
    }
    const std::size_t where = 40 * s.n + 7;
    one_lost[where] = __float2bfloat16_rn(static_cast<float>(value[where] + 1.0));
    sparse.d_c16.copy_from_host(one_lost);
    const matmul::Comparison found = sparse.reference.compare(sparse.d_c16.data(), true, 0);
    EXPECT_EQ(found.mismatches, 1u);
    EXPECT_EQ(found.first, where);
}

TEST(MatmulGpu, ExecutableEndToEnd) {
    CT_REQUIRE_GPU();
    if (ct::testing::sanitizing()) {
        GTEST_SKIP() << "the kernels are sanitized in-process above";
    }
    for (const char* args :
         {"--size 257 --reps 3", "--m 1025 --n 33 --k 4093 --data integers --reps 2",
          "--size 64 --stage 3,cublas --reps 2"}) {
        SCOPED_TRACE(args);
        const auto result = ct::testing::run_process(std::string(MATMUL_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 0) << result.output;
        EXPECT_NE(result.output.find("% of FP32 peak"), std::string::npos) << result.output;
        EXPECT_EQ(result.output.find("FAIL"), std::string::npos) << result.output;
    }
    if (!has_bf16_tensor_cores()) {
        return;
    }
    for (const char* args : {"--precision bf16 --size 257 --reps 3",
                             "--precision bf16 --m 1025 --n 33 --k 4093 --data sparse --reps 2"}) {
        SCOPED_TRACE(args);
        const auto result = ct::testing::run_process(std::string(MATMUL_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 0) << result.output;
        EXPECT_NE(result.output.find("BF16 peak"), std::string::npos) << result.output;
        EXPECT_NE(result.output.find("cublas_bf16"), std::string::npos) << result.output;
        EXPECT_EQ(result.output.find("FAIL"), std::string::npos) << result.output;
    }
}

TEST(MatmulGpu, RoundsPowerAndZerosEndToEnd) {
    // The interleaved rounds give every stage's row its median ratio and range; zeros are timed
    // and every row is still checked on the integers (a kernel writing only zeros would pass
    // on zeros alone).
    CT_REQUIRE_GPU();
    if (ct::testing::sanitizing() || !has_bf16_tensor_cores()) {
        GTEST_SKIP() << (ct::testing::sanitizing()
                             ? "sanitized in-process above"
                             : "BF16 tensor cores need compute capability 8.0");
    }
    const std::string stages = compute_capability() == 90 ? "11,14,cublas_bf16" : "11,cublas_bf16";
    const auto rounds = ct::testing::run_process(std::string(MATMUL_BIN) +
                                                 " --precision bf16 --size 512 --reps 3 --rounds 3 "
                                                 "--power 0.2 --stage " +
                                                 stages);
    EXPECT_EQ(rounds.exit_code, 0) << rounds.output;
    EXPECT_NE(rounds.output.find("x cuBLAS, rounds"), std::string::npos) << rounds.output;
    EXPECT_NE(rounds.output.find("rounds 3 (each: every stage, then cuBLAS"), std::string::npos)
        << rounds.output;
    EXPECT_EQ(rounds.output.find("FAIL"), std::string::npos) << rounds.output;
    const auto zeros =
        ct::testing::run_process(std::string(MATMUL_BIN) +
                                 " --precision bf16 --size 300 --reps 2 --power 0 --data zeros "
                                 "--stage 11,cublas_bf16");
    EXPECT_EQ(zeros.exit_code, 0) << zeros.output;
    EXPECT_NE(zeros.output.find("data zeros"), std::string::npos) << zeros.output;
    EXPECT_NE(zeros.output.find("then integers -4..4, checked bit for bit"), std::string::npos)
        << zeros.output;
}
