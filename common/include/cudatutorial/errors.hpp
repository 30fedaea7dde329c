/// @file errors.hpp
/// @brief The exit codes every chapter documents, and the error for bad user input (host only:
/// no CUDA headers). CUDA's own errors are in check.hpp.
#pragma once

#include <stdexcept>

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
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace cudatutorial
