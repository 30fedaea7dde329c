// The executable rejects bad options with one line and exit code 2, before any GPU work (these
// run without a GPU); answers --stage list without a GPU; and exits with 3 where there is none.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cudatutorial/device_info.hpp"
#include "process.hpp"
#include "scan.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(ScanCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    // A number past every stage's (each stage's number is at most the count of rows).
    const std::string bad_stage = "--stage " + std::to_string(scan::stages().size() + 1);
    expect_usage_errors(SCAN_BIN,
                        {UsageCase{"--n 0", "--n", "must be between 1 and 2^40"},
                         UsageCase{"--n -5", "--n", "negative"}, UsageCase{"--n abc", "--n", "abc"},
                         UsageCase{"--n 2^41", "--n", "must be between 1 and 2^40"},
                         UsageCase{"--block 48", "--block", "power of two"},
                         UsageCase{"--block 16", "--block", "power of two"},
                         UsageCase{"--block 2048", "--block", "power of two"},
                         UsageCase{"--block 0", "--block", "power of two"},
                         UsageCase{bad_stage.c_str(), "--stage", "is not a stage"},
                         UsageCase{"--stage 1,x", "--stage", "is not a stage"},
                         UsageCase{"--stage ,", "--stage", "give 'all', 'list'"},
                         UsageCase{"--stage 1 --n 2^40 --block 32", "--block", "2^31 - 1"},
                         UsageCase{"--data zeros", "--data", "zeros"},
                         UsageCase{"--kind both", "--kind", "inclusive, exclusive"},
                         UsageCase{"--no-such-option", "--no-such-option", "not an option"},
                         UsageCase{"--json", "--json", "needs a FILE"}});
}

TEST(ScanCli, InputLargerThanTheDeviceIsRejected) {
    const auto result = run_process(std::string(SCAN_BIN) + " --n 2^39 --stage 7");
    EXPECT_TRUE(result.exit_code == 2 || result.exit_code == 3) << result.output;
}

TEST(ScanCli, HelpListsTheOptionsAndStages) {
    const auto result = run_process(std::string(SCAN_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* word : {"--n", "--block", "--stage", "--kind", "--data", "--seed", "6x", "cub",
                             "copy", "max", "--csv", "--json"}) {
        EXPECT_NE(result.output.find(word), std::string::npos) << word;
    }
}

TEST(ScanCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    cudatutorial::testing::expect_stage_list(SCAN_BIN, "scan",
                                             {"1", "4", "6", "6x", "7", "cub", "copy"});
}

TEST(ScanCli, WithoutAGpuExitsWithThree) {
    if (cudatutorial::cuda_device_count() > 0) {
        GTEST_SKIP() << "a CUDA device is present: the no-device path cannot be exercised here";
    }
    for (const char* args : {"", "--stage 7 --kind exclusive", "--n 2^30 --data max"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(SCAN_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 3) << result.output;
        EXPECT_NE(result.output.find("no NVIDIA GPU"), std::string::npos) << result.output;
    }
}
