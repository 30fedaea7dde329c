// The streams executable rejects bad options with a message and exit code 2, before any GPU work.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"

using cudatutorial::testing::run_process;

TEST(StreamsCli, BadOptionsExitWithTwoAndAMessage) {
    for (const char* args :
         {"--no-such-option", "--scenario 0", "--scenario 99", "--scenario 1,x", "--streams 1",
          "--streams 65", "--kernel-us 0", "--n 0", "--n 2Mi", "--n -5", "--build nope",
          "--probe-kernels 0", "--probe-us 0", "--width 5", "--flush-l2", "--device -1",
          "--stage 9", "--stage 1,list", "--scenario list,2", "--json"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(STREAMS_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_FALSE(result.output.empty());
    }
}

TEST(StreamsCli, MessagesNameTheProblem) {
    auto result = run_process(std::string(STREAMS_BIN) + " --n 2Mi");
    EXPECT_NE(result.output.find("--n"), std::string::npos) << result.output;
    result = run_process(std::string(STREAMS_BIN) + " --flush-l2");
    EXPECT_NE(result.output.find("does not apply"), std::string::npos) << result.output;
    result = run_process(std::string(STREAMS_BIN) + " --stage 1,list");
    EXPECT_NE(result.output.find("--stage list stands alone"), std::string::npos) << result.output;
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
    const std::vector<std::string> ids = {"1", "2", "3", "4", "5", "6", "7", "8"};
    cudatutorial::testing::expect_stage_list(STREAMS_BIN, "streams", ids);
    // The chapter's first name for the selector still works.
    cudatutorial::testing::expect_stage_list(STREAMS_BIN, "streams", ids, "--scenario");
}
