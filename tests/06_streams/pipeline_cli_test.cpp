// Scenarios 7 and 8's options: rejected with a message and exit code 2, before any GPU work.
#include <gtest/gtest.h>

#include <string>

#include "process.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(PipelineCli, BadSizesAndChunkCountsExitWithTwoNamingTheOption) {
    expect_usage_errors(
        STREAMS_BIN,
        {UsageCase{"--copy-max 0", "--copy-max", "out of range"},
         UsageCase{"--copy-max 6", "--copy-max", "multiple of 4"},
         UsageCase{"--copy-max 2Gi", "--copy-max", "out of range"},
         UsageCase{"--copy-max x", "--copy-max", "invalid size 'x'"},
         UsageCase{"--pipeline-n 0", "--pipeline-n", "out of range"},
         UsageCase{"--pipeline-n 2^29", "--pipeline-n", "out of range"},
         UsageCase{"--chunks 0", "--chunks", "out of range"},
         UsageCase{"--chunks 65", "--chunks", "out of range"},
         UsageCase{"--chunks 1,x", "--chunks", "'x' is not a whole number"},
         UsageCase{"--chunks 9 --pipeline-n 8", "--chunks", "would leave chunks empty"},
         UsageCase{"--rounds -1", "--rounds", "-1"},
         UsageCase{"--rounds 1000001", "--rounds", "out of range"},
         UsageCase{"--scenario 99", "--scenario", "99 is not a scenario"}});
}

TEST(PipelineCli, HelpListsTheDataScenarios) {
    const auto result = run_process(std::string(STREAMS_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* text : {"--copy-max", "--pipeline-n", "--chunks", "--rounds",
                             "7 pinned vs pageable", "8 the copy/compute pipeline"}) {
        EXPECT_NE(result.output.find(text), std::string::npos) << text;
    }
}
