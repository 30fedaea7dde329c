// The executable rejects bad options and unreadable inputs with a message and exit code 2,
// before it touches the GPU (so these run without one).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "stage_list.hpp"

using cudatutorial::testing::run_process;

TEST(HistogramCli, BadOptionsExitWithTwoAndAMessage) {
    const std::string dir = HISTOGRAM_TEST_DIR;
    const std::vector<std::string> bad = {"--no-such-option",
                                          "--bins words",
                                          "--bin-width 0",
                                          "--bin-width 27",
                                          "--bins bytes --bin-width 4",
                                          "--dist zipf",
                                          "--input /no/such/file.txt",
                                          "--input " + dir,
                                          "--input " + dir + "/CMakeLists.txt --dist uniform",
                                          "--input " + dir + "/CMakeLists.txt --n 100",
                                          "--n -1",
                                          "--n 2^64",
                                          "--n lots",
                                          "--block 100",
                                          "--block 0",
                                          "--block 16",
                                          "--block 1",
                                          "--grid -1",
                                          "--stage 99",
                                          "--stage 1,nope",
                                          "--slow-reps 0",
                                          "--reps 0"};
    for (const std::string& args : bad) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(HISTOGRAM_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_FALSE(result.output.empty());
    }
}

TEST(HistogramCli, AMissingFileIsNamedInTheMessage) {
    const auto result = run_process(std::string(HISTOGRAM_BIN) + " --input /no/such/file.txt");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.output.find("/no/such/file.txt"), std::string::npos) << result.output;
}

TEST(HistogramCli, BlocksSmallerThanAWarpAreRefusedBeforeTheDevice) {
    // Checked before select_device: 2 with or without a GPU, and the message says the limit.
    const auto result = run_process(std::string(HISTOGRAM_BIN) + " --block 16 --n 1000");
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("--block 16"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("32"), std::string::npos) << result.output;
}

TEST(HistogramCli, BlockSizesAboveEveryGpusLimitAreRefusedBeforeTheDevice) {
    // No GPU launches more than 1,024 threads per block: 2 with or without a GPU, in every
    // section.
    for (const char* args : {" --block 2048 --n 1000", " --block 2048 --section wide --n 1000"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(HISTOGRAM_BIN) + args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find("--block 2048"), std::string::npos) << result.output;
        EXPECT_NE(result.output.find("1024"), std::string::npos) << result.output;
    }
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
