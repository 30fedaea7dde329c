#include "cudatutorial/clocks.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>

#include "cudatutorial/check.hpp"

namespace cudatutorial {

namespace {

// NVML's C entry points and constants (nvml.h), declared here so that neither the header nor
// the library is needed to build: libnvidia-ml ships with the driver, not with the toolkit.
using NvmlDevice = void*;
using NvmlCall = int (*)();
using NvmlHandleByBusId = int (*)(const char* bus_id, NvmlDevice* device);
using NvmlClockInfo = int (*)(NvmlDevice device, int type, unsigned* mhz);
using NvmlReasons = int (*)(NvmlDevice device, unsigned long long* reasons);
using NvmlEnergy = int (*)(NvmlDevice device, unsigned long long* millijoules);
using NvmlPowerLimit = int (*)(NvmlDevice device, unsigned* milliwatts);
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMemory = 2;
// Reasons that are no slowdown: the GPU idle between batches, clocks set by the administrator,
// sync boost across GPUs, the display clock.
constexpr unsigned long long kBenignReasons = 0x1 | 0x2 | 0x10 | 0x100;

struct Nvml {
    NvmlHandleByBusId handle_by_bus_id = nullptr;
    NvmlClockInfo clock_info = nullptr;
    NvmlReasons reasons = nullptr;
    NvmlEnergy energy = nullptr;  // Volta and later
    NvmlPowerLimit power_limit = nullptr;
    bool ready = false;

    Nvml() {
        void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) {
            return;
        }
        const auto init = reinterpret_cast<NvmlCall>(dlsym(library, "nvmlInit_v2"));
        handle_by_bus_id =
            reinterpret_cast<NvmlHandleByBusId>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
        clock_info = reinterpret_cast<NvmlClockInfo>(dlsym(library, "nvmlDeviceGetClockInfo"));
        // Renamed in NVML 12.2 ("clocks event reasons"); older drivers have the first name only.
        reasons =
            reinterpret_cast<NvmlReasons>(dlsym(library, "nvmlDeviceGetCurrentClocksEventReasons"));
        if (reasons == nullptr) {
            reasons = reinterpret_cast<NvmlReasons>(
                dlsym(library, "nvmlDeviceGetCurrentClocksThrottleReasons"));
        }
        energy =
            reinterpret_cast<NvmlEnergy>(dlsym(library, "nvmlDeviceGetTotalEnergyConsumption"));
        power_limit =
            reinterpret_cast<NvmlPowerLimit>(dlsym(library, "nvmlDeviceGetEnforcedPowerLimit"));
        // Kept loaded and initialised for the life of the process: a reading then costs
        // microseconds.
        ready =
            init != nullptr && handle_by_bus_id != nullptr && clock_info != nullptr && init() == 0;
    }
};

std::mutex observation_mutex;
ClockObservation observation;

void widen(unsigned value, unsigned& low, unsigned& high, bool first) {
    low = first ? value : std::min(low, value);
    high = first ? value : std::max(high, value);
}

std::string range_text(unsigned low, unsigned high) {
    return low == high ? std::to_string(low) : std::to_string(low) + "-" + std::to_string(high);
}

}  // namespace

std::string ClockObservation::throttle_text() const {
    if (reasons == 0) {
        return "none";
    }
    const struct {
        unsigned long long bit;
        const char* name;
    } names[] = {{0x4, "power cap"},
                 {0x8, "hardware slowdown"},
                 {0x20, "thermal (software)"},
                 {0x40, "thermal (hardware)"},
                 {0x80, "power brake"}};
    std::string text;
    unsigned long long named = 0;
    for (const auto& name : names) {
        if (reasons & name.bit) {
            text += (text.empty() ? "" : ", ") + std::string(name.name);
            named |= name.bit;
        }
    }
    if (reasons & ~named) {
        text += (text.empty() ? "" : ", ") + std::string("other (NVML reason bits ") +
                std::to_string(reasons & ~named) + ")";
    }
    return text;
}

std::string ClockObservation::describe() const {
    if (samples == 0) {
        return "not observed (NVML unavailable)";
    }
    return "SM " + range_text(sm_mhz_min, sm_mhz_max) + " MHz, memory " +
           range_text(memory_mhz_min, memory_mhz_max) + " MHz, " +
           (reasons == 0 ? std::string("no throttling") : "throttled: " + throttle_text()) + " (" +
           std::to_string(samples) + " readings)";
}

namespace {

const Nvml& nvml_library() {
    static const Nvml nvml;
    return nvml;
}

/// NVML's handle of the current device (matched by PCI bus id), or nullptr.
NvmlDevice current_nvml_device() {
    const Nvml& nvml = nvml_library();
    int device = 0;
    char bus_id[32] = {};
    if (!nvml.ready || cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    NvmlDevice handle = nullptr;
    return nvml.handle_by_bus_id(bus_id, &handle) == 0 ? handle : nullptr;
}

}  // namespace

void observe_clocks() {
    const Nvml& nvml = nvml_library();
    const NvmlDevice handle = current_nvml_device();
    if (handle == nullptr) {
        return;
    }
    unsigned sm = 0;
    unsigned memory = 0;
    if (nvml.clock_info(handle, kNvmlClockSm, &sm) != 0 ||
        nvml.clock_info(handle, kNvmlClockMemory, &memory) != 0) {
        return;
    }
    unsigned long long reasons = 0;
    if (nvml.reasons != nullptr && nvml.reasons(handle, &reasons) != 0) {
        reasons = 0;
    }
    const std::lock_guard<std::mutex> lock(observation_mutex);
    const bool first = observation.samples == 0;
    widen(sm, observation.sm_mhz_min, observation.sm_mhz_max, first);
    widen(memory, observation.memory_mhz_min, observation.memory_mhz_max, first);
    observation.reasons |= reasons & ~kBenignReasons;
    ++observation.samples;
}

ClockSampler::ClockSampler(int period_ms) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        device = 0;
    }
    thread_ = std::thread([this, device, period_ms] {
        // The current device is per thread: this one reads the maker's.
        if (cudaSetDevice(device) != cudaSuccess) {
            cudaGetLastError();
            return;
        }
        while (!stop_.load()) {
            observe_clocks();
            for (int waited = 0; waited < period_ms && !stop_.load(); waited += 5) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        }
    });
}

ClockSampler::~ClockSampler() {
    stop_.store(true);
    if (thread_.joinable()) {
        thread_.join();
    }
}

std::string PowerReading::describe() const {
    if (!observed) {
        return "not observed (NVML or its energy counter unavailable)";
    }
    return format_fixed(watts, 0) + " W" +
           (limit_watts > 0 ? " of " + format_fixed(limit_watts, 0) + " W" : std::string()) +
           ", SM " + std::to_string(sm_mhz) + " MHz over " + format_fixed(seconds, 2) + " s";
}

PowerReading measure_power(const std::function<void()>& queue_batch, double seconds) {
    PowerReading reading;
    const Nvml& nvml = nvml_library();
    const NvmlDevice handle = current_nvml_device();
    unsigned long long start_mj = 0;
    const bool counted =
        handle != nullptr && nvml.energy != nullptr && nvml.energy(handle, &start_mj) == 0;
    std::vector<unsigned> sm_mhz;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    int batches = 0;
    do {
        queue_batch();
        ++batches;
        unsigned mhz = 0;  // read while the batch runs
        if (handle != nullptr && nvml.clock_info(handle, kNvmlClockSm, &mhz) == 0) {
            sm_mhz.push_back(mhz);
        }
        CT_CHECK(cudaDeviceSynchronize());
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < seconds);
    unsigned long long end_mj = 0;
    if (!counted || nvml.energy(handle, &end_mj) != 0 || sm_mhz.empty()) {
        return reading;
    }
    reading.observed = true;
    reading.seconds = elapsed;
    reading.batches = batches;
    reading.watts = static_cast<double>(end_mj - start_mj) * 1e-3 / elapsed;
    unsigned limit_mw = 0;
    if (nvml.power_limit != nullptr && nvml.power_limit(handle, &limit_mw) == 0) {
        reading.limit_watts = limit_mw * 1e-3;
    }
    std::nth_element(sm_mhz.begin(), sm_mhz.begin() + sm_mhz.size() / 2, sm_mhz.end());
    reading.sm_mhz = sm_mhz[sm_mhz.size() / 2];
    reading.clock_readings = static_cast<int>(sm_mhz.size());
    return reading;
}

ClockObservation observed_clocks() {
    const std::lock_guard<std::mutex> lock(observation_mutex);
    return observation;
}

void record_clocks(RunInfo& info) {
    const ClockObservation seen = observed_clocks();
    info.set("clocks during timing", seen.describe());
    info.clocks_observed = seen.samples > 0;
    info.sm_mhz_min = seen.sm_mhz_min;
    info.sm_mhz_max = seen.sm_mhz_max;
    info.memory_mhz_min = seen.memory_mhz_min;
    info.memory_mhz_max = seen.memory_mhz_max;
    info.throttle = seen.samples > 0 ? seen.throttle_text() : std::string();
}

}  // namespace cudatutorial
