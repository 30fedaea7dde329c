// The chapter executable rejects bad options with a message and exit code 2 (no GPU needed).
#include <gtest/gtest.h>

#include "process.hpp"

using cudatutorial::testing::run_process;

TEST(ExecutionModelCli, BadOptionsExitWithTwoAndAMessage) {
    for (const char* args : {"--no-such-option", "--device -1", "--device abc"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(EXECUTION_MODEL_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_FALSE(result.output.empty());
    }
}

TEST(ExecutionModelCli, HelpExitsWithZero) {
    const auto result = run_process(std::string(EXECUTION_MODEL_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("--device"), std::string::npos);
}
