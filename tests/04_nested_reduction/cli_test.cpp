// The executable rejects bad options with a message and exit code 2 before touching the GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(NestedReductionCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    expect_usage_errors(
        NESTED_REDUCTION_BIN,
        {UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--block 48", "--block", "must be a power of two"},
         UsageCase{"--block 2048", "--block", "must be a power of two"},
         UsageCase{"--block 16", "--block", "must be a power of two"},
         UsageCase{"--n 0", "--n", "must be between 1"}, UsageCase{"--n abc", "--n", "abc"},
         UsageCase{"--version sync --n 2^24", "--version", "262144"},
         UsageCase{"--version nosync --n 2^22 --block 512", "--version", "device launches"},
         UsageCase{"--version overflow_demo --n 1000", "--version", "overflow_demo"},
         UsageCase{"--flat 99", "--flat", "'99' is not a Chapter 3 stage"},
         UsageCase{"--pending-launches -1", "--pending-launches", "out of range"},
         UsageCase{"--hello --blocks 0", "--blocks", "must be between 1"},
         UsageCase{"--hello --threads 6", "--threads", "power of two"},
         UsageCase{"--hello --threads 128", "--threads", "power of two"}});
}

// --version is the chapter's first name for --stage: an error names the one that was typed.
TEST(NestedReductionCli, ErrorsNameTheSelectorAsTyped) {
    expect_usage_errors(
        NESTED_REDUCTION_BIN,
        {UsageCase{"--version fastest", "--version",
                   "fastest is not one of all, sync, nosync, per_level, overflow_demo, list"},
         UsageCase{"--stage fastest", "--stage", "fastest is not one of"},
         UsageCase{"--stage sync --n 2^24", "--stage", "262144"}});
}

TEST(NestedReductionCli, HelpExitsWithZero) {
    const auto result = run_process(std::string(NESTED_REDUCTION_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option :
         {"--n", "--block", "--version", "--hello", "--blocks", "--pending-launches", "--reps"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
}

TEST(NestedReductionCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"sync", "nosync", "per_level", "overflow_demo"};
    cudatutorial::testing::expect_stage_list(NESTED_REDUCTION_BIN, "nested_reduction", ids);
    // The chapter's first name for the selector still works.
    cudatutorial::testing::expect_stage_list(NESTED_REDUCTION_BIN, "nested_reduction", ids,
                                             "--version");
}
