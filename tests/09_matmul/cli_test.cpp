// The executable rejects bad options with one line and exit code 2, before any GPU work (these
// run without a GPU); answers --stage list without a GPU; and exits with 3 where there is none.
#include <gtest/gtest.h>

#include <string>

#include "cudatutorial/device_info.hpp"
#include "process.hpp"
#include "stage_list.hpp"
#include "usage_cases.hpp"

using cudatutorial::testing::expect_usage_errors;
using cudatutorial::testing::run_process;
using cudatutorial::testing::UsageCase;

TEST(MatmulCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    expect_usage_errors(
        MATMUL_BIN,
        {UsageCase{"--size 0", "--size", "must be between 1 and 2^20"},
         UsageCase{"--size -5", "--size", "negative"},
         UsageCase{"--m 0", "--m", "must be between 1 and 2^20"},
         UsageCase{"--n 2^21", "--n", "must be between 1 and 2^20"},
         UsageCase{"--k 1048577", "--k", "must be between 1 and 2^20"},
         UsageCase{"--k abc", "--k", "abc"}, UsageCase{"--stage 99", "--stage", "is not a stage"},
         UsageCase{"--stage 1,x", "--stage", "is not a stage"},
         UsageCase{"--stage ,", "--stage", "give 'all', 'list'"},
         UsageCase{"--data random", "--data", "normal, integers, sparse, zeros"},
         UsageCase{"--power -1", "--power", "between 0 and 60"},
         UsageCase{"--power 61", "--power", "between 0 and 60"},
         UsageCase{"--rounds -1", "--rounds", "0 to 1000"},
         UsageCase{"--rounds 1001", "--rounds", "0 to 1000"},
         UsageCase{"--precision fp16", "--precision", "fp32, bf16"},
         // One table, one kind of operands: a stage of the other kind names the option to use.
         UsageCase{"--stage 10", "--stage", "run it with --precision bf16"},
         UsageCase{"--precision bf16 --stage 3", "--stage", "run it with --precision fp32"},
         UsageCase{"--precision bf16 --stage cublas", "--stage", "--precision fp32"},
         UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--json", "--json", "needs a FILE"}});
}

TEST(MatmulCli, MatricesLargerThanTheDeviceAreRejected) {
    // 2^20 x 2^20 floats are 4 TiB: exit 2 before any allocation (3 without a GPU).
    const auto result = run_process(std::string(MATMUL_BIN) + " --size 2^20 --stage 3");
    EXPECT_TRUE(result.exit_code == 2 || result.exit_code == 3) << result.output;
}

TEST(MatmulCli, HelpListsTheOptionsAndStages) {
    const auto result = run_process(std::string(MATMUL_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* word : {"--size", "--m", "--n", "--k", "--stage", "--data", "--seed", "cublas",
                             "tf32", "integers", "sparse", "zeros", "--precision", "bf16",
                             "cublas_bf16", "--power", "--rounds", "--csv", "--json"}) {
        EXPECT_NE(result.output.find(word), std::string::npos) << word;
    }
}

TEST(MatmulCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    cudatutorial::testing::expect_stage_list(MATMUL_BIN, "matmul",
                                             {"1", "2", "3", "4", "5", "6", "7", "8", "9", "cublas",
                                              "tf32", "10", "11", "12", "13", "14", "cublas_bf16"});
}

TEST(MatmulCli, WithoutAGpuExitsWithThree) {
    if (cudatutorial::cuda_device_count() > 0) {
        GTEST_SKIP() << "a CUDA device is present: the no-device path cannot be exercised here";
    }
    for (const char* args : {"", "--stage 5 --data integers", "--m 33 --n 7 --k 4093"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(MATMUL_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 3) << result.output;
        EXPECT_NE(result.output.find("no NVIDIA GPU"), std::string::npos) << result.output;
    }
}
