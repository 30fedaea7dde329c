#include "cudatutorial/check.hpp"

#include <sstream>

namespace cudatutorial {

void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
    std::ostringstream message;
    message << "CUDA error " << cudaGetErrorName(code) << " (" << static_cast<int>(code)
            << "): " << cudaGetErrorString(code) << "\n  in " << expression << "\n  at " << file
            << ":" << line;
    if (code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver) {
        throw NoDeviceError(code, message.str());
    }
    throw CudaError(code, message.str());
}

}  // namespace cudatutorial
