// The first_kernel executable: bad options get one line, "error: <option>: <what is wrong>", and
// exit 2 before any GPU work, and --stage list answers without a GPU.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

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
    return std::string(FIRST_KERNEL_BIN) + " " + args + " 2>&1";
}

}  // namespace

TEST(FirstKernelCli, BadOptionsExitWithTwoAndOneLineNamingTheOption) {
    expect_usage_errors(
        FIRST_KERNEL_BIN,
        {UsageCase{"--no-such-option", "--no-such-option", "not an option"},
         UsageCase{"--n 0", "--n", "0 is out of range"},
         UsageCase{"--n abc", "--n", "abc"},
         UsageCase{"--n 2^35", "--n", "out of range"},
         UsageCase{"--block 48", "--block", "power of two"},
         UsageCase{"--block 2048", "--block", "power of two"},
         UsageCase{"--block 16", "--block", "power of two"},
         UsageCase{"--block 256x", "--block", "'256x' is not a whole number"},
         UsageCase{"--radius 0", "--radius", "0 is out of range: it must be from 1 to"},
         UsageCase{"--radius 65", "--radius", "out of range"},
         UsageCase{"--canary 2^21", "--canary", "out of range"},
         UsageCase{"--grid -1", "--grid", "out of range"},
         UsageCase{"--reps 0", "--reps", "0 is out of range: it must be from 1 to 100000"},
         UsageCase{"--stage 9", "--stage", "'9' is not a stage"},
         UsageCase{"--stage 1,nope", "--stage", "'nope' is not a stage"},
         UsageCase{"--section nope", "--section", "nope is not one of"},
         UsageCase{"--device -2", "--device", "out of range"},
         UsageCase{"--batch 2 --flush-l2", "--flush-l2", "cannot be combined with --batch"},
         UsageCase{"--block", "--block", "needs a value"},
         UsageCase{"--json", "--json", "needs a FILE"},
         UsageCase{"--csv /no-such-folder/out.csv", "--csv", "does not exist"}});
}

TEST(FirstKernelCli, ASectionOutsideTheListIsNamedWithTheChoices) {
    expect_usage_errors(FIRST_KERNEL_BIN,
                        {UsageCase{"--section warp", "--section",
                                   "warp is not one of indices, add, errors, timing, stencil, "
                                   "managed (see --help)"}});
}

// The managed section checks its options before any GPU work too (exit 2, not the no-GPU 3).
TEST(FirstKernelCli, TheManagedSectionRefusesBadOptionsBeforeAnyGpuWork) {
    expect_usage_errors(
        FIRST_KERNEL_BIN,
        {UsageCase{"--section managed --batch 2", "--batch", "does not apply to --section managed"},
         UsageCase{"--section managed --n 0", "--n", "0 is out of range"},
         UsageCase{"--section managed --block 48", "--block", "power of two"},
         UsageCase{"--section managed,nope", "--section", "nope is not one of"}});
}

// --csv, --json and --markdown into a folder that exists but cannot be written: said so, before
// any GPU work. Skipped where the folder stays writable (root writes anywhere).
TEST(FirstKernelCli, AnOutputFileInAReadOnlyFolderIsRefusedBeforeTheDevice) {
    const std::string folder =
        ::testing::TempDir() + "first_kernel_read_only_" + std::to_string(::getpid());
    ASSERT_EQ(::mkdir(folder.c_str(), 0755), 0) << folder;
    ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
    if (::access(folder.c_str(), W_OK) == 0) {
        ::rmdir(folder.c_str());
        GTEST_SKIP() << "the read-only folder is writable here (running as root)";
    }
    for (const char* option : {"--csv", "--json", "--markdown"}) {
        expect_usage_errors(FIRST_KERNEL_BIN,
                            {UsageCase{(std::string(option) + " " + folder + "/out").c_str(),
                                       option, "is not writable"}});
    }
    ::rmdir(folder.c_str());
}

TEST(FirstKernelCli, StageListNeedsNoGpu) {
    const auto result = run_process(run_with("--stage list"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* id : {"vector_add", "vector_add_no_guard", "vector_add_grid_stride",
                           "thrust::transform", "stencil_global", "stencil_shared",
                           "stencil_no_barrier", "expected failure", "baseline"}) {
        EXPECT_NE(result.output.find(id), std::string::npos) << id;
    }
}

TEST(FirstKernelCli, HelpListsTheOptions) {
    const auto result = run_process(run_with("--help"));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* option :
         {"--n", "--block", "--grid", "--radius", "--canary", "--stage", "--section", "--seed",
          "--json", "--markdown", "--reps", "managed"}) {
        EXPECT_NE(result.output.find(option), std::string::npos) << option;
    }
    // The child-process switch of the errors section is not for users.
    EXPECT_EQ(result.output.find("illegal-address-child"), std::string::npos);
}

TEST(FirstKernelCli, StageListAnswersWithoutAGpuAsATableOrAsJson) {
    const std::vector<std::string> ids = {"1", "1x", "2", "thrust", "3", "4", "4x"};
    cudatutorial::testing::expect_stage_list(FIRST_KERNEL_BIN, "first_kernel", ids);
}
