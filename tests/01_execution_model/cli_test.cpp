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

TEST(ExecutionModelCli, BadOptionsExitWithTwoAndAMessage) {
    expect_usage_errors(
        EXECUTION_MODEL_BIN,
        {UsageCase{"--no-such-option", "no-such-option"}, UsageCase{"--device -1", "device"},
         UsageCase{"--device abc", "device"}, UsageCase{"--block-shape 0,2", "at least 1"},
         UsageCase{"--block-shape a,b", "not a positive integer"},
         UsageCase{"--block-shape 1,2,3,4", "at most three"},
         UsageCase{"--nx 0", "--nx 0 is out of range"}, UsageCase{"--ny -5", "negative"},
         UsageCase{"--nx 2^40", "out of range"},
         UsageCase{"--nx 2^20 --ny 2^20", "over this program's limit"},
         UsageCase{"--blocks 32y32", "--blocks"}, UsageCase{"--blocks 8x8x2", "2D blocks"},
         UsageCase{"--blocks 32,32", "with an 'x'"}, UsageCase{"--blocks 32x32,256", "'256'"},
         UsageCase{"--section nope", "nope"}, UsageCase{"--reps 0", "reps"},
         UsageCase{"--stage warps,list", "stands alone"}});
}

TEST(ExecutionModelCli, ABlockShapeOverEveryGpusLimitIsAUsageErrorWithoutTheDevice) {
    // The warps section works the layout out on the CPU, but of a block that can be launched:
    // no GPU launches more than 1,024 threads per block (or 1,024 along x or y, 64 along z), so
    // such a shape is exit 2 with or without a GPU.
    struct Case {
        const char* args;
        const char* message;
    };
    for (const Case& c :
         {Case{"--section warps --block-shape 2000x1", "no GPU launches more than 1,024 threads"},
          Case{"--section warps,query --block-shape 2048,1,1", "1,024 threads per block"},
          Case{"--section warps --block-shape 1x1x128", "64 along z"}}) {
        SCOPED_TRACE(c.args);
        const auto result = run_process(run_with(c.args));
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find(c.message), std::string::npos) << result.output;
    }
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
