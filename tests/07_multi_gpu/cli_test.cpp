// The executable rejects bad options with a message and exit code 2 before it touches a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(MultiGpuCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    expect_usage_errors(
        MULTI_GPU_BIN,
        {UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--gpus -1", "--gpus", "out of range"},
         UsageCase{"--n 0", "--n", "0 is out of range"},
         UsageCase{"--n 2^41", "--n", "out of range"},
         UsageCase{"--histogram-bytes 2^32", "--histogram-bytes", "out of range"},
         UsageCase{"--histogram-stage race", "--histogram-stage", "no (correct) stage 'race'"},
         UsageCase{"--histogram-stage 99", "--histogram-stage", "'99'"},
         UsageCase{"--reduction-stage 42", "--reduction-stage", "no stage '42'"},
         UsageCase{"--reduction-stage 5v --block 16", "--block", "power of two"},
         UsageCase{"--block 100", "--block", "power of two"},
         UsageCase{"--block 16", "--block", "power of two"},
         UsageCase{"--bins words", "--bins", "letters or bytes"},
         UsageCase{"--sizes 3", "--sizes", "3 is not a positive multiple of 4 bytes"},
         UsageCase{"--sizes 0", "--sizes", "multiple of 4"},
         UsageCase{"--sizes 1Ki,lots", "--sizes", "invalid size 'lots'"},
         UsageCase{"--flush-l2", "--flush-l2", "not supported"},
         UsageCase{"--ranks 0", "--ranks", "out of range"},
         UsageCase{"--reps 0", "--reps", "out of range"},
         UsageCase{"--stage list,topology", "--stage", "list stands alone"},
         UsageCase{"--stage nope", "--stage", "nope is not one of"},
         UsageCase{"--stage network,topology", "--stage", "network stands alone"},
         UsageCase{"--stage roundtrip --batch 4", "--batch", "one call at a time"},
         UsageCase{"--json", "--json", "needs a FILE"}});
}

// --section is the chapter's first name for --stage: an error names the one that was typed.
TEST(MultiGpuCli, ErrorsNameTheSelectorAsTyped) {
    expect_usage_errors(
        MULTI_GPU_BIN,
        {UsageCase{"--section nope", "--section", "nope is not one of topology, reduction"},
         UsageCase{"--section topology,nope", "--section", "nope is not one of"},
         UsageCase{"--section list,topology", "--section", "list stands alone"},
         UsageCase{"--section network,topology", "--section", "network stands alone"}});
}

TEST(MultiGpuCli, HelpListsTheSections) {
    const auto result = run_process(std::string(MULTI_GPU_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0);
    for (const char* word :
         {"topology", "reduction", "histogram", "allreduce", "roundtrip", "--ranks"}) {
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
