// The executable rejects bad options with a message and exit code 2, before any GPU work (these
// run without a GPU). Checks that need the device (memory) expect 2, or 3 without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "reduction.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(ReductionCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    // A number past every stage's (each stage's number is at most the count of rows).
    const std::string bad_stage = "--stage " + std::to_string(reduction::stages().size() + 1);
    expect_usage_errors(REDUCTION_BIN,
                        {UsageCase{"--n 0", "--n", "must be between 1 and 2^40"},
                         UsageCase{"--n -5", "--n", "negative"}, UsageCase{"--n abc", "--n", "abc"},
                         UsageCase{"--block 48", "--block", "power of two"},
                         UsageCase{"--block 16", "--block", "power of two"},
                         UsageCase{"--block 2048", "--block", "power of two"},
                         UsageCase{"--block 0", "--block", "power of two"},
                         UsageCase{"--block 2x", "--block", "'2x' is not a whole number"},
                         UsageCase{bad_stage.c_str(), "--stage", "is not a stage"},
                         UsageCase{"--stage 1,x", "--stage", "is not a stage"},
                         UsageCase{"--stage 5 --block 32", "--block", "64 to 1024"},
                         UsageCase{"--stage ,", "--stage", "give 'all', 'list'"},
                         UsageCase{"--data zeros", "--data", "zeros"},
                         UsageCase{"--no-such-option", "--no-such-option", "not an option"},
                         UsageCase{"--json", "--json", "needs a FILE"},
                         UsageCase{"--stage 3 --json -", "--json", "needs a FILE"}});
}

TEST(ReductionCli, InputLargerThanTheDeviceIsRejected) {
    const auto result = run_process(std::string(REDUCTION_BIN) + " --n 2^39 --stage 9");
    EXPECT_TRUE(result.exit_code == 2 || result.exit_code == 3) << result.output;
}

TEST(ReductionCli, HelpListsTheStages) {
    const auto result = run_process(std::string(REDUCTION_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* word : {"--n", "--block", "--stage", "5v", "cub", "--csv", "--json"}) {
        EXPECT_NE(result.output.find(word), std::string::npos) << word;
    }
}

TEST(ReductionCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"1", "5v", "9", "12", "cub"};
    cudatutorial::testing::expect_stage_list(REDUCTION_BIN, "reduction", ids);
}
