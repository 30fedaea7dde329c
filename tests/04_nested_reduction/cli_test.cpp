// The executable rejects bad options with a message and exit code 2 before touching the GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"

using cudatutorial::testing::run_process;

TEST(NestedReductionCli, BadOptionsExitWithTwoAndAMessage) {
    const struct {
        const char* args;
        const char* message;  // a piece of the expected message
    } cases[] = {
        {"--no-such-option", "no-such-option"},
        {"--block 48", "--block"},
        {"--block 2048", "--block"},
        {"--block 16", "--block"},
        {"--n 0", "--n"},
        {"--n abc", "abc"},
        {"--version fastest", "fastest"},
        {"--version sync --n 2^24", "262144"},
        {"--version nosync --n 2^22 --block 512", "device launches"},
        {"--version overflow_demo --n 1000", "overflow_demo"},
        {"--flat 99", "99"},
        {"--pending-launches -1", "pending-launches"},
        {"--hello --blocks 0", "--blocks"},
        {"--hello --threads 6", "--threads"},
        {"--hello --threads 128", "--threads"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.args);
        const auto result = run_process(std::string(NESTED_REDUCTION_BIN) + " " + c.args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find(c.message), std::string::npos) << result.output;
    }
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
