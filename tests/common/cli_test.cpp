#include <CLI/CLI.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/device_info.hpp"

namespace ct = cudatutorial;

TEST(ParseSize, AcceptsPlainPowersShiftsAndSuffixes) {
    EXPECT_EQ(ct::parse_size("33554432"), 33554432u);
    EXPECT_EQ(ct::parse_size("2^25"), 33554432u);
    EXPECT_EQ(ct::parse_size(" 2 ^ 28 "), 268435456u);
    EXPECT_EQ(ct::parse_size("1<<20"), 1048576u);
    EXPECT_EQ(ct::parse_size("3<<2"), 12u);
    EXPECT_EQ(ct::parse_size("32Mi"), 33554432u);
    EXPECT_EQ(ct::parse_size("64K"), 65536u);
    EXPECT_EQ(ct::parse_size("1Gi"), 1073741824u);
    EXPECT_EQ(ct::parse_size("0"), 0u);
    EXPECT_EQ(ct::parse_size("1"), 1u);
}

TEST(ParseSize, RejectsGarbageNegativesAndOverflow) {
    for (const char* bad : {"", "abc", "-5", "1.5", "3^4", "2^64", "2^", "^3", "1<<70",
                            "99999999999999999999999", "12Q", "Mi"}) {
        SCOPED_TRACE(bad);
        EXPECT_THROW(ct::parse_size(bad), ct::UsageError);
    }
}

TEST(DescribeSize, NamesPowersOfTwoAndNearNeighbours) {
    EXPECT_EQ(ct::describe_size(1000), "1000");
    EXPECT_EQ(ct::describe_size(33554432), "33554432 (2^25)");
    EXPECT_EQ(ct::describe_size(33554445), "33554445 (2^25 + 13)");
    EXPECT_EQ(ct::describe_size(1048575), "1048575 (2^20 - 1)");
}

TEST(PowerOfTwo, Classifies) {
    EXPECT_TRUE(ct::is_power_of_two(1));
    EXPECT_TRUE(ct::is_power_of_two(1024));
    EXPECT_FALSE(ct::is_power_of_two(0));
    EXPECT_FALSE(ct::is_power_of_two(96));
    // Within a range, as a block-size check asks.
    EXPECT_TRUE(ct::is_power_of_two_in(32, 32, 1024));
    EXPECT_TRUE(ct::is_power_of_two_in(1024, 32, 1024));
    EXPECT_TRUE(ct::is_power_of_two_in(1, 1, 1024));
    EXPECT_FALSE(ct::is_power_of_two_in(16, 32, 1024));
    EXPECT_FALSE(ct::is_power_of_two_in(2048, 32, 1024));
    EXPECT_FALSE(ct::is_power_of_two_in(96, 32, 1024));
    EXPECT_FALSE(ct::is_power_of_two_in(0, 0, 1024));
    EXPECT_FALSE(ct::is_power_of_two_in(-64, -128, 1024));
    static_assert(ct::is_power_of_two_in(256, 64, 1024), "usable at compile time");
}

namespace {

ct::DeviceInfo fake_device(int max_threads) {
    ct::DeviceInfo device;
    device.max_threads_per_block = max_threads;
    return device;
}

// Parses `args` with the common options plus --block/--n as a chapter would; returns the exit
// code run_program gives (the body returns 0).
int parse(std::vector<std::string> args, ct::CommonOptions& options, int& block, std::uint64_t& n) {
    CLI::App app{"test"};
    ct::add_common_options(app, options);
    app.add_option("--block", block)->check(ct::power_of_two_validator());
    ct::add_size_option(app, "--n", n, "elements");
    std::vector<char*> argv;
    std::string program = "test";
    argv.push_back(program.data());
    for (auto& arg : args) {
        argv.push_back(arg.data());
    }
    return ct::run_program(app, static_cast<int>(argv.size()), argv.data(), [] { return 0; });
}

}  // namespace

TEST(RequireBlockSize, AcceptsPowersOfTwoWithinTheDeviceLimit) {
    EXPECT_NO_THROW(ct::require_block_size(256, fake_device(1024)));
    EXPECT_NO_THROW(ct::require_block_size(1024, fake_device(1024)));
    EXPECT_NO_THROW(ct::require_block_size(32, fake_device(1024)));
}

TEST(RequireBlockSize, RejectsWithAMessageNamingTheLimit) {
    try {
        ct::require_block_size(2048, fake_device(1024));
        FAIL() << "2048 accepted";
    } catch (const ct::UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("1024"), std::string::npos) << error.what();
    }
    EXPECT_THROW(ct::require_block_size(96, fake_device(1024)), ct::UsageError);
    EXPECT_THROW(ct::require_block_size(16, fake_device(1024)), ct::UsageError);
    EXPECT_THROW(ct::require_block_size(32, fake_device(1024), 64), ct::UsageError);
    EXPECT_THROW(ct::require_block_size(-256, fake_device(1024)), ct::UsageError);
}

TEST(RequireRange, ThrowsOutsideTheBounds) {
    EXPECT_NO_THROW(ct::require_range(5, 1, 10, "--x"));
    EXPECT_THROW(ct::require_range(0, 1, 10, "--x"), ct::UsageError);
    EXPECT_THROW(ct::require_range(11, 1, 10, "--x"), ct::UsageError);
}

TEST(CommonOptions, ParseIntoTheBenchmarkConfig) {
    ct::CommonOptions options;
    int block = 256;
    std::uint64_t n = 0;
    ASSERT_EQ(parse({"--reps", "7", "--warmup", "0", "--flush-l2", "--block", "512", "--n", "2^10"},
                    options, block, n),
              0);
    const ct::BenchmarkConfig config = options.benchmark_config();
    EXPECT_EQ(config.repetitions, 7);
    EXPECT_EQ(config.warmup, 0);
    EXPECT_TRUE(config.flush_l2);
    EXPECT_EQ(block, 512);
    EXPECT_EQ(n, 1024u);
    EXPECT_EQ(options.timing_description(), "median of 7 after 0 warm-up runs, L2 flushed");
}

TEST(CommonOptions, BatchReachesTheConfigAndExcludesTheL2Flush) {
    ct::CommonOptions options;
    int block = 256;
    std::uint64_t n = 0;
    ASSERT_EQ(parse({"--batch", "20"}, options, block, n), 0);
    EXPECT_EQ(options.benchmark_config().calls_per_sample, 20);
    EXPECT_EQ(ct::CommonOptions{}.benchmark_config().calls_per_sample, 1);
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"--batch", "2", "--flush-l2"}, {"--batch", "0"}}) {
        ct::CommonOptions refused;
        testing::internal::CaptureStderr();
        EXPECT_EQ(parse(args, refused, block, n), 2) << args[0] << " " << args[1];
        testing::internal::GetCapturedStderr();
    }
}

TEST(CommonOptions, BadInputGivesExitCodeTwo) {
    const std::vector<std::vector<std::string>> bad_inputs = {
        {"--unknown"},
        {"--reps", "0"},
        {"--reps", "many"},
        {"--warmup", "-1"},
        {"--block", "96"},
        {"--block", "0"},
        {"--n", "-3"},
        {"--n", "lots"},
        {"--device", "-1"},
        {"stray-positional"},
        {"--csv", "/nonexistent-dir/out.csv"},
        {"--json", "/nonexistent-dir/out.json"}};
    for (const auto& args : bad_inputs) {
        SCOPED_TRACE(args.front() + (args.size() > 1 ? " " + args[1] : ""));
        ct::CommonOptions options;
        int block = 256;
        std::uint64_t n = 0;
        testing::internal::CaptureStderr();
        const int code = parse(args, options, block, n);
        const std::string message = testing::internal::GetCapturedStderr();
        EXPECT_EQ(code, 2);
        EXPECT_EQ(message.rfind("error: " + args.front(), 0), 0u) << message;
        EXPECT_EQ(message.find('\n'), message.size() - 1) << message;
    }
}

TEST(CommonOptions, HelpExitsWithZero) {
    ct::CommonOptions options;
    int block = 256;
    std::uint64_t n = 1 << 20;
    testing::internal::CaptureStdout();
    EXPECT_EQ(parse({"--help"}, options, block, n), 0);
    const std::string help = testing::internal::GetCapturedStdout();
    EXPECT_NE(help.find("--reps"), std::string::npos);
    EXPECT_NE(help.find("1048576 (2^20)"), std::string::npos) << "real default shown in --help";
}

// The common options come after the chapter's own in --help, however a chapter orders its
// add_option calls: they are registered here first, the chapter's --block after them.
TEST(CommonOptions, HelpListsThemAfterTheChaptersOwnOptions) {
    ct::CommonOptions options;
    int block = 256;
    std::uint64_t n = 1 << 20;
    testing::internal::CaptureStdout();
    EXPECT_EQ(parse({"--help"}, options, block, n), 0);
    const std::string help = testing::internal::GetCapturedStdout();
    ASSERT_NE(help.find("--block"), std::string::npos) << help;
    ASSERT_NE(help.find("Common options"), std::string::npos) << help;
    EXPECT_LT(help.find("--block"), help.find("Common options")) << help;
    EXPECT_LT(help.find("Common options"), help.find("--reps")) << help;
    EXPECT_NE(help.find("--flush-l2"), std::string::npos) << help;
}

// A chapter that cannot flush L2 does not offer --flush-l2, but still parses it, so that it can
// say why it does not apply instead of "not expected".
TEST(CommonOptions, FlushL2CanBeLeftOutOfTheHelp) {
    ct::CommonOptions options;
    CLI::App app{"test"};
    ct::add_common_options(app, options, ct::L2FlushOption::kNotListed);
    EXPECT_EQ(app.help().find("--flush-l2"), std::string::npos) << app.help();
    EXPECT_NE(app.help().find("--reps"), std::string::npos) << app.help();
    std::vector<std::string> args = {"--flush-l2"};
    app.parse(args);
    EXPECT_TRUE(options.flush_l2);
}

TEST(GuardedMain, MapsExceptionsToExitCodes) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(ct::guarded_main([]() -> int { throw ct::UsageError("bad"); }), 2);
    EXPECT_EQ(ct::guarded_main(
                  []() -> int { throw ct::CudaError(cudaErrorInvalidValue, "cuda failed"); }),
              3);
    EXPECT_EQ(
        ct::guarded_main([]() -> int { throw ct::NoDeviceError(cudaErrorNoDevice, "no device"); }),
        3);
    EXPECT_EQ(ct::guarded_main([] { return 1; }), 1);
    const std::string message = testing::internal::GetCapturedStderr();
    EXPECT_NE(message.find("error: bad"), std::string::npos);
    EXPECT_NE(message.find("cuda failed"), std::string::npos);
}

TEST(UsageError, NamesItsOptionApart) {
    const ct::UsageError about_block("--block", "48 is not a power of two");
    EXPECT_STREQ(about_block.what(), "--block: 48 is not a power of two");
    EXPECT_EQ(about_block.option(), "--block");
    EXPECT_EQ(about_block.problem(), "48 is not a power of two");
    const ct::UsageError plain("GPU 3 is listed twice");
    EXPECT_EQ(plain.option(), "");
    EXPECT_EQ(plain.problem(), "GPU 3 is listed twice");
}

namespace {

struct UsageLine {
    int code = -1;
    std::string stderr_text;
};

// Runs `args` through run_program with the common options, --block, --n and a selector with two
// names, --stage and --section (as chapter 1's); `body` runs after a good parse.
UsageLine usage_line(
    std::vector<std::string> args, const std::function<int()>& body = [] { return 0; }) {
    CLI::App app{"test"};
    ct::CommonOptions options;
    int block = 256;
    std::uint64_t n = 0;
    std::vector<std::string> sections;
    app.add_option("--block", block)->check(ct::power_of_two_validator());
    ct::add_size_option(app, "--n", n, "elements");
    app.add_option("--stage,--section", sections)
        ->delimiter(',')
        ->check(CLI::IsMember({"indices", "add", "list"}));
    ct::add_common_options(app, options);
    std::vector<char*> argv;
    std::string program = "test";
    argv.push_back(program.data());
    for (auto& arg : args) {
        argv.push_back(arg.data());
    }
    testing::internal::CaptureStderr();
    UsageLine line;
    line.code = ct::run_program(app, static_cast<int>(argv.size()), argv.data(), body);
    line.stderr_text = testing::internal::GetCapturedStderr();
    return line;
}

}  // namespace

// One form for every usage error, CLI11's and the chapters' own: "error: <option as typed>:
// <what is wrong>", one line, exit 2.
TEST(RunProgram, UsageErrorsAreOneLineNamingTheOptionAsTyped) {
    struct Case {
        std::vector<std::string> args;
        const char* line;
    };
    for (const Case& c : std::vector<Case>{
             {{"--section", "warp"},
              "error: --section: warp is not one of indices, add, list (see --help)\n"},
             {{"--stage", "warp"},
              "error: --stage: warp is not one of indices, add, list (see --help)\n"},
             {{"--section=add,warp"},
              "error: --section: warp is not one of indices, add, list (see --help)\n"},
             {{"--reps", "0"}, "error: --reps: 0 is out of range: it must be from 1 to 100000\n"},
             {{"--reps", "many"}, "error: --reps: 'many' is not a whole number\n"},
             {{"--block", "256x"},
              "error: --block: '256x' is not a power of two (32, 64, 128, 256, 512, 1024...)\n"},
             {{"--warmup", "2.5"}, "error: --warmup: '2.5' is not a whole number\n"},
             {{"--block"}, "error: --block: needs a value\n"},
             {{"--device", "abc"}, "error: --device: 'abc' is not a whole number\n"},
             {{"--batch", "2", "--flush-l2"},
              "error: --flush-l2: cannot be combined with --batch\n"},
             {{"--unknown"}, "error: --unknown: not an option of this program (see --help)\n"},
             {{"--unknown=3"}, "error: --unknown: not an option of this program (see --help)\n"},
             {{"stray"}, "error: stray: unexpected argument: options start with -- (see --help)\n"},
             {{"--section", "add", "--json"},
              "error: --json: needs a FILE (only --section list --json prints JSON to standard "
              "output)\n"}}) {
        SCOPED_TRACE(c.args.front());
        const UsageLine line = usage_line(c.args);
        EXPECT_EQ(line.code, 2);
        EXPECT_EQ(line.stderr_text, c.line);
    }
}

// A chapter's own check names the option by the name it knows (--stage); the student reads the
// name they typed.
TEST(RunProgram, AChaptersUsageErrorNamesTheOptionAsTyped) {
    const auto list_alone = []() -> int {
        throw ct::UsageError("--stage", "list stands alone: it lists the sections");
    };
    UsageLine line = usage_line({"--section", "add,list"}, list_alone);
    EXPECT_EQ(line.code, 2);
    EXPECT_EQ(line.stderr_text, "error: --section: list stands alone: it lists the sections\n");
    line = usage_line({"--stage", "add,list"}, list_alone);
    EXPECT_EQ(line.stderr_text, "error: --stage: list stands alone: it lists the sections\n");
    line = usage_line({}, list_alone);  // not typed at all: the name the code gave
    EXPECT_EQ(line.stderr_text, "error: --stage: list stands alone: it lists the sections\n");
    line = usage_line({"--block", "64"}, [] {
        ct::require_range(0, 1, 10, "--n");
        return 0;
    });
    EXPECT_EQ(line.stderr_text, "error: --n: 0 is out of range: it must be from 1 to 10\n");
    line = usage_line({}, []() -> int { throw ct::UsageError("GPU 3 is listed twice"); });
    EXPECT_EQ(line.stderr_text, "error: GPU 3 is listed twice\n");
}

// CLI11 2.2 and newer word a range as "Value 0 not in range [1 - 100000]" (2.1: "... 1 to
// 100000"), and print a double bound in a stream's default form ("1e+05"): all read the same. A
// validator that says it the newer way stands in for that CLI11.
TEST(RunProgram, BothCli11WordingsOfARangeReadTheSame) {
    for (const char* said :
         {"Value 0 not in range [1 - 100000]", "Value 0 not in range 1 to 100000",
          "Value 0 not in range [1 - 100000.000000]", "Value 0 not in range [1 - 1e+05]"}) {
        CLI::App app{"test"};
        int reps = 1;
        const std::string wording = said;
        app.add_option("--reps", reps)
            ->check(CLI::Validator([wording](std::string&) { return wording; }, "INT"));
        std::vector<std::string> args = {"test", "--reps", "0"};
        std::vector<char*> argv;
        for (auto& arg : args) {
            argv.push_back(arg.data());
        }
        testing::internal::CaptureStderr();
        const int code =
            ct::run_program(app, static_cast<int>(argv.size()), argv.data(), [] { return 0; });
        EXPECT_EQ(code, 2);
        EXPECT_EQ(testing::internal::GetCapturedStderr(),
                  "error: --reps: 0 is out of range: it must be from 1 to 100000\n")
            << said;
    }
}

// --csv/--json/--markdown: a folder that does not exist and one that cannot be written are told
// apart, before any GPU work.
TEST(RunProgram, AnOutputFileSaysWhyItCannotBeWritten) {
    UsageLine line = usage_line({"--csv", "/no-such-folder/out.csv"});
    EXPECT_EQ(line.code, 2);
    EXPECT_EQ(line.stderr_text,
              "error: --csv: cannot write '/no-such-folder/out.csv': its folder /no-such-folder "
              "does not exist\n");
    const std::string folder =
        testing::TempDir() + "cli_test_read_only_" + std::to_string(::getpid());
    ASSERT_EQ(::mkdir(folder.c_str(), 0755), 0) << folder;
    ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
    const bool writable_anyway = ::access(folder.c_str(), W_OK) == 0;  // root
    if (!writable_anyway) {
        for (const char* option : {"--csv", "--json", "--markdown"}) {
            line = usage_line({option, folder + "/out"});
            EXPECT_EQ(line.code, 2) << option;
            EXPECT_EQ(line.stderr_text, std::string("error: ") + option + ": cannot write '" +
                                            folder + "/out': its folder " + folder +
                                            " is not writable\n");
        }
    }
    ::rmdir(folder.c_str());
    if (writable_anyway) {
        GTEST_SKIP() << "the read-only folder is writable here (running as root)";
    }
}

TEST(CheckCuda, ThrowsWithCallFileLineAndErrorString) {
    try {
        CT_CHECK(cudaErrorInvalidValue);
        FAIL() << "no exception";
    } catch (const ct::CudaError& error) {
        const std::string what = error.what();
        EXPECT_EQ(error.code(), cudaErrorInvalidValue);
        EXPECT_NE(what.find("cudaErrorInvalidValue"), std::string::npos) << what;
        EXPECT_NE(what.find("cli_test.cpp"), std::string::npos) << what;
        EXPECT_NE(what.find("invalid argument"), std::string::npos) << what;
    }
    EXPECT_NO_THROW(CT_CHECK(cudaSuccess));
    EXPECT_THROW(CT_CHECK(cudaErrorNoDevice), ct::NoDeviceError);
}

// No GPU, no driver: plain words and what still runs, never CUDA's "driver version is
// insufficient" (which a machine without any driver also gets).
TEST(CheckCuda, NoDeviceErrorsSayWhatIsMissingInPlainWords) {
    for (const cudaError_t code : {cudaErrorNoDevice, cudaErrorInsufficientDriver}) {
        try {
            CT_CHECK(code);
            FAIL() << "no exception";
        } catch (const ct::NoDeviceError& error) {
            const std::string what = error.what();
            EXPECT_EQ(what.find("insufficient"), std::string::npos) << what;
            if (ct::cuda_device_count() == 0) {
                EXPECT_NE(what.find("no NVIDIA GPU"), std::string::npos) << what;
                EXPECT_NE(what.find("--section warps"), std::string::npos) << what;
                EXPECT_NE(what.find("see \"Your machine\" in README.md"), std::string::npos)
                    << what;
                EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            }
        }
    }
}

TEST(StageAndSeedOptions, ParseAndSayWhatEveryChapterSays) {
    struct Row {
        std::string id;
    };
    CLI::App app{"test"};
    std::string stages = "all";
    std::uint64_t seed = 1;
    const std::string ids = ct::stage_ids(std::vector<Row>{{"1"}, {"2"}, {"cub"}});
    EXPECT_EQ(ids, " 1 2 cub");
    ct::add_stage_option(app, stages, ids, " (a note)");
    ct::add_seed_option(app, seed, "the test's data");
    const char* argv[] = {"test", "--stage", "2,cub", "--seed", "42"};
    app.parse(5, const_cast<char**>(argv));
    EXPECT_EQ(stages, "2,cub");
    EXPECT_EQ(seed, 42u);
    const std::string help = app.help();
    EXPECT_NE(help.find("'all', 'list' (the stages and their ideas, without a GPU"),
              std::string::npos)
        << help;
    EXPECT_NE(help.find("ids or names: 1 2 cub (a note)"), std::string::npos) << help;
    EXPECT_NE(help.find("seed of the test's data"), std::string::npos) << help;
}
