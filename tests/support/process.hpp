/// @file process.hpp
/// @brief Runs a command line and captures its exit code and output (stdout and stderr).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace cudatutorial::testing {

struct ProcessResult {
    int exit_code = -1;  ///< the process's exit status, or -1 if it did not exit normally
    std::string output;  ///< stdout and stderr together
};

/// Runs `command` through the shell with stderr merged into stdout.
inline ProcessResult run_process(const std::string& command) {
    ProcessResult result;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) {
        return result;
    }
    std::array<char, 4096> buffer{};
    std::size_t count = 0;
    while ((count = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        result.output.append(buffer.data(), count);
    }
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

}  // namespace cudatutorial::testing
