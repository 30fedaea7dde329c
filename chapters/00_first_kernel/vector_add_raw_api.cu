// Device memory, plainly: the vector add with nothing but the CUDA runtime's four memory calls.
//
// Every program that uses device memory takes the same steps: cudaMalloc the arrays on the GPU,
// cudaMemcpy the inputs there (host to device), launch, cudaMemcpy the result back (device to
// host), cudaFree. Here they are written out, each call checked. The rest of the course never
// calls them itself: DeviceBuffer<T> (common/include/cudatutorial/device_buffer.hpp) calls
// cudaMalloc in its constructor and cudaFree in its destructor. What that adds is the release on
// *every* path: here, when a check throws between the first cudaMalloc and the cudaFree calls at
// the end (a failed copy, a failed launch), the function leaves early and the arrays it had
// allocated are never freed - a leak that lasts as long as the process.
#include <cuda_runtime.h>

#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

std::vector<float> vector_add_raw_api(const std::vector<float>& a, const std::vector<float>& b,
                                      int block) {
    if (a.size() != b.size()) {
        throw std::invalid_argument("vector_add_raw_api: a and b differ in size");
    }
    const std::size_t n = a.size();
    const std::size_t bytes = n * sizeof(float);
    std::vector<float> c(n);
    if (n == 0) {
        return c;
    }

    // 1. Allocate on the device. The pointers are device addresses: the CPU must not read them.
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
    CT_CHECK(cudaMalloc(&d_a, bytes));
    CT_CHECK(cudaMalloc(&d_b, bytes));
    CT_CHECK(cudaMalloc(&d_c, bytes));

    // 2. Copy the inputs there: destination first, then source, bytes, direction.
    CT_CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    CT_CHECK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));

    // 3. Launch stage 1's kernel (stages/stage1_vector_add.cu); the launch returns at once.
    launch_vector_add(d_a, d_b, d_c, n, block, 0, nullptr);

    // 4. Copy the result back. cudaMemcpy waits for the kernel before it copies: both are on the
    //    default stream, whose work runs in order.
    CT_CHECK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));

    // 5. Free. Reached only when nothing above threw (see the file comment).
    CT_CHECK(cudaFree(d_a));
    CT_CHECK(cudaFree(d_b));
    CT_CHECK(cudaFree(d_c));
    return c;
}

}  // namespace first_kernel
