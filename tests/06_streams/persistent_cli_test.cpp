// Scenario 9's options: bad values are rejected with exit code 2 and one line naming the option,
// before any GPU work; the help and --stage list name the scenario.
#include <gtest/gtest.h>

#include <string>

#include "process.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(PersistentCli, BadTaskOptionsExitWithTwoNamingTheOption) {
    expect_usage_errors(
        STREAMS_BIN,
        {UsageCase{"--scenario 9 --tasks 0", "--tasks", "0 is out of range"},
         UsageCase{"--scenario 9 --tasks 1000001", "--tasks", "out of range"},
         UsageCase{"--scenario 9 --tasks x", "--tasks", "'x' is not"},
         UsageCase{"--scenario 9 --idle-limit-ms 5", "--idle-limit-ms",
                   "5 is out of range: it must be from 10 to 60000"},
         UsageCase{"--scenario 9 --idle-limit-ms 60001", "--idle-limit-ms", "out of range"},
         UsageCase{"--scenario 9 --idle-limit-ms -1", "--idle-limit-ms", "-1"},
         UsageCase{"--scenario 9 --n 0", "--n", "0 is out of range"},
         UsageCase{"--scenario 9 --batch 4", "--batch", "does not apply"},
         UsageCase{"--scenario 9,10", "--scenario", "10 is not a scenario: give 1 to 9"}});
}

TEST(PersistentCli, HelpNamesScenarioNineAndItsOptions) {
    const auto result = run_process(std::string(STREAMS_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* text :
         {"--tasks", "--idle-limit-ms", "9 a persistent kernel", "9 runs only when named"}) {
        EXPECT_NE(result.output.find(text), std::string::npos) << text;
    }
}

TEST(PersistentCli, StageListNamesScenarioNine) {
    const auto result = run_process(std::string(STREAMS_BIN) + " --stage list");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("persistent_kernel"), std::string::npos) << result.output;
}
