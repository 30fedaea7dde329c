/// @file usage_cases.hpp
/// @brief The check every chapter's CLI test makes of its bad command lines: exit code 2 and a
/// message naming what was wrong.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "process.hpp"

namespace cudatutorial::testing {

/// A bad command line and a piece of the message it must print.
struct UsageCase {
    const char* args;
    const char* message;
};

/// Runs `binary` with each case's arguments: each must exit with 2 and print its message; with
/// `one_error_line`, the output must also hold a single "error:" line.
inline void expect_usage_errors(const std::string& binary, std::initializer_list<UsageCase> cases,
                                bool one_error_line = false) {
    for (const UsageCase& c : cases) {
        SCOPED_TRACE(c.args);
        const ProcessResult result = run_process(binary + " " + c.args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_NE(result.output.find(c.message), std::string::npos) << result.output;
        if (one_error_line) {
            EXPECT_EQ(result.output.find("error:"), result.output.rfind("error:")) << result.output;
        }
    }
}

}  // namespace cudatutorial::testing
