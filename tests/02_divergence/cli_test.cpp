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

TEST(DivergenceCli, BadOptionsExitWithTwoAndAMessage) {
    expect_usage_errors(
        DIVERGENCE_BIN,
        {UsageCase{"--no-such-option", "no-such-option"},
         UsageCase{"--n 0", "--n 0 is out of range"}, UsageCase{"--n abc", "not a number"},
         UsageCase{"--n 2^31", "out of range"}, UsageCase{"--block 48", "power of two"},
         UsageCase{"--block 0", "power of two"}, UsageCase{"--work 0", "work"},
         UsageCase{"--work 5000", "work"}, UsageCase{"--n 2^30 --work 4096", "CPU reference"},
         UsageCase{"--section nope", "nope"}, UsageCase{"--stage 9", "'9' is not a stage"},
         UsageCase{"--stage 1,5c", "'5c' is not a stage"}, UsageCase{"--device -2", "device"}});
}

TEST(DivergenceCli, ABlockUnderAWarpOrOverEveryGpusLimitIsRefusedBeforeTheDevice) {
    // One warp to 1,024 threads is known without a device: exit 2 with or without a GPU.
    for (const char* args : {"--block 2048", "--block 16"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(run_with(args));
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find("--block must be a power of two from 32 to 1024"),
                  std::string::npos)
            << result.output;
    }
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
