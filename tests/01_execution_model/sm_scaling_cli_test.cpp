// The scaling section through the chapter executable: listed by --help, refused without a GPU
// (exit 3, like every section that needs one), and on a GPU either a verified table (exit 0) or
// the reason it was skipped (exit 0 too); run together with the sweep, its table goes beside
// the sweep's files (out.json -> out_scaling.json).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cudatutorial/device_info.hpp"
#include "process.hpp"

using cudatutorial::testing::run_process;

namespace {

std::string run_with(const std::string& args) {
    return std::string(EXECUTION_MODEL_BIN) + " " + args;
}

bool exists(const std::string& path) {
    return std::ifstream(path).good();
}

}  // namespace

TEST(SmScalingCli, HelpListsTheSection) {
    const auto result = run_process(run_with("--help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("scaling"), std::string::npos) << result.output;
}

TEST(SmScalingCli, NeedsAGpu) {
    if (cudatutorial::cuda_device_count() > 0) {
        GTEST_SKIP() << "a GPU is present: the no-GPU exit code cannot be checked here";
    }
    const auto result = run_process(run_with("--section scaling"));
    EXPECT_EQ(result.exit_code, 3) << result.output;
}

TEST(SmScalingCli, WithTheSweepItsFilesGoBesideTheSweeps) {
    if (cudatutorial::cuda_device_count() == 0) {
        GTEST_SKIP() << "no CUDA device: GPU test skipped (run on a machine with a GPU)";
    }
    const std::string stem = ::testing::TempDir() + "sm_scaling_cli_" +
                             std::to_string(::testing::UnitTest::GetInstance()->random_seed());
    for (const char* suffix : {".json", "_scaling.json", ".csv", "_scaling.csv"}) {
        std::remove((stem + suffix).c_str());
    }
    const auto result =
        run_process(run_with("--section sweep,scaling --nx 1000 --ny 33 "
                             "--blocks 128x2 --reps 2 --warmup 1 --json " +
                             stem + ".json --csv " + stem + ".csv"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_TRUE(exists(stem + ".json")) << "the sweep's table";
    EXPECT_TRUE(exists(stem + ".csv"));
    const bool skipped =
        result.output.find("Transparent scalability: skipped") != std::string::npos;
    if (skipped) {
        EXPECT_FALSE(exists(stem + "_scaling.json")) << "a skipped section writes no table";
    } else {
        EXPECT_TRUE(exists(stem + "_scaling.json")) << result.output;
        EXPECT_TRUE(exists(stem + "_scaling.csv"));
        EXPECT_NE(result.output.find("sum@"), std::string::npos) << result.output;
        EXPECT_NE(result.output.find("fma@"), std::string::npos) << result.output;
        EXPECT_NE(result.output.find("Little's law"), std::string::npos) << result.output;
    }
    for (const char* suffix : {".json", "_scaling.json", ".csv", "_scaling.csv"}) {
        std::remove((stem + suffix).c_str());
    }
}
