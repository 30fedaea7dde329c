/// @file check.hpp
/// @brief Checking CUDA calls and kernel launches; the exception types and the exit codes.
///
/// Every CUDA runtime call in this repository goes through CT_CHECK, and every kernel launch is
/// followed by CT_CHECK_LAUNCH, so that no failure can pass silently. Failures become exceptions
/// that carry the failing call, file, line and CUDA's own error string; guarded_main() (cli.hpp)
/// turns them into a message on stderr and one of the documented exit codes.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "cudatutorial/errors.hpp"

namespace cudatutorial {

/// A CUDA runtime call or kernel launch failed. Maps to ExitCode::kCudaError.
class CudaError : public std::runtime_error {
  public:
    /// `message` is the full text shown to the user.
    CudaError(cudaError_t code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    /// The CUDA error code that caused the failure.
    cudaError_t code() const { return code_; }

  private:
    cudaError_t code_;
};

/// No usable CUDA device (no GPU, no driver, or a driver too old for this runtime).
class NoDeviceError : public CudaError {
  public:
    /// Same arguments as CudaError.
    NoDeviceError(cudaError_t code, const std::string& message) : CudaError(code, message) {}
};

/// Throws CudaError describing `code`, the failing expression and where it was written.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expression, const char* file,
                                   int line);

/// Throws CudaError if `code` is not cudaSuccess. Use through CT_CHECK.
inline void check_cuda(cudaError_t code, const char* expression, const char* file, int line) {
    if (code != cudaSuccess) {
        throw_cuda_error(code, expression, file, line);
    }
}

/// Checks the most recent kernel launch. A bad launch configuration is reported at once by
/// cudaGetLastError(); an error *inside* the kernel only shows at the next synchronization, so
/// Debug builds (NDEBUG undefined) also synchronize here to pin the error to its launch.
inline void check_launch(const char* file, int line) {
    check_cuda(cudaGetLastError(), "kernel launch", file, line);
#ifndef NDEBUG
    check_cuda(cudaDeviceSynchronize(), "kernel execution (debug synchronization)", file, line);
#endif
}

}  // namespace cudatutorial

/// Checks a CUDA runtime call: `CT_CHECK(cudaMemcpy(...));` throws CudaError on failure.
#define CT_CHECK(call) ::cudatutorial::check_cuda((call), #call, __FILE__, __LINE__)

/// Checks the kernel launch just issued: `kernel<<<g, b>>>(...); CT_CHECK_LAUNCH();`
#define CT_CHECK_LAUNCH() ::cudatutorial::check_launch(__FILE__, __LINE__)
