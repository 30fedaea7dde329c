// The divergence executable rejects bad options with a message and exit code 2.
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
    return std::string(DIVERGENCE_BIN) + " " + args;
}

}  // namespace

TEST(DivergenceCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    expect_usage_errors(
        DIVERGENCE_BIN,
        {UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--n 0", "--n", "0 is out of range"},
         UsageCase{"--n abc", "--n", "not a number"}, UsageCase{"--n 2^31", "--n", "out of range"},
         UsageCase{"--block 48", "--block", "power of two"},
         UsageCase{"--block 0", "--block", "power of two"},
         UsageCase{"--work 0", "--work", "out of range"},
         UsageCase{"--work 5000", "--work", "out of range"},
         UsageCase{"--n 2^30 --work 4096", "--n x --work", "CPU reference"},
         UsageCase{"--section nope", "--section", "nope is not one of paths, timing"},
         UsageCase{"--stage 9", "--stage", "'9' is not a stage"},
         UsageCase{"--stage 1,5c", "--stage", "'5c' is not a stage"},
         UsageCase{"--device -2", "--device", "out of range"}});
}

TEST(DivergenceCli, ABlockUnderAWarpOrOverEveryGpusLimitIsRefusedBeforeTheDevice) {
    // One warp to 1,024 threads is known without a device: exit 2 with or without a GPU.
    expect_usage_errors(
        DIVERGENCE_BIN,
        {UsageCase{"--block 2048", "--block", "must be a power of two from 32 to 1024"},
         UsageCase{"--block 16", "--block", "must be a power of two from 32 to 1024"}});
}

TEST(DivergenceCli, HelpAndProfileHelpExitWithZero) {
    auto result = run_process(run_with("--help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option : {"--n", "--block", "--work", "--section", "--profile-help"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
    result = run_process(run_with("--profile-help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("smsp__sass_average_branch_targets_threads_uniform.pct"),
              std::string::npos);
    EXPECT_NE(result.output.find("--clock-control none"), std::string::npos);
}

TEST(DivergenceCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"0", "1", "2", "3", "4", "4t", "5a", "5b"};
    cudatutorial::testing::expect_stage_list(DIVERGENCE_BIN, "divergence", ids);
}
