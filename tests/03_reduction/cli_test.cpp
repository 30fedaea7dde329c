// The executable rejects bad options with a message and exit code 2, before any GPU work (these
// run without a GPU). Checks that need the device (memory) expect 2, or 3 without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"

using cudatutorial::testing::run_process;

TEST(ReductionCli, BadOptionsExitWithTwoAndAMessage) {
    struct Case {
        const char* args;
        const char* message;
    };
    for (const Case c :
         {Case{"--n 0", "--n"}, Case{"--n -5", "--n"}, Case{"--n abc", "--n"},
          Case{"--block 48", "--block"}, Case{"--block 16", "--block"},
          Case{"--block 2048", "--block"}, Case{"--block 0", "--block"},
          Case{"--stage 13", "is not a stage"}, Case{"--stage 1,x", "is not a stage"},
          Case{"--stage 5 --block 32", "64 to 1024"}, Case{"--stage ,", "--stage"},
          Case{"--data zeros", "--data"}, Case{"--no-such-option", "no-such-option"},
          Case{"--json", "--json needs a FILE"}, Case{"--stage 3 --json -", "--json needs a FILE"}}) {
        SCOPED_TRACE(c.args);
        const auto result = run_process(std::string(REDUCTION_BIN) + " " + c.args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find(c.message), std::string::npos) << result.output;
    }
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
