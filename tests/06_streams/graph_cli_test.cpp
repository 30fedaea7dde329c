// Scenario 6's options: bad values are rejected with exit code 2 before any GPU work, and the
// help lists them.
#include <gtest/gtest.h>

#include <string>

#include "process.hpp"

using cudatutorial::testing::run_process;

TEST(GraphCli, BadGraphOptionsExitWithTwo) {
    for (const char* args : {"--graph-kernels 0", "--graph-kernels 100001", "--graph-kernels x",
                             "--graph-branches 0", "--graph-branches 33"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(STREAMS_BIN) + " --scenario 6 " + args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find(std::string(args).substr(0, 10)), std::string::npos)
            << result.output;
    }
}

TEST(GraphCli, HelpListsScenarioSixAndItsOptions) {
    const auto result = run_process(std::string(STREAMS_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* text : {"--graph-kernels", "--graph-branches", "6 launch overhead"}) {
        EXPECT_NE(result.output.find(text), std::string::npos) << text;
    }
}
