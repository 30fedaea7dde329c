// Every wide kernel (--section wide) against the CPU reference, bin by bin: bin counts
// {1, 256, 4097, 65536} x sizes x data {uniform, skewed, one value, runs} x launch shapes, the
// output poisoned before the first run and not before the second (a kernel that does not clear
// its output adds up). Which kernels may be skipped is checked too: a kernel whose shared memory
// fits a block must run (on sm_90+ for the cluster kernels; clusters of 16 are allowed to be
// refused by the occupancy query), one whose does not must be skipped; below sm_90 every cluster
// row is skipped. CT_SANITIZE (scripts/sanitize.sh) selects small sizes.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "process.hpp"
#include "wide_histogram.hpp"

namespace ct = cudatutorial;
namespace hg = histogram;

namespace {

using cudatutorial::testing::sanitizing;

struct Shape {
    int block;
    int grid;  // 0 = automatic
};

std::vector<std::size_t> test_sizes() {
    if (sanitizing()) {
        // 2^14 + 3 with one cluster ({32, 1} below) takes 2-3 staging steps: the exchange
        // kernel's two buffers are each reused, which is what racecheck should see.
        return {0, 1, 1025, (1u << 14) + 3};
    }
    return {0, 1, 31, 1025, (1u << 20) + 3};
}

std::vector<int> test_bins() {
    return {1, 256, 4097, 65536};
}

std::vector<Shape> test_shapes(std::size_t n) {
    if (sanitizing()) {
        return {{256, 0}, {32, 1}};
    }
    if (n <= 1025) {
        // grid 3 is no multiple of any cluster size > 1: the launch rounds it up
        return {{256, 0}, {32, 1}, {32, 3}, {1024, 0}, {64, 7}};
    }
    return {{256, 0}, {1024, 0}, {64, 5}};
}

// Whether `kernel` must be able to run `bins` on this device: every kernel whose shared memory
// fits a block, except that clusters need sm_90, and that clusters of 16 (non-portable) may not
// fit at all; cudaOccupancyMaxActiveClusters decides, and the test accepts either answer.
enum class Expect { kRuns, kSkipped, kEither };

Expect expected_support(const hg::WideKernel& kernel, int bins, const ct::DeviceInfo& device) {
    if (kernel.cluster > 0 && device.cc_major < 9) {
        return Expect::kSkipped;
    }
    std::size_t shared = 0;
    if (kernel.id == "private") {
        shared = static_cast<std::size_t>(bins) * 4;
    } else if (kernel.id == "dsmem_atomics") {
        shared = hg::wide_cluster_slice_bytes(bins, kernel.cluster);
    } else if (kernel.cluster > 0) {
        shared = hg::wide_cluster_shared_bytes(bins, kernel.cluster);
    }
    if (shared > device.shared_mem_per_block_optin) {
        return Expect::kSkipped;
    }
    return kernel.cluster > 8 ? Expect::kEither : Expect::kRuns;
}

void expect_support(const hg::WideKernel& kernel, int bins, const ct::DeviceInfo& device,
                    const std::string& why_not) {
    switch (expected_support(kernel, bins, device)) {
        case Expect::kRuns:
            EXPECT_TRUE(why_not.empty()) << why_not;
            break;
        case Expect::kSkipped:
            EXPECT_FALSE(why_not.empty());
            break;
        case Expect::kEither:
            break;
    }
}

void expect_kernel_matches(const hg::WideKernel& kernel, const hg::WideArgs& args,
                           const hg::Histogram& expected,
                           ct::DeviceBuffer<unsigned int>& d_histogram) {
    d_histogram.fill_bytes(0xff);
    const hg::WideShape shape = kernel.launch(args, nullptr);
    CT_CHECK(cudaDeviceSynchronize());
    std::vector<unsigned int> result(static_cast<std::size_t>(args.bins) + 1);
    d_histogram.copy_to_host(result.data(), result.size());
    // One counter past the bins must keep its poison: no kernel writes outside the histogram.
    EXPECT_EQ(result.back(), 0xFFFFFFFFu) << "wrote past the last bin";
    result.pop_back();
    const hg::Comparison first = hg::compare_wide_histograms(expected, result);
    EXPECT_TRUE(first.equal) << first.detail;
    if (kernel.cluster > 0 && args.n > 0) {
        EXPECT_EQ(shape.cluster, kernel.cluster);
        EXPECT_EQ(shape.grid % kernel.cluster, 0) << "grid " << shape.grid;
    }
    // The table's "grid x block" and "shared/block": CUB says it chose them.
    EXPECT_EQ(shape.chosen_by != nullptr, kernel.role == ct::StageRole::kBaseline);
    kernel.launch(args, nullptr);
    CT_CHECK(cudaDeviceSynchronize());
    result.resize(static_cast<std::size_t>(args.bins));
    d_histogram.copy_to_host(result.data(), result.size());
    const hg::Comparison second = hg::compare_wide_histograms(expected, result);
    EXPECT_TRUE(second.equal) << "second run: " << second.detail;
}

void check_every_kernel(const std::vector<hg::WideValue>& host, const hg::WideValue* d_input,
                        const ct::DeviceInfo& device, hg::WideWorkspace& workspace) {
    ct::DeviceBuffer<unsigned int> d_histogram(hg::kWideValues + 1);
    for (const int bins : test_bins()) {
        const hg::Histogram expected = hg::wide_reference_histogram(host, bins);
        for (const hg::WideKernel& kernel : hg::wide_kernels()) {
            for (const Shape& shape : test_shapes(host.size())) {
                SCOPED_TRACE("bins " + std::to_string(bins) + ", " + kernel.id + ", block " +
                             std::to_string(shape.block) + ", grid " + std::to_string(shape.grid));
                const hg::WideArgs args{d_input,     host.size(), d_histogram.data(), bins,
                                        shape.block, shape.grid,  &workspace};
                const std::string why_not = kernel.unsupported(args);
                expect_support(kernel, bins, device, why_not);
                if (why_not.empty()) {
                    expect_kernel_matches(kernel, args, expected, d_histogram);
                }
                if ((kernel.role == cudatutorial::StageRole::kBaseline)) {
                    break;  // CUB chooses its own launch shape
                }
            }
        }
    }
}

}  // namespace

TEST(HistogramWideGpu, EveryKernelMatchesTheReference) {
    CT_REQUIRE_GPU();
    const ct::DeviceInfo device = ct::select_device(0);
    if (device.cc_major < 9) {
        std::cout << "note: compute capability " << device.compute_capability()
                  << ": the cluster kernels are checked to be skipped, not run\n";
    }
    hg::WideWorkspace workspace;
    const std::vector<hg::WideDistribution> distributions =
        sanitizing() ? std::vector<hg::WideDistribution>{hg::WideDistribution::kUniform,
                                                         hg::WideDistribution::kOneValue}
                     : hg::all_wide_distributions();
    for (const std::size_t n : test_sizes()) {
        for (const hg::WideDistribution distribution : distributions) {
            SCOPED_TRACE("n " + std::to_string(n) + ", " +
                         hg::wide_distribution_name(distribution));
            const auto host = hg::generate_wide_input(distribution, n, 4321 + n);
            const ct::DeviceBuffer<hg::WideValue> d_input(host);
            check_every_kernel(host, d_input.data(), device, workspace);
        }
    }
}

TEST(HistogramWideGpu, UnalignedInputs) {
    // 16-byte loads: up to 7 values before the first aligned address are read one by one.
    CT_REQUIRE_GPU();
    const ct::DeviceInfo device = ct::select_device(0);
    hg::WideWorkspace workspace;
    ct::DeviceBuffer<unsigned int> d_histogram(hg::kWideValues + 1);
    const auto host = hg::generate_wide_input(hg::WideDistribution::kUniform, 5000, 99);
    const ct::DeviceBuffer<hg::WideValue> d_buffer(host);
    for (const std::size_t offset : {1, 3, 7}) {
        for (const std::size_t n :
             {std::size_t{1}, std::size_t{6}, std::size_t{33}, std::size_t{4000}}) {
            SCOPED_TRACE("offset " + std::to_string(offset) + ", n " + std::to_string(n));
            const std::vector<hg::WideValue> slice(host.begin() + static_cast<long>(offset),
                                                   host.begin() + static_cast<long>(offset + n));
            for (const int bins : {256, 65536}) {
                const hg::Histogram expected = hg::wide_reference_histogram(slice, bins);
                for (const hg::WideKernel& kernel : hg::wide_kernels()) {
                    SCOPED_TRACE(kernel.id + ", bins " + std::to_string(bins));
                    const hg::WideArgs args{
                        d_buffer.data() + offset, n, d_histogram.data(), bins, 64, 2, &workspace};
                    const std::string why_not = kernel.unsupported(args);
                    expect_support(kernel, bins, device, why_not);
                    if (why_not.empty()) {
                        expect_kernel_matches(kernel, args, expected, d_histogram);
                    }
                }
            }
        }
    }
}

TEST(HistogramWideGpu, TheSectionRunsAndVerifiesEveryRow) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "runs the executable: not under compute-sanitizer";
    }
    const std::string markdown = ::testing::TempDir() + "histogram_wide_section.md";
    std::remove(markdown.c_str());
    const auto result = cudatutorial::testing::run_process(
        std::string(HISTOGRAM_BIN) +
        " --section wide --n 1048579 --wide-bins 256,4097,65536 --dist skewed --reps 2 "
        "--warmup 1 --markdown " +
        markdown);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("All results verified against the CPU reference."),
              std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find("skipped 65536:private"), std::string::npos) << result.output;
    // The notes are the table's: in the Markdown file too (finish_table writes it).
    std::ifstream file(markdown);
    const std::string written{std::istreambuf_iterator<char>(file),
                              std::istreambuf_iterator<char>()};
    EXPECT_NE(written.find("- skipped 65536:private"), std::string::npos) << written;
    EXPECT_NE(written.find("- x best non-cluster: "), std::string::npos) << written;
    // One group of rows per bin count, shown after the id; x CUB compares within each group.
    EXPECT_NE(written.find("| id | bins | kernel |"), std::string::npos) << written;
    EXPECT_NE(written.find("| global | 65536 | `wide_global_atomics` |"), std::string::npos)
        << written;
    EXPECT_NE(written.find("| cub | 4097 | `cub_histogram_even` |"), std::string::npos) << written;
    EXPECT_NE(written.find(" × CUB | result |"), std::string::npos) << written;
}

// With no --section, `make run` shows both: the byte stages, then the wide section, each table
// verified and each written to its own file (out.json, out_wide.json).
TEST(HistogramWideGpu, TheDefaultRunShowsTheStagesThenTheWideSection) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "runs the executable: not under compute-sanitizer";
    }
    const std::string json = ::testing::TempDir() + "histogram_default_run.json";
    const std::string wide_json = ::testing::TempDir() + "histogram_default_run_wide.json";
    std::remove(json.c_str());
    std::remove(wide_json.c_str());
    const auto result = cudatutorial::testing::run_process(
        std::string(HISTOGRAM_BIN) + " --reps 2 --warmup 1 --slow-reps 1 --json " + json);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    const std::string verified = "All results verified against the CPU reference.";
    const auto first = result.output.find(verified);
    ASSERT_NE(first, std::string::npos) << result.output;
    EXPECT_NE(result.output.find(verified, first + 1), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("dsmem_atomics"), std::string::npos) << result.output;
    EXPECT_TRUE(std::ifstream(json).good()) << json;
    EXPECT_TRUE(std::ifstream(wide_json).good()) << wide_json;

    // A stages-only option keeps the run to the stages, and says so.
    const auto bytes = cudatutorial::testing::run_process(
        std::string(HISTOGRAM_BIN) + " --bins bytes --reps 2 --warmup 1 --slow-reps 1");
    EXPECT_EQ(bytes.exit_code, 0) << bytes.output;
    EXPECT_NE(bytes.output.find("The wide section"), std::string::npos) << bytes.output;
    EXPECT_EQ(bytes.output.find("dsmem_atomics"), std::string::npos) << bytes.output;
}
