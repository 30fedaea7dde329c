#include "cudatutorial/device_info.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "cudatutorial/check.hpp"

namespace cudatutorial {

std::string DeviceInfo::compute_capability() const {
    return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

double DeviceInfo::theoretical_bandwidth_gbs() const {
    return cudatutorial::theoretical_bandwidth_gbs(memory_clock_khz, memory_bus_width_bits);
}

double theoretical_bandwidth_gbs(int memory_clock_khz, int memory_bus_width_bits) {
    if (memory_clock_khz <= 0 || memory_bus_width_bits <= 0) {
        return 0.0;
    }
    const double transfers_per_second = 2.0 * memory_clock_khz * 1e3;
    return transfers_per_second * (memory_bus_width_bits / 8.0) / 1e9;
}

std::string cuda_version_string(int encoded_version) {
    const int major = encoded_version / 1000;
    const int minor = (encoded_version % 1000) / 10;
    return std::to_string(major) + "." + std::to_string(minor);
}

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the error so that later calls do not see it
        return 0;
    }
    return count;
}

namespace {

// NVML's C entry points (nvml.h), declared here so that neither the header nor the library is
// needed to build: libnvidia-ml ships with the driver, not with the toolkit.
using NvmlCall = int (*)();
using NvmlDriverVersion = int (*)(char* version, unsigned int length);

std::string driver_release_from_nvml() {
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        return {};
    }
    std::string release;
    const auto init = reinterpret_cast<NvmlCall>(dlsym(library, "nvmlInit_v2"));
    const auto shutdown = reinterpret_cast<NvmlCall>(dlsym(library, "nvmlShutdown"));
    const auto version =
        reinterpret_cast<NvmlDriverVersion>(dlsym(library, "nvmlSystemGetDriverVersion"));
    if (init != nullptr && shutdown != nullptr && version != nullptr && init() == 0) {
        char text[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
        if (version(text, sizeof text - 1) == 0) {
            release = text;
        }
        shutdown();
    }
    dlclose(library);
    return release;
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Thu Sep ..." -> "580.95.05"
std::string driver_release_from_proc() {
    std::ifstream file("/proc/driver/nvidia/version");
    std::string line;
    if (!std::getline(file, line)) {
        return {};
    }
    std::istringstream words(line);
    for (std::string word; words >> word;) {
        if (word.find('.') != std::string::npos &&
            word.find_first_not_of("0123456789.") == std::string::npos) {
            return word;
        }
    }
    return {};
}

int attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    // Some attributes are not reported on every platform; 0 then means "unknown".
    if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return value;
}

}  // namespace

std::string nvidia_driver_release() {
    const std::string release = driver_release_from_nvml();
    return release.empty() ? driver_release_from_proc() : release;
}

std::string no_device_message(int code) {
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) {
        cudaGetLastError();
        driver = 0;  // 0 also means "no driver installed"
    }
    int runtime = 0;
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) {
        cudaGetLastError();
    }
    if (driver > 0 && code == cudaErrorInsufficientDriver) {
        const std::string release = nvidia_driver_release();
        return "the NVIDIA driver" + (release.empty() ? "" : " " + release) +
               " supports CUDA up to " + cuda_version_string(driver) +
               ", but this program was built with CUDA " + cuda_version_string(runtime) +
               ": install a newer NVIDIA driver, or build with an older CUDA toolkit.";
    }
    // One line: where to find a GPU (the top README's "Your machine" covers hosted ones), then
    // what runs without one.
    const std::string what =
        driver == 0 ? "no NVIDIA GPU or driver was found"
                    : "no NVIDIA GPU was found (a driver is installed, but it sees no GPU)";
    return what +
           ": see \"Your machine\" in README.md for a hosted GPU (without one, any chapter's "
           "--help and --stage list, execution_model --section warps, the --profile-help of "
           "chapters 1 and 2, make test's CPU tests and make docs still run)";
}

double device_bandwidth_gbs(int device) {
    return theoretical_bandwidth_gbs(attribute(cudaDevAttrMemoryClockRate, device),
                                     attribute(cudaDevAttrGlobalMemoryBusWidth, device));
}

DeviceInfo query_device(int device) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        cudaGetLastError();
        const cudaError_t code = status == cudaSuccess ? cudaErrorNoDevice : status;
        throw NoDeviceError(code, no_device_message(code));
    }
    if (device < 0 || device >= count) {
        throw UsageError("--device", std::to_string(device) + " does not exist: this machine has " +
                                         std::to_string(count) + " CUDA device(s), numbered 0.." +
                                         std::to_string(count - 1));
    }
    cudaDeviceProp prop{};
    CT_CHECK(cudaGetDeviceProperties(&prop, device));

    DeviceInfo info;
    info.id = device;
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.warp_size = prop.warpSize;
    info.max_threads_per_block = prop.maxThreadsPerBlock;
    for (int d = 0; d < 3; ++d) {
        info.max_block_dim[d] = prop.maxThreadsDim[d];
        info.max_grid_dim[d] = prop.maxGridSize[d];
    }
    info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    info.max_warps_per_sm =
        prop.warpSize > 0 ? prop.maxThreadsPerMultiProcessor / prop.warpSize : 0;
    info.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    info.shared_mem_per_block = prop.sharedMemPerBlock;
    info.shared_mem_per_block_optin = prop.sharedMemPerBlockOptin;
    info.shared_mem_per_sm = prop.sharedMemPerMultiprocessor;
    info.registers_per_block = prop.regsPerBlock;
    info.registers_per_sm = prop.regsPerMultiprocessor;
    info.constant_memory = prop.totalConstMem;
    info.global_memory = prop.totalGlobalMem;
    info.l2_cache_bytes = prop.l2CacheSize;
    info.async_engine_count = prop.asyncEngineCount;
    info.concurrent_kernels = prop.concurrentKernels != 0;
    info.integrated = prop.integrated != 0;
    // Removed from cudaDeviceProp in CUDA 13: read them as attributes.
    info.sm_clock_khz = attribute(cudaDevAttrClockRate, device);
    info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
    info.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    CT_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    CT_CHECK(cudaDriverGetVersion(&info.driver_version));
    info.driver_release = nvidia_driver_release();
    return info;
}

DeviceInfo select_device(int device) {
    DeviceInfo info = query_device(device);
    CT_CHECK(cudaSetDevice(device));
    return info;
}

std::size_t free_device_memory() {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    CT_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

void require_device_memory(std::size_t bytes, const std::string& what) {
    const std::size_t free_bytes = free_device_memory();
    // Keep a reserve for the context, CUB's temporary storage and the L2 flush buffer.
    const std::size_t reserve = std::size_t{256} << 20;
    if (bytes + reserve > free_bytes) {
        throw UsageError(what + " needs " + format_bytes(static_cast<double>(bytes)) +
                         " of device memory, but only " +
                         format_bytes(static_cast<double>(free_bytes)) +
                         " is free (256 MiB kept in reserve). Choose a smaller size.");
    }
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 4) {
        bytes /= 1024.0;
        ++unit;
    }
    char text[32];
    if (unit == 0) {
        std::snprintf(text, sizeof text, "%.0f B", bytes);
    } else {
        std::snprintf(text, sizeof text, bytes < 10 ? "%.2f %s" : "%.1f %s", bytes, units[unit]);
    }
    return text;
}

namespace {

std::string local_timestamp() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char text[40];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", &local);
    return text;
}

}  // namespace

RunInfo make_run_info(const std::string& program, const std::string& title,
                      const DeviceInfo& device) {
    RunInfo info;
    info.program = program;
    info.title = title;
    info.gpu_name = device.name;
    info.compute_capability = device.compute_capability();
    info.sm_count = device.sm_count;
    info.cuda_runtime = cuda_version_string(device.runtime_version);
    info.cuda_driver = cuda_version_string(device.driver_version);
    info.driver_version = device.driver_release;
    info.peak_bandwidth_gbs = device.theoretical_bandwidth_gbs();
    info.timestamp = local_timestamp();
    return info;
}

}  // namespace cudatutorial
