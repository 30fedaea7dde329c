// The chapter executable rejects bad options with a message and exit code 2 (no GPU needed).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

namespace {

std::string run_with(const std::string& args) {
    return std::string(EXECUTION_MODEL_BIN) + " " + args;
}

}  // namespace

TEST(ExecutionModelCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    expect_usage_errors(
        EXECUTION_MODEL_BIN,
        {UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--device -1", "--device", "out of range"},
         UsageCase{"--device abc", "--device", "'abc' is not a whole number"},
         UsageCase{"--block-shape 0,2", "--block-shape", "at least 1"},
         UsageCase{"--block-shape a,b", "--block-shape", "not a positive integer"},
         UsageCase{"--block-shape 1,2,3,4", "--block-shape", "at most three"},
         UsageCase{"--nx 0", "--nx", "0 is out of range"}, UsageCase{"--ny -5", "--ny", "negative"},
         UsageCase{"--nx 2^40", "--nx", "out of range"},
         UsageCase{"--nx 2^20 --ny 2^20", "--nx x --ny", "over this program's limit"},
         UsageCase{"--blocks 32y32", "--blocks", "'32y32'"},
         UsageCase{"--blocks 8x8x2", "--blocks", "2D blocks"},
         UsageCase{"--blocks 32,32", "--blocks", "with an 'x'"},
         UsageCase{"--blocks 32x32,256", "--blocks", "'256'"},
         UsageCase{"--reps 0", "--reps", "0 is out of range"}});
}

// --section is the chapter's first name for --stage: an error names the one that was typed.
TEST(ExecutionModelCli, ErrorsNameTheSelectorAsTyped) {
    expect_usage_errors(
        EXECUTION_MODEL_BIN,
        {UsageCase{"--section warp", "--section",
                   "warp is not one of query, warps, latency, copy, occupancy, sweep, scaling, "
                   "list (see --help)"},
         UsageCase{"--stage warp", "--stage", "warp is not one of"},
         UsageCase{"--section nope", "--section", "nope is not one of"},
         UsageCase{"--section warps,list", "--section", "list stands alone"},
         UsageCase{"--stage warps,list", "--stage", "list stands alone"},
         UsageCase{"--section warps --json", "--json", "only --section list --json"}});
}

TEST(ExecutionModelCli, ABlockShapeOverEveryGpusLimitIsAUsageErrorWithoutTheDevice) {
    // The warps section works the layout out on the CPU, but of a block that can be launched:
    // no GPU launches more than 1,024 threads per block (or 1,024 along x or y, 64 along z), so
    // such a shape is exit 2 with or without a GPU.
    expect_usage_errors(
        EXECUTION_MODEL_BIN,
        {UsageCase{"--section warps --block-shape 2000x1", "--block-shape",
                   "no GPU launches more than 1,024 threads"},
         UsageCase{"--section warps,query --block-shape 2048,1,1", "--block-shape",
                   "1,024 threads per block"},
         UsageCase{"--section warps --block-shape 1x1x128", "--block-shape", "64 along z"}});
}

TEST(ExecutionModelCli, HelpExitsWithZero) {
    const auto result = run_process(run_with("--help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option :
         {"--device", "--block-shape", "--nx", "--ny", "--blocks", "--section", "--profile-help"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
}

TEST(ExecutionModelCli, ProfileHelpPrintsNcuCommandsWithoutAGpu) {
    const auto result = run_process(run_with("--profile-help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("ncu --clock-control none"), std::string::npos);
    EXPECT_NE(result.output.find("achieved_occupancy"), std::string::npos);
}

TEST(ExecutionModelCli, WarpsSectionRunsWithOrWithoutAGpu) {
    const auto result = run_process(run_with("--section warps"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("warps per block        = ceil(80 / 32) = 3"), std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find("idle lanes             = 96 - 80 = 16"), std::string::npos)
        << result.output;
}

TEST(ExecutionModelCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"query",     "warps", "latency", "copy",
                                          "occupancy", "sweep", "scaling"};
    cudatutorial::testing::expect_stage_list(EXECUTION_MODEL_BIN, "execution_model", ids);
    // The chapter's first name for the selector still works.
    cudatutorial::testing::expect_stage_list(EXECUTION_MODEL_BIN, "execution_model", ids,
                                             "--section");
}
