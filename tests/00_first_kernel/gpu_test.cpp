// GPU tests of chapter 0: every stage at sizes around warps, blocks and powers of two, with
// several block sizes, checked bit for bit with a canary behind every array; the labelled wrong
// answers caught where they must be; the index map, the timing methods and the whole program.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "first_kernel.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

namespace ct = cudatutorial;
namespace fk = first_kernel;

using cudatutorial::testing::run_process;
using cudatutorial::testing::sanitizing;

namespace {

constexpr std::size_t kCanary = fk::kDefaultCanary;

// Why the tests that run the executable skip under compute-sanitizer: measured on an H100 with
// CUDA 13.0, the child never finished (with and without --target-processes application-only),
// while the same command under the sanitizer alone ran clean in a second. The tests in this file
// sanitize the same kernels in their own process.
constexpr const char* kChildUnderSanitizer =
    "runs the executable in a child process, which does not finish under compute-sanitizer; "
    "the other tests sanitize its kernels in this process";

std::vector<std::size_t> sizes() {
    if (sanitizing()) {
        return {1, 33, 1025, 4099};
    }
    return {1, 31, 32, 33, 1023, 1024, 1025, 65535, 65537, (std::size_t{1} << 20) + 3};
}

std::vector<int> blocks() {
    return sanitizing() ? std::vector<int>{32, 256} : std::vector<int>{32, 64, 256, 1024};
}

// The arrays of every vector-add test: a canary of kCanary slots behind each.
using AddCase = fk::VectorAddArrays;

const fk::AddStage& add_stage(const std::string& id) {
    for (const auto& stage : fk::add_stages()) {
        if (stage.id == id) {
            return stage;
        }
    }
    throw std::logic_error("no stage " + id);
}

}  // namespace

TEST(FirstKernelGpu, VectorAddStagesAreExactAtEverySize) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo device = ct::select_device(0);
    for (const std::size_t n : sizes()) {
        AddCase data(n, kCanary, 11);
        for (const int block : blocks()) {
            const int full =
                fk::grid_stride_default_grid(n, block, device.sm_count, device.max_threads_per_sm);
            for (const char* id : {"1", "2", "thrust"}) {
                for (const int grid : {full, 1, 3}) {
                    if (std::string(id) != "2" && grid != full) {
                        continue;  // only the grid-stride stage takes a grid
                    }
                    SCOPED_TRACE(std::string("stage ") + id + ", n = " + std::to_string(n) +
                                 ", block " + std::to_string(block) + ", grid " +
                                 std::to_string(grid));
                    const ct::Verification check = data.run(add_stage(id), block, grid);
                    EXPECT_TRUE(check.passed) << check.detail;
                }
            }
        }
    }
}

TEST(FirstKernelGpu, TheMissingGuardWritesIntoTheCanaryExactlyWhenTheLastBlockIsPartial) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "stage 1x reads past its arrays on purpose (into their canary)";
    }
    ct::select_device(0);
    for (const std::size_t n : sizes()) {
        AddCase data(n, kCanary, 11);
        for (const int block : blocks()) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", block " + std::to_string(block));
            const ct::Verification check = data.run(add_stage("1x"), block, 0);
            if (n % static_cast<std::size_t>(block) == 0) {
                EXPECT_TRUE(check.passed) << check.detail;  // no partial block: the bug hides
            } else {
                EXPECT_FALSE(check.passed);
                EXPECT_NE(check.detail.find("past the end"), std::string::npos) << check.detail;
            }
        }
    }
}

TEST(FirstKernelGpu, StencilStagesAreExactForEveryRadius) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::vector<std::size_t> stencil_sizes =
        sanitizing() ? std::vector<std::size_t>{1, 2, 33, 1025}
                     : std::vector<std::size_t>{
                           1, 2, 31, 33, 1023, 1025, 4099, 65537, (std::size_t{1} << 20) + 3};
    for (const std::size_t n : stencil_sizes) {
        const std::vector<int> input = fk::make_stencil_input(n, 5);
        std::vector<int> padded = input;
        padded.resize(n + kCanary, 0);
        ct::DeviceBuffer<int> d_in(padded);
        ct::DeviceBuffer<int> d_out(n + kCanary);
        for (const int radius : {1, 3, fk::kMaxRadius}) {
            const std::vector<int> expected = fk::stencil_reference(input, radius);
            for (const int block : blocks()) {
                for (const auto& stage : fk::stencil_stages()) {
                    if (stage.role == ct::StageRole::kExpectedFailure) {
                        continue;  // 4x: a race, right or wrong by chance (racecheck sees it)
                    }
                    SCOPED_TRACE("stage " + stage.id + ", n = " + std::to_string(n) + ", radius " +
                                 std::to_string(radius) + ", block " + std::to_string(block));
                    d_out.fill_bytes(0xff);
                    stage.launch(d_in.data(), d_out.data(), n, radius, block, nullptr);
                    const ct::Verification check = fk::verify_stencil(expected, d_out.to_host());
                    EXPECT_TRUE(check.passed) << check.detail;
                }
            }
        }
    }
}

TEST(FirstKernelGpu, IndexMapFollowsTheFormula) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    for (const auto& [grid, block, n] : {std::tuple{3, 4, 10}, std::tuple{1, 32, 1},
                                         std::tuple{5, 64, 300}, std::tuple{2, 1024, 1025}}) {
        std::vector<fk::ThreadRecord> records;
        std::vector<int> out;
        fk::record_indices(grid, block, n, records, out);
        const ct::Verification check = fk::verify_index_map(records, out, grid, block, n);
        EXPECT_TRUE(check.passed) << check.detail;
    }
}

TEST(FirstKernelGpu, TheFiveTimingMethodsTimeAndLeaveACorrectResult) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::size_t n = sanitizing() ? 4099 : (std::size_t{1} << 22) + 1;
    AddCase data(n, kCanary, 11);
    data.d_c.fill_bytes(0xff);
    const auto methods =
        fk::time_five_ways(data.d_a.data(), data.d_b.data(), data.d_c.data(), n, 256, 5, 1);
    ASSERT_EQ(methods.size(), 5u);
    const std::vector<std::string> ids = {"t1", "t2", "t3", "t4", "t5"};
    for (std::size_t i = 0; i < methods.size(); ++i) {
        EXPECT_EQ(methods[i].id, ids[i]);
        EXPECT_GT(methods[i].stats.median_ms, 0.0) << methods[i].name;
        EXPECT_EQ(methods[i].stats.samples, methods[i].id == "t3" ? 1 : 5) << methods[i].name;
    }
    // Launch alone against launch + wait for the same kernel: the first cannot take longer.
    EXPECT_LT(methods[0].stats.median_ms, methods[1].stats.median_ms);
    const ct::Verification check = fk::verify_vector_add(data.a, data.b, data.d_c.to_host(), n);
    EXPECT_TRUE(check.passed) << check.detail;
}

// The whole program: every section, every row verified (exit 0), the errors section's child
// process included; then the labelled wrong answers on their own.
TEST(FirstKernelGpu, TheWholeProgramVerifiesEverySection) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "the errors section makes CUDA errors on purpose (a sanitizer reports "
                        "them); its stages are sanitized by the tests above";
    }
    const auto result =
        run_process(std::string(FIRST_KERNEL_BIN) + " --n 1048579 --reps 3 --warmup 1 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* text : {"Which thread works on which element", "What a failing launch",
                             "cudaErrorMemoryAllocation", "cudaErrorIllegalAddress",
                             "FAIL (expected)", "stencil_shared", "host_clock_launch_only"}) {
        EXPECT_NE(result.output.find(text), std::string::npos) << text;
    }
    EXPECT_EQ(result.output.find("NO (expected"), std::string::npos) << result.output;
    // The two printed checks (the index map, the errors) and the three tables' verdicts.
    const auto count = [&](const std::string& text) {
        int found = 0;
        for (auto at = result.output.find(text); at != std::string::npos;
             at = result.output.find(text, at + 1)) {
            ++found;
        }
        return found;
    };
    EXPECT_EQ(count("check: PASS"), 2) << result.output;
    EXPECT_EQ(count("All results verified against the CPU reference."), 3) << result.output;
}

// The raw-API vector add (cudaMalloc, cudaMemcpy, cudaFree written out) gives stage 1's answer.
TEST(FirstKernelGpu, TheRawApiVectorAddIsExact) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    for (const std::size_t n : sizes()) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const std::vector<float> a = ct::random_floats(n, 21, -1.0f, 1.0f);
        const std::vector<float> b = ct::random_floats(n, 22, -1.0f, 1.0f);
        const ct::Verification check =
            fk::verify_vector_add(a, b, fk::vector_add_raw_api(a, b, 256), n);
        EXPECT_TRUE(check.passed) << check.detail;
    }
}

// Every row of the managed section - inputs copied, faulted over, prefetched, resident - at
// sizes around blocks and pages, each element checked against the CPU (and c's canary). Rows
// that need concurrent managed access are skipped where the GPU has none, as in the program.
TEST(FirstKernelGpu, ManagedRowsAreExactAtEverySize) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo device = ct::select_device(0);
    const bool concurrent = fk::concurrent_managed_access(device.id);
    const std::vector<std::size_t> managed_sizes =
        sanitizing() ? std::vector<std::size_t>{1, 33, 1025, 4099}
                     : std::vector<std::size_t>{1, 33, 1025, (std::size_t{1} << 20) + 3};
    for (const std::size_t n : managed_sizes) {
        fk::ManagedVectorAdd data(n, kCanary, 11, concurrent);
        for (const int block : {32, 256}) {
            for (const fk::ManagedRow& row : fk::managed_rows()) {
                if (row.needs_concurrent_access && !concurrent) {
                    continue;
                }
                SCOPED_TRACE(std::string(row.timed) + " / " + row.id +
                             ", n = " + std::to_string(n) + ", block " + std::to_string(block));
                row.reset(data, nullptr);
                CT_CHECK(cudaDeviceSynchronize());
                row.launch(data, block, nullptr);
                CT_CHECK(cudaDeviceSynchronize());
                const ct::Verification check = row.verify(data);
                EXPECT_TRUE(check.passed) << check.detail;
            }
        }
    }
    if (!concurrent) {
        GTEST_SKIP() << "the cudaMalloc rows passed; the managed rows need concurrent managed "
                        "access, which this GPU lacks";
    }
}

// The per-sample protocol of the "inputs in + add" rows: every sample timed, both checks pass.
TEST(FirstKernelGpu, ManagedRowsFromTheHostTimeEverySampleAndStayCorrect) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo device = ct::select_device(0);
    const bool concurrent = fk::concurrent_managed_access(device.id);
    fk::ManagedVectorAdd data(sanitizing() ? 4099 : (std::size_t{1} << 20) + 3, kCanary, 11,
                              concurrent);
    ct::BenchmarkConfig config;
    config.warmup = 1;
    config.repetitions = 3;
    for (const fk::ManagedRow& row : fk::managed_rows()) {
        if (row.timed != std::string(fk::kFromHost) ||
            (row.needs_concurrent_access && !concurrent)) {
            continue;
        }
        SCOPED_TRACE(row.id);
        int setups = 0;
        ct::StageHooks hooks;
        hooks.setup_each_sample = [&](cudaStream_t stream) {
            ++setups;
            row.reset(data, stream);
        };
        hooks.launch = [&](cudaStream_t stream) { row.launch(data, 256, stream); };
        hooks.verify = [&] { return row.verify(data); };
        const ct::ResultRow measured = ct::time_stage(row, hooks, config);
        EXPECT_TRUE(measured.passed) << measured.detail;
        EXPECT_EQ(measured.stats.samples, 3);
        EXPECT_GT(measured.stats.median_ms, 0.0);
        EXPECT_EQ(setups, 1 + 1 + 3);  // the validated sample, one warm-up, three timed
    }
}

// The section itself: opt-in, alone in its run, every row verified (or skipped with a reason).
TEST(FirstKernelGpu, TheManagedSectionVerifiesEveryRow) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << kChildUnderSanitizer;
    }
    const ct::DeviceInfo device = ct::select_device(0);
    const auto result = run_process(std::string(FIRST_KERNEL_BIN) +
                                    " --section managed --n 1048579 --reps 3 --warmup 1 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("All results verified against the CPU reference."),
              std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find("cudaMemcpy_then_add"), std::string::npos) << result.output;
    const bool concurrent = fk::concurrent_managed_access(device.id);
    for (const char* row : {"managed_first_touch", "managed_prefetch", "managed_resident"}) {
        EXPECT_EQ(result.output.find(row) != std::string::npos, concurrent) << row;
    }
    EXPECT_EQ(result.output.find("Which thread"), std::string::npos) << result.output;
}

TEST(FirstKernelGpu, AStageListRunsOnlyItsSection) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << kChildUnderSanitizer;
    }
    const auto result =
        run_process(std::string(FIRST_KERNEL_BIN) + " --stage 4 --n 4099 --reps 2 --warmup 0 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("stencil_shared"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("vector_add"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("Which thread"), std::string::npos) << result.output;
}

// Opt-in (CT_LARGE_TESTS=1; 24 GiB of device memory, as much host memory): n = 2^31 + 5, so
// element indices pass 2^31 - 1, where the textbooks' `int i = blockIdx.x * blockDim.x +
// threadIdx.x` goes negative.
TEST(FirstKernelGpuLarge, MoreThan2To31Elements) {
    CT_REQUIRE_GPU();
    const char* enabled = std::getenv("CT_LARGE_TESTS");
    if (enabled == nullptr || std::string(enabled) != "1") {
        GTEST_SKIP() << "needs 24 GiB of device memory: run with CT_LARGE_TESTS=1 to enable";
    }
    if (sanitizing()) {
        GTEST_SKIP() << "24 GiB under compute-sanitizer would take far too long";
    }
    const ct::DeviceInfo device = ct::select_device(0);
    const std::size_t n = (std::size_t{1} << 31) + 5;
    if (ct::free_device_memory() < 3 * (n + kCanary) * sizeof(float) + (std::size_t{1} << 30)) {
        GTEST_SKIP() << "not enough free device memory";
    }
    AddCase data(n, kCanary, 11);
    for (const char* id : {"1", "2", "thrust"}) {
        SCOPED_TRACE(id);
        const int grid =
            fk::grid_stride_default_grid(n, 256, device.sm_count, device.max_threads_per_sm);
        const ct::Verification check = data.run(add_stage(id), 256, grid);
        EXPECT_TRUE(check.passed) << check.detail;
    }
}
