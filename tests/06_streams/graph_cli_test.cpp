// Scenario 6's options: bad values are rejected with exit code 2 before any GPU work, and the
// help lists them.
#include <gtest/gtest.h>

#include <string>

#include "process.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(GraphCli, BadGraphOptionsExitWithTwo) {
    expect_usage_errors(
        STREAMS_BIN,
        {UsageCase{"--scenario 6 --graph-kernels 0", "--graph-kernels", "out of range"},
         UsageCase{"--scenario 6 --graph-kernels 100001", "--graph-kernels", "out of range"},
         UsageCase{"--scenario 6 --graph-kernels x", "--graph-kernels",
                   "'x' is not a whole number"},
         UsageCase{"--scenario 6 --graph-branches 0", "--graph-branches", "out of range"},
         UsageCase{"--scenario 6 --graph-branches 33", "--graph-branches", "out of range"}});
}

TEST(GraphCli, HelpListsScenarioSixAndItsOptions) {
    const auto result = run_process(std::string(STREAMS_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* text : {"--graph-kernels", "--graph-branches", "6 launch overhead"}) {
        EXPECT_NE(result.output.find(text), std::string::npos) << text;
    }
}
