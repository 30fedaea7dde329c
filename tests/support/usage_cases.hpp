/// @file usage_cases.hpp
/// @brief The check every chapter's CLI test makes of its bad command lines: exit code 2 and one
/// line on stderr, "error: <the option as typed>: <what is wrong>", naming what was wrong.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "process.hpp"

namespace cudatutorial::testing {

/// A bad command line, the option its message names (as the command line typed it; "--n x
/// --work" where two options clash) and a piece of what the message says.
struct UsageCase {
    const char* args;
    const char* option;
    const char* message;
};

/// Runs `binary` with `args` and returns what it wrote to stderr alone, with its exit code.
inline ProcessResult run_for_stderr(const std::string& binary, const std::string& args) {
    return run_process("{ " + binary + " " + args + " 2>&1 >/dev/null; }");
}

/// Runs `binary` with each case's arguments: each must exit with 2 and write one line to
/// stderr, "error: <option>: ..." holding its message.
inline void expect_usage_errors(const std::string& binary, std::initializer_list<UsageCase> cases) {
    for (const UsageCase& c : cases) {
        SCOPED_TRACE(c.args);
        const ProcessResult result = run_for_stderr(binary, c.args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        const std::string prefix = std::string("error: ") + c.option + ": ";
        EXPECT_EQ(result.output.compare(0, prefix.size(), prefix), 0)
            << "expected it to start with '" << prefix << "':\n"
            << result.output;
        EXPECT_EQ(result.output.find('\n'), result.output.size() - 1) << "expected one line:\n"
                                                                      << result.output;
        EXPECT_NE(result.output.find(c.message), std::string::npos) << result.output;
    }
}

}  // namespace cudatutorial::testing
