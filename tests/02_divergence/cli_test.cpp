// The divergence executable rejects bad options with a message and exit code 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"

using cudatutorial::testing::run_process;

namespace {

std::string run_with(const std::string& args) {
    return std::string(DIVERGENCE_BIN) + " " + args;
}

}  // namespace

TEST(DivergenceCli, BadOptionsExitWithTwoAndAMessage) {
    struct Case {
        const char* args;
        const char* message;
    };
    for (const Case& c :
         {Case{"--no-such-option", "no-such-option"}, Case{"--n 0", "--n 0 is out of range"},
          Case{"--n abc", "not a number"}, Case{"--n 2^31", "out of range"},
          Case{"--block 48", "power of two"}, Case{"--block 0", "power of two"},
          Case{"--work 0", "work"}, Case{"--work 5000", "work"},
          Case{"--n 2^30 --work 4096", "CPU reference"}, Case{"--section nope", "nope"},
          Case{"--stage 9", "'9' is not a stage"}, Case{"--stage 1,5c", "'5c' is not a stage"},
          Case{"--device -2", "device"}}) {
        SCOPED_TRACE(c.args);
        const auto result = run_process(run_with(c.args));
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find(c.message), std::string::npos) << result.output;
    }
}

TEST(DivergenceCli, ABlockUnderAWarpOrOverEveryGpusLimitIsRefusedBeforeTheDevice) {
    // One warp to 1,024 threads is known without a device: exit 2 with or without a GPU.
    for (const char* args : {"--block 2048", "--block 16"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(run_with(args));
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find("--block must be a power of two from 32 to 1024"),
                  std::string::npos)
            << result.output;
    }
}

TEST(DivergenceCli, HelpAndProfileHelpExitWithZero) {
    auto result = run_process(run_with("--help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option : {"--n", "--block", "--work", "--section", "--profile-help"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
    result = run_process(run_with("--profile-help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("smsp__sass_average_branch_targets_threads_uniform.pct"),
              std::string::npos);
    EXPECT_NE(result.output.find("--clock-control none"), std::string::npos);
}

TEST(DivergenceCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"0", "1", "2", "3", "4", "4t", "5a", "5b"};
    cudatutorial::testing::expect_stage_list(DIVERGENCE_BIN, "divergence", ids);
}
