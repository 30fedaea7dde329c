// The executable rejects bad options and unreadable inputs with a message and exit code 2,
// before it touches the GPU (so these run without one).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(HistogramCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    const std::string dir = HISTOGRAM_TEST_DIR;
    const std::string file = dir + "/CMakeLists.txt";
    const std::string input_dir = "--input " + dir;
    const std::string with_dist = "--input " + file + " --dist uniform";
    const std::string with_n = "--input " + file + " --n 100";
    expect_usage_errors(
        HISTOGRAM_BIN,
        {UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--bins words", "--bins", "words is not one of letters, bytes"},
         UsageCase{"--bin-width 0", "--bin-width", "0 is out of range: it must be from 1 to 26"},
         UsageCase{"--bin-width 27", "--bin-width", "out of range"},
         UsageCase{"--bins bytes --bin-width 4", "--bin-width", "applies to --bins letters"},
         UsageCase{"--dist zipf", "--dist", "zipf is not one of"},
         UsageCase{"--input /no/such/file.txt", "--input", "/no/such/file.txt"},
         UsageCase{input_dir.c_str(), "--input", dir.c_str()},
         UsageCase{with_dist.c_str(), "--input", "cannot be combined with --dist"},
         UsageCase{with_n.c_str(), "--input", "cannot be combined with --n"},
         UsageCase{"--n -1", "--n", "-1"},
         UsageCase{"--n 2^64", "--n", "2^64"},
         UsageCase{"--n lots", "--n", "lots"},
         UsageCase{"--block 100", "--block", "not a power of two"},
         UsageCase{"--block 0", "--block", "not a power of two"},
         UsageCase{"--block 16", "--block", "from 32 to 1024; got 16"},
         UsageCase{"--block 1", "--block", "from 32 to 1024; got 1"},
         UsageCase{"--grid -1", "--grid", "out of range"},
         UsageCase{"--stage 99", "--stage", "'99' is not a stage"},
         UsageCase{"--stage 1,nope", "--stage", "'nope' is not a stage"},
         UsageCase{"--slow-reps 0", "--slow-reps", "out of range"},
         UsageCase{"--reps 0", "--reps", "out of range"},
         UsageCase{"--section wide --bins bytes", "--bins", "applies to --section stages"},
         UsageCase{"--section stages --wide-bins 16", "--wide-bins", "applies to the wide"}});
}

TEST(HistogramCli, BlocksSmallerThanAWarpAreRefusedBeforeTheDevice) {
    // Checked before select_device: 2 with or without a GPU, and the message says the limit.
    expect_usage_errors(HISTOGRAM_BIN,
                        {UsageCase{"--block 16 --n 1000", "--block", "from 32 to 1024"}});
}

TEST(HistogramCli, BlockSizesAboveEveryGpusLimitAreRefusedBeforeTheDevice) {
    // No GPU launches more than 1,024 threads per block: 2 with or without a GPU, in every
    // section.
    expect_usage_errors(HISTOGRAM_BIN,
                        {UsageCase{"--block 2048 --n 1000", "--block", "got 2048"},
                         UsageCase{"--block 2048 --section wide --n 1000", "--block", "to 1024"}});
}

TEST(HistogramCli, HelpListsTheOptions) {
    const auto result = run_process(std::string(HISTOGRAM_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option : {"--bins", "--bin-width", "--input", "--dist", "--n", "--stage",
                               "--block", "--grid", "--reps", "--json"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
}

TEST(HistogramCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"1", "race", "8", "cub", "global", "cluster16"};
    cudatutorial::testing::expect_stage_list(HISTOGRAM_BIN, "histogram", ids);
}
