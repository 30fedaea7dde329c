// What a failing launch looks like: each demonstration makes one mistake on purpose and shows
// which call reports it, when, and whether the GPU can still be used afterwards.
//
// Two kinds of error (CUDA's programming guide calls them non-sticky and sticky):
//  - a bad request - a block larger than the device allows, an allocation larger than its
//    memory - is refused by the call that makes it; the error is remembered until
//    cudaGetLastError() reads it, and everything else keeps working;
//  - a fault inside a running kernel - an illegal address - is seen only at the next call that
//    waits for the GPU, and it ends the CUDA context: every later call of the process fails with
//    the same error. Only a new process can use the GPU again, so that demonstration runs in a
//    child process.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace ct = cudatutorial;

std::string error_name(cudaError_t code) {
    return cudaGetErrorName(code);
}

namespace {

// Stage 1's kernel, launched here without the checking wrapper, so that the demonstration
// controls which call sees the error.
__global__ void unchecked_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

__global__ void write_through_kernel(int* pointer) {
    pointer[threadIdx.x] = 1;  // the host passes a null pointer: an illegal address
}

// What a block over the device's limit is refused with: the programming guide's name for it is
// an invalid configuration; CUDA 13.0's runtime reports cudaErrorInvalidValue ("invalid
// argument") on the H100. Either is the right refusal.
std::string too_big_block_errors() {
    return error_name(cudaErrorInvalidValue) + " or " + error_name(cudaErrorInvalidConfiguration);
}

bool is_too_big_block_error(const std::string& observed) {
    return observed == error_name(cudaErrorInvalidValue) ||
           observed == error_name(cudaErrorInvalidConfiguration);
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// A small vector add through the checked path (stage 1), verified: proof that the context still
// works after a non-sticky error.
std::string context_check() {
    VectorAddArrays arrays(1000, 0, 1);
    const ct::Verification check = arrays.run(add_stages().front(), 128, 0);  // stage 1
    return check.passed ? "next launch verified: the GPU is still usable"
                        : "next launch FAILED: " + check.detail;
}

// Ends a demonstration of a refused request: what the next ordinary launch did, and whether the
// whole demonstration went as it must (the right error, and the GPU still usable after it).
void conclude(ErrorDemo& demo, bool observed_as_expected) {
    demo.afterwards = context_check();
    demo.as_expected =
        observed_as_expected && demo.afterwards.rfind("next launch verified", 0) == 0;
}

// A request the runtime must refuse: `request` is made, its CudaError caught and named.
ErrorDemo refused_request(const std::string& what, const std::string& reported_by,
                          const std::string& expected,
                          const std::function<bool(const std::string&)>& accepts,
                          const std::function<void()>& request) {
    ErrorDemo demo;
    demo.what = what;
    demo.reported_by = reported_by;
    demo.expected = expected;
    try {
        request();
        demo.observed = "cudaSuccess";
        demo.message = "no error reported";
    } catch (const ct::CudaError& e) {
        demo.observed = error_name(e.code());
        demo.message = first_line(e.what());
    }
    conclude(demo, accepts(demo.observed));
    return demo;
}

}  // namespace

std::vector<ErrorDemo> run_recoverable_error_demos(int max_threads_per_block,
                                                   std::size_t global_memory) {
    std::vector<ErrorDemo> demos;
    const int too_many = 2 * max_threads_per_block;
    VectorAddArrays arrays(1000, 0, 1);
    const std::size_t n = arrays.n;

    // 1. A block of 2 x the device's limit, launched through the checked path: CT_CHECK_LAUNCH
    //    (cudaGetLastError right after the launch) turns the refusal into an exception.
    demos.push_back(refused_request(
        "block of " + std::to_string(too_many) + " threads (limit " +
            std::to_string(max_threads_per_block) + "), launch checked",
        "CT_CHECK_LAUNCH (cudaGetLastError)", too_big_block_errors(), is_too_big_block_error, [&] {
            launch_vector_add(arrays.d_a.data(), arrays.d_b.data(), arrays.d_c.data(), n, too_many,
                              0, nullptr);
        }));

    // 2. The same launch unchecked: nothing stops the program, the kernel never ran, and only
    //    the result check (c is still the poison) or a later cudaGetLastError() says so.
    {
        ErrorDemo demo;
        demo.what = "the same launch, unchecked: the program carries on";
        demo.reported_by = "the result check, then cudaGetLastError";
        demo.expected = too_big_block_errors();
        arrays.d_c.fill_bytes(0xff);
        unchecked_add_kernel<<<1, too_many>>>(arrays.d_a.data(), arrays.d_b.data(),
                                              arrays.d_c.data(), n);
        const ct::Verification check = arrays.verify();
        const cudaError_t later = cudaGetLastError();  // reads and clears the remembered error
        demo.observed = error_name(later);
        demo.message = check.passed ? "result check PASSED (it should not have)"
                                    : "result check: " + check.detail;
        conclude(demo, !check.passed && is_too_big_block_error(demo.observed));
        demos.push_back(demo);
    }

    // 3. An allocation larger than the device's memory: cudaMalloc refuses it at once.
    const std::size_t bytes = global_memory + (std::size_t{1} << 30);
    demos.push_back(refused_request(
        "cudaMalloc of " + ct::format_bytes(static_cast<double>(bytes)) +
            " (more than the GPU has)",
        "cudaMalloc (DeviceBuffer)", error_name(cudaErrorMemoryAllocation),
        [](const std::string& observed) {
            return observed == error_name(cudaErrorMemoryAllocation);
        },
        [&] { ct::DeviceBuffer<unsigned char> too_big(bytes); }));
    return demos;
}

int run_illegal_address_child() {
    write_through_kernel<<<1, 32>>>(nullptr);
    const cudaError_t launch = cudaGetLastError();     // the launch itself was fine
    const cudaError_t sync = cudaDeviceSynchronize();  // the fault shows here
    void* pointer = nullptr;
    const cudaError_t after = cudaMalloc(&pointer, 4);  // and stays: the context is gone
    std::cout << "illegal-address-demo launch=" << error_name(launch)
              << " sync=" << error_name(sync) << " after=" << error_name(after)
              << " message=" << cudaGetErrorString(sync) << std::endl;
    return 0;
}

namespace {

std::string shell_quoted(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

std::string field(const std::string& line, const std::string& key) {
    const std::size_t start = line.find(key + "=");
    if (start == std::string::npos) {
        return {};
    }
    const std::size_t value = start + key.size() + 1;
    return key == "message" ? line.substr(value)
                            : line.substr(value, line.find(' ', value) - value);
}

}  // namespace

ErrorDemo run_illegal_address_demo(const std::string& program, int device) {
    ErrorDemo demo;
    demo.what = "a kernel writes through a null pointer (in a child process)";
    demo.reported_by = "cudaDeviceSynchronize, not the launch";
    demo.expected = error_name(cudaErrorIllegalAddress);
    const std::string command = shell_quoted(program) + " --illegal-address-child --device " +
                                std::to_string(device) + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    std::string report;
    if (pipe) {
        char buffer[512];
        while (std::fgets(buffer, sizeof buffer, pipe.get()) != nullptr) {
            const std::string line = buffer;
            if (line.rfind("illegal-address-demo ", 0) == 0) {
                report = line.substr(0, line.find('\n'));
            }
        }
    }
    if (report.empty()) {
        demo.observed = "no report";
        demo.message = "the child process did not report (" + command + ")";
        demo.afterwards = "-";
        return demo;
    }
    demo.observed = field(report, "sync");
    demo.message =
        "launch returned " + field(report, "launch") + "; synchronize: " + field(report, "message");
    const std::string after = field(report, "after");
    demo.afterwards = "in that process every later call fails: cudaMalloc returned " + after;
    demo.as_expected = field(report, "launch") == "cudaSuccess" && demo.observed == demo.expected &&
                       after == demo.expected;
    return demo;
}

}  // namespace first_kernel
