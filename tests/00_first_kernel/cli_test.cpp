// The first_kernel executable: bad options get one line and exit 2 before any GPU work, and
// --stage list answers without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"

using cudatutorial::testing::run_process;

namespace {

std::string run_with(const std::string& args) {
    return std::string(FIRST_KERNEL_BIN) + " " + args + " 2>&1";
}

}  // namespace

TEST(FirstKernelCli, BadOptionsExitWithTwoAndOneLine) {
    struct Case {
        const char* args;
        const char* message;
    };
    for (const Case& c :
         {Case{"--no-such-option", "no-such-option"}, Case{"--n 0", "--n 0 is out of range"},
          Case{"--n abc", "abc"}, Case{"--n 2^35", "out of range"},
          Case{"--block 48", "power of two"}, Case{"--block 2048", "power of two"},
          Case{"--block 16", "power of two"}, Case{"--radius 0", "radius"},
          Case{"--radius 65", "radius"}, Case{"--canary 2^21", "--canary"},
          Case{"--grid -1", "grid"}, Case{"--stage 9", "'9' is not a stage"},
          Case{"--stage 1,nope", "'nope' is not a stage"}, Case{"--section nope", "nope"},
          Case{"--device -2", "device"}}) {
        SCOPED_TRACE(c.args);
        const auto result = run_process(run_with(c.args));
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find(c.message), std::string::npos) << result.output;
        EXPECT_EQ(result.output.find("error:"), result.output.rfind("error:")) << result.output;
    }
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
    for (const char* option : {"--n", "--block", "--grid", "--radius", "--canary", "--stage",
                               "--section", "--seed", "--json", "--markdown", "--reps"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
    // The child-process switch of the errors section is not for users.
    EXPECT_EQ(result.output.find("illegal-address-child"), std::string::npos);
}

TEST(FirstKernelCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"1", "1x", "2", "thrust", "3", "4", "4x"};
    cudatutorial::testing::expect_stage_list(FIRST_KERNEL_BIN, "first_kernel", ids);
}
