#include "cudatutorial/check.hpp"

#include <sstream>

#include "cudatutorial/device_info.hpp"

namespace cudatutorial {

void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
    if (code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver) {
        // CUDA's own text ("CUDA driver version is insufficient for CUDA runtime version") is
        // what a machine without any driver gets too: it would send a student to update a
        // driver they do not have.
        throw NoDeviceError(code, no_device_message(code));
    }
    std::ostringstream message;
    message << "CUDA error " << cudaGetErrorName(code) << " (" << static_cast<int>(code)
            << "): " << cudaGetErrorString(code) << "\n  in " << expression << "\n  at " << file
            << ":" << line;
    throw CudaError(code, message.str());
}

}  // namespace cudatutorial
