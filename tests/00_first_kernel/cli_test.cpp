// The first_kernel executable: bad options get one line and exit 2 before any GPU work, and
// --stage list answers without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

namespace {

std::string run_with(const std::string& args) {
    return std::string(FIRST_KERNEL_BIN) + " " + args + " 2>&1";
}

}  // namespace

TEST(FirstKernelCli, BadOptionsExitWithTwoAndOneLine) {
    expect_usage_errors(
        FIRST_KERNEL_BIN,
        {UsageCase{"--no-such-option", "no-such-option"},
         UsageCase{"--n 0", "--n 0 is out of range"}, UsageCase{"--n abc", "abc"},
         UsageCase{"--n 2^35", "out of range"}, UsageCase{"--block 48", "power of two"},
         UsageCase{"--block 2048", "power of two"}, UsageCase{"--block 16", "power of two"},
         UsageCase{"--radius 0", "radius"}, UsageCase{"--radius 65", "radius"},
         UsageCase{"--canary 2^21", "--canary"}, UsageCase{"--grid -1", "grid"},
         UsageCase{"--stage 9", "'9' is not a stage"},
         UsageCase{"--stage 1,nope", "'nope' is not a stage"}, UsageCase{"--section nope", "nope"},
         UsageCase{"--device -2", "device"}},
        true);
}

// The managed section checks its options before any GPU work too (exit 2, not the no-GPU 3).
TEST(FirstKernelCli, TheManagedSectionRefusesBadOptionsBeforeAnyGpuWork) {
    expect_usage_errors(
        FIRST_KERNEL_BIN,
        {UsageCase{"--section managed --batch 2", "--batch: does not apply to --section managed"},
         UsageCase{"--section managed --n 0", "--n 0 is out of range"},
         UsageCase{"--section managed --block 48", "power of two"},
         UsageCase{"--section managed,nope", "nope"}},
        true);
}

TEST(FirstKernelCli, StageListNeedsNoGpu) {
    const auto result = run_process(run_with("--stage list"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* id : {"vector_add", "vector_add_no_guard", "vector_add_grid_stride",
                           "thrust::transform", "stencil_global", "stencil_shared",
                           "stencil_no_barrier", "expected failure", "baseline"}) {
        EXPECT_NE(result.output.find(id), std::string::npos) << id;
    }
}

TEST(FirstKernelCli, HelpListsTheOptions) {
    const auto result = run_process(run_with("--help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option :
         {"--n", "--block", "--grid", "--radius", "--canary", "--stage", "--section", "--seed",
          "--json", "--markdown", "--reps", "managed"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
    // The child-process switch of the errors section is not for users.
    EXPECT_EQ(result.output.find("illegal-address-child"), std::string::npos);
}

TEST(FirstKernelCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"1", "1x", "2", "thrust", "3", "4", "4x"};
    cudatutorial::testing::expect_stage_list(FIRST_KERNEL_BIN, "first_kernel", ids);
}
