// The streams executable rejects bad options with one line naming the option and exit code 2,
// before any GPU work.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(StreamsCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    expect_usage_errors(
        STREAMS_BIN,
        {UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--stage 0", "--stage", "0 is not a scenario: give 1 to 9"},
         UsageCase{"--stage 10", "--stage", "10 is not a scenario"},
         UsageCase{"--stage 1,x", "--stage", "x is not a scenario"},
         UsageCase{"--streams 1", "--streams", "1 is out of range: it must be from 2 to 64"},
         UsageCase{"--streams 65", "--streams", "out of range"},
         UsageCase{"--kernel-us 0", "--kernel-us",
                   "0 is out of range: it must be from 1 to 1000000"},
         UsageCase{"--n 0", "--n", "0 is out of range"},
         UsageCase{"--n 2Mi", "--n", "out of range"}, UsageCase{"--n -5", "--n", "-5"},
         UsageCase{"--build nope", "--build", "nope is not one of"},
         UsageCase{"--probe-kernels 0", "--probe-kernels", "out of range"},
         UsageCase{"--probe-us 0", "--probe-us", "out of range"},
         UsageCase{"--width 5", "--width", "out of range"},
         UsageCase{"--flush-l2", "--flush-l2", "does not apply"},
         UsageCase{"--batch 2", "--batch", "does not apply"},
         UsageCase{"--device -1", "--device", "out of range"},
         UsageCase{"--stage 1,list", "--stage", "list stands alone"},
         UsageCase{"--json", "--json", "needs a FILE"}});
}

// --scenario is the chapter's first name for --stage: an error names the one that was typed.
TEST(StreamsCli, ErrorsNameTheSelectorAsTyped) {
    expect_usage_errors(
        STREAMS_BIN,
        {UsageCase{"--scenario 99", "--scenario",
                   "99 is not a scenario: give 1 to 9 (comma-separated for several) or list"},
         UsageCase{"--scenario 0", "--scenario", "0 is not a scenario"},
         UsageCase{"--scenario 1,x", "--scenario", "x is not a scenario"},
         UsageCase{"--scenario list,2", "--scenario", "list stands alone"},
         UsageCase{"--scenario=2,99", "--scenario", "99 is not a scenario"}});
}

TEST(StreamsCli, HelpExitsWithZeroAndListsTheOptions) {
    const auto result = run_process(std::string(STREAMS_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option : {"--scenario", "--build", "--streams", "--kernel-us", "--n",
                               "--probe-kernels", "--csv", "--json", "--summary-csv"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
}

TEST(StreamsCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"1", "2", "3", "4", "5", "6", "7", "8", "9"};
    cudatutorial::testing::expect_stage_list(STREAMS_BIN, "streams", ids);
    // The chapter's first name for the selector still works.
    cudatutorial::testing::expect_stage_list(STREAMS_BIN, "streams", ids, "--scenario");
}
