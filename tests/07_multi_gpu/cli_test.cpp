// The executable rejects bad options with a message and exit code 2 before it touches a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"

using cudatutorial::testing::run_process;

TEST(MultiGpuCli, BadOptionsExitWithTwoAndAMessage) {
    const std::vector<std::string> bad = {"--no-such-option",
                                          "--section nope",
                                          "--section topology,nope",
                                          "--gpus -1",
                                          "--n 0",
                                          "--n 2^41",
                                          "--histogram-bytes 2^32",
                                          "--histogram-stage race",
                                          "--histogram-stage 99",
                                          "--reduction-stage 42",
                                          "--reduction-stage 5v --block 16",
                                          "--block 100",
                                          "--block 16",
                                          "--bins words",
                                          "--sizes 3",
                                          "--sizes 0",
                                          "--sizes 1Ki,lots",
                                          "--flush-l2",
                                          "--ranks 0",
                                          "--reps 0",
                                          "--stage list,topology",
                                          "--stage nope",
                                          "--json"};
    for (const std::string& args : bad) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(MULTI_GPU_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_FALSE(result.output.empty());
    }
}

TEST(MultiGpuCli, HelpListsTheSections) {
    const auto result = run_process(std::string(MULTI_GPU_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0);
    for (const char* word : {"topology", "reduction", "histogram", "allreduce", "--ranks"}) {
        EXPECT_NE(result.output.find(word), std::string::npos) << word;
    }
}

TEST(MultiGpuCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"topology", "reduction", "histogram", "allreduce",
                                          "1",        "2",         "3"};
    cudatutorial::testing::expect_stage_list(MULTI_GPU_BIN, "multi_gpu", ids);
    // The chapter's first name for the selector still works.
    cudatutorial::testing::expect_stage_list(MULTI_GPU_BIN, "multi_gpu", ids, "--section");
}
