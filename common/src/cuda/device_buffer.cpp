#include "cudatutorial/device_buffer.hpp"

#include <string>

#include "cudatutorial/device_info.hpp"

namespace cudatutorial::detail {

void* allocate_device_bytes(std::size_t bytes) {
    void* pointer = nullptr;
    const cudaError_t status = cudaMalloc(&pointer, bytes);
    if (status != cudaSuccess) {
        cudaGetLastError();
        std::size_t free_bytes = 0;
        std::size_t total_bytes = 0;
        cudaMemGetInfo(&free_bytes, &total_bytes);
        throw CudaError(status, std::string("cudaMalloc of ") +
                                    format_bytes(static_cast<double>(bytes)) + " failed (" +
                                    cudaGetErrorString(status) +
                                    "): " + format_bytes(static_cast<double>(free_bytes)) +
                                    " free of " + format_bytes(static_cast<double>(total_bytes)));
    }
    return pointer;
}

void* allocate_pinned_bytes(std::size_t bytes) {
    void* pointer = nullptr;
    const cudaError_t status = cudaMallocHost(&pointer, bytes);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw CudaError(status, std::string("cudaMallocHost (pinned host memory) of ") +
                                    format_bytes(static_cast<double>(bytes)) +
                                    " failed: " + cudaGetErrorString(status));
    }
    return pointer;
}

void free_device_bytes(void* pointer) noexcept {
    if (pointer) {
        cudaFree(pointer);  // a destructor must not throw; a failure here is already reported
    }
}

void free_pinned_bytes(void* pointer) noexcept {
    if (pointer) {
        cudaFreeHost(pointer);
    }
}

void copy_host_to_device(void* destination, const void* source, std::size_t bytes) {
    CT_CHECK(cudaMemcpy(destination, source, bytes, cudaMemcpyHostToDevice));
}

void copy_device_to_host(void* destination, const void* source, std::size_t bytes) {
    CT_CHECK(cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToHost));
}

void fill_device_bytes(void* destination, unsigned char value, std::size_t bytes) {
    CT_CHECK(cudaMemset(destination, value, bytes));
}

void fill_device_bytes_async(void* destination, unsigned char value, std::size_t bytes,
                             cudaStream_t stream) {
    CT_CHECK(cudaMemsetAsync(destination, value, bytes, stream));
}

}  // namespace cudatutorial::detail
