/// @file errors.hpp
/// @brief The exit codes every chapter documents, and the error for bad user input (host only:
/// no CUDA headers). CUDA's own errors are in check.hpp.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace cudatutorial {

/// Process exit codes shared by every chapter executable (documented in the top README).
enum class ExitCode : int {
    kSuccess = 0,             ///< every result verified
    kVerificationFailed = 1,  ///< a kernel produced a result that did not match the CPU reference
    kBadUsage = 2,            ///< bad option, size, block size, file...: nothing ran on the GPU
    kCudaError = 3,           ///< no CUDA device, or a CUDA call failed
};

/// The integer value of an exit code, for returning from main().
constexpr int to_int(ExitCode code) {
    return static_cast<int>(code);
}

/// Bad user input (an option out of range, an unreadable file...). Maps to ExitCode::kBadUsage.
///
/// A problem with one option names it: UsageError("--block", "48 is not a power of two") has the
/// what() "--block: 48 is not a power of two", and run_program (cli.hpp) prints the option as the
/// user typed it (--section where --section is another name of --stage).
class UsageError : public std::runtime_error {
  public:
    /// A problem not tied to one option ("GPU 3 is listed twice").
    explicit UsageError(const std::string& message) : std::runtime_error(message) {}
    /// A problem with the option `option` (its name with the dashes: "--block").
    UsageError(const std::string& option, const std::string& problem)
        : std::runtime_error(option + ": " + problem), option_length_(option.size()) {}

    /// The option the problem is about, or "" when it is not about one.
    std::string option() const { return std::string(what(), option_length_); }
    /// The message without the option's name (the whole message when it names none).
    std::string problem() const {
        return option_length_ == 0 ? std::string(what()) : std::string(what() + option_length_ + 2);
    }

  private:
    // The option's length at the start of what(): the one message is the only string held, so
    // that copying the exception cannot throw.
    std::size_t option_length_ = 0;
};

}  // namespace cudatutorial
