// The streamed path's options: bad values and unreadable inputs exit with 2 and a message before
// the GPU is touched (so these run without one).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cudatutorial/device_info.hpp"
#include "process.hpp"

using cudatutorial::testing::run_process;

namespace {

std::string histogram(const std::string& args) {
    return std::string(HISTOGRAM_BIN) + " " + args;
}

}  // namespace

TEST(StreamedCli, BadOptionsExitWithTwoAndAMessage) {
    const std::string dir = ::testing::TempDir();
    const std::vector<std::string> bad = {
        "--chunk 0",
        "--chunk 2^31+1",  // not a size
        "--chunk 4294967296",
        "--chunk lots",
        "--chunk -5",
        "--in-memory-max 4294967296",
        "--in-memory-max many",
        "--stream-reps 0",
        "--n 2^64",
        "--in-memory-max 0 --input /no/such/file.bin",
        "--in-memory-max 0 --input " + dir,
        "--in-memory-max 0 --n 100 --stage 3",
        "--in-memory-max 0 --n 100 --stage 8",
        "--in-memory-max 0 --n 100 --atomic-latency",
        "--n 2^34 --stage 8,cub",
        "--n 2^34 --block 16",
    };
    for (const std::string& args : bad) {
        SCOPED_TRACE(args);
        const auto result = run_process(histogram(args));
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_FALSE(result.output.empty());
    }
}

TEST(StreamedCli, MessagesNameTheOptionAndTheFile) {
    const auto chunk = run_process(histogram("--chunk 0 --n 100"));
    EXPECT_NE(chunk.output.find("--chunk"), std::string::npos) << chunk.output;
    const auto missing = run_process(histogram("--in-memory-max 0 --input /no/such/file.bin"));
    EXPECT_NE(missing.output.find("/no/such/file.bin"), std::string::npos) << missing.output;
    const auto stage = run_process(histogram("--n 2^34 --stage 3"));
    EXPECT_NE(stage.output.find("--in-memory-max"), std::string::npos) << stage.output;
}

TEST(StreamedCli, AFileWithoutReadPermissionIsRefusedBeforeTheDevice) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "running as root: every file is readable";
    }
    const std::string path = ::testing::TempDir() + "histogram_streamed_unreadable.txt";
    { std::ofstream(path) << "abc"; }
    ASSERT_EQ(::chmod(path.c_str(), 0), 0);
    const auto result = run_process(histogram("--in-memory-max 0 --input " + path));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find(path), std::string::npos) << result.output;
    std::remove(path.c_str());
}

TEST(StreamedCli, InputsAboveFourGigabytesAreAcceptedAndNeedTheDevice) {
    // Before streaming, --n 2^33 was "out of range" (exit 2). Now only the device can refuse it:
    // 3 without a GPU. (With one it would run, so this checks only GPU-less machines.)
    if (cudatutorial::cuda_device_count() > 0) {
        GTEST_SKIP() << "a GPU is present: --n 2^40 would really run";
    }
    for (const char* args : {"--n 2^33", "--n 2^40 --chunk 1Mi", "--n 4294967296"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(histogram(args));
        EXPECT_EQ(result.exit_code, 3) << result.output;
    }
}
