// Every chapter executable, run where there is no CUDA device, says so in plain words on one line
// and exits with 3 (never a crash, a hang or an empty table): no GPU or driver was found, where
// to find a hosted one (the README's "Your machine"), and what still runs without one; not CUDA's
// own "driver version is insufficient", which would send a student to update a driver they do not
// have. Skipped on machines with a GPU, where the chapters' own tests run them for real.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cudatutorial/device_info.hpp"
#include "process.hpp"

namespace {

std::vector<std::string> chapter_binaries() {
    std::vector<std::string> paths;
    std::istringstream list(CT_CHAPTER_BINARIES);
    for (std::string path; std::getline(list, path, ';');) {
        if (!path.empty()) {
            paths.push_back(path);
        }
    }
    return paths;
}

}  // namespace

TEST(ChaptersWithoutDevice, ExitWithThreeAndSaySo) {
    if (cudatutorial::cuda_device_count() > 0) {
        GTEST_SKIP() << "a CUDA device is present: the no-device path cannot be exercised here";
    }
    const auto binaries = chapter_binaries();
    ASSERT_GE(binaries.size(), 6u) << CT_CHAPTER_BINARIES;
    for (const auto& binary : binaries) {
        SCOPED_TRACE(binary);
        const auto result = cudatutorial::testing::run_process(binary);
        EXPECT_EQ(result.exit_code, 3) << result.output;
        EXPECT_NE(result.output.find("no NVIDIA GPU"), std::string::npos) << result.output;
        EXPECT_NE(result.output.find("execution_model --section warps"), std::string::npos)
            << result.output;
        EXPECT_EQ(result.output.find("insufficient"), std::string::npos) << result.output;
        // One line, pointing to where a hosted GPU is described.
        EXPECT_EQ(result.output.rfind("error: no NVIDIA GPU", 0), 0u) << result.output;
        EXPECT_EQ(result.output.find('\n'), result.output.size() - 1) << result.output;
        EXPECT_NE(result.output.find("see \"Your machine\" in README.md"), std::string::npos)
            << result.output;
    }
}
