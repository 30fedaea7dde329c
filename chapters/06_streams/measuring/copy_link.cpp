#include "copy_link.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>

#include "cudatutorial/report.hpp"

namespace streams {

double pcie_lane_gbs(unsigned int generation) {
    switch (generation) {
        case 1:
            return 2.5 * 8.0 / 10.0 / 8.0;  // GT/s x encoding / 8 bits
        case 2:
            return 5.0 * 8.0 / 10.0 / 8.0;
        case 3:
            return 8.0 * 128.0 / 130.0 / 8.0;
        case 4:
            return 16.0 * 128.0 / 130.0 / 8.0;
        case 5:
            return 32.0 * 128.0 / 130.0 / 8.0;
        case 6:
            return 64.0 * 242.0 / 256.0 / 8.0;
        default:
            return 0.0;
    }
}

double pcie_link_gbs(unsigned int generation, unsigned int width) {
    return pcie_lane_gbs(generation) * width;
}

std::string HostLink::describe() const {
    const std::string rate = theoretical_gbs > 0
                                 ? ", " + cudatutorial::format_fixed(theoretical_gbs, 1) +
                                       " GB/s per direction in theory"
                                 : "";
    switch (kind) {
        case Kind::kPcie:
            return "PCIe gen " + std::to_string(current_generation) + " x" +
                   std::to_string(current_width) + " now (max gen " +
                   std::to_string(max_generation) + " x" + std::to_string(max_width) + ")" + rate +
                   ", read through NVML";
        case Kind::kC2c:
            return "NVLink-C2C, " + std::to_string(c2c_links) + " active link" +
                   (c2c_links == 1 ? "" : "s") + rate + ", read through NVML";
        case Kind::kUnknown:
            break;
    }
    return "unknown (" + problem + "): no % of link column";
}

namespace {

// NVML's C interface (nvml.h), the few entry points used here, declared with the library's own
// types so that neither the header nor the library is needed to build. nvmlReturn_t is an enum
// (an int), NVML_SUCCESS is 0, nvmlDevice_t an opaque pointer.
using NvmlDevice = struct NvmlDeviceOpaque*;
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlHandleByPciBusId = int (*)(const char* bus_id, NvmlDevice* device);
using NvmlUintQuery = int (*)(NvmlDevice device, unsigned int* value);
struct NvmlC2cModeInfo {  // nvmlC2cModeInfo_v1_t
    unsigned int is_c2c_enabled;
};
using NvmlC2cModeInfoQuery = int (*)(NvmlDevice device, NvmlC2cModeInfo* info);
struct NvmlFieldValue {  // nvmlFieldValue_t
    unsigned int field_id;
    unsigned int scope_id;
    long long timestamp;
    long long latency_us;
    int value_type;
    int nvml_return;
    union {
        double d;
        unsigned int ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
        int si;
        unsigned short us;
    } value;
};
using NvmlFieldValues = int (*)(NvmlDevice device, int count, NvmlFieldValue* values);
constexpr unsigned int kFieldC2cLinkCount = 170;   // NVML_FI_DEV_C2C_LINK_COUNT
constexpr unsigned int kFieldC2cLinkStatus = 171;  // NVML_FI_DEV_C2C_LINK_GET_STATUS (1 active)
constexpr unsigned int kFieldC2cLinkMaxBw = 172;   // NVML_FI_DEV_C2C_LINK_GET_MAX_BW (MB/s)

template <typename Function>
Function symbol(void* library, const char* name) {
    return reinterpret_cast<Function>(dlsym(library, name));
}

// Fills the C2C part of `link` if NVML says the host link is NVLink-C2C; false otherwise.
bool read_c2c(void* library, NvmlDevice device, HostLink& link) {
    const auto mode = symbol<NvmlC2cModeInfoQuery>(library, "nvmlDeviceGetC2cModeInfoV");
    NvmlC2cModeInfo info{0};
    if (!mode || mode(device, &info) != 0 || !info.is_c2c_enabled) {
        return false;  // an older driver, or a GPU on PCIe
    }
    link.kind = HostLink::Kind::kC2c;
    const auto fields = symbol<NvmlFieldValues>(library, "nvmlDeviceGetFieldValues");
    NvmlFieldValue count{};
    count.field_id = kFieldC2cLinkCount;
    if (!fields || fields(device, 1, &count) != 0 || count.nvml_return != 0) {
        return true;  // C2C, but no rate: no % column
    }
    double total_mbs = 0.0;
    for (unsigned int l = 0; l < count.value.ui; ++l) {
        NvmlFieldValue pair[2] = {};
        pair[0].field_id = kFieldC2cLinkStatus;
        pair[0].scope_id = l;
        pair[1].field_id = kFieldC2cLinkMaxBw;
        pair[1].scope_id = l;
        if (fields(device, 2, pair) == 0 && pair[0].nvml_return == 0 && pair[0].value.ui == 1 &&
            pair[1].nvml_return == 0) {
            ++link.c2c_links;
            total_mbs += pair[1].value.ui;
        }
    }
    link.theoretical_gbs = total_mbs / 1000.0;
    return true;
}

}  // namespace

HostLink read_host_link(int device) {
    HostLink link;
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) {
        link.problem = "cudaDeviceGetPCIBusId failed";
        return link;
    }
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        link.problem = "NVML (libnvidia-ml.so.1) not found";
        return link;
    }
    const auto init = symbol<NvmlInit>(library, "nvmlInit_v2");
    const auto shutdown = symbol<NvmlShutdown>(library, "nvmlShutdown");
    const auto handle = symbol<NvmlHandleByPciBusId>(library, "nvmlDeviceGetHandleByPciBusId_v2");
    if (!init || !shutdown || !handle || init() != 0) {
        link.problem = "NVML could not be initialized";
        dlclose(library);
        return link;
    }
    link.nvml_loaded = true;
    NvmlDevice nvml_device = nullptr;
    if (handle(bus_id, &nvml_device) != 0) {
        link.problem = std::string("NVML does not know the GPU at ") + bus_id;
    } else if (!read_c2c(library, nvml_device, link)) {
        const char* names[4] = {
            "nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetCurrPcieLinkWidth",
            "nvmlDeviceGetMaxPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkWidth"};
        unsigned int* targets[4] = {&link.current_generation, &link.current_width,
                                    &link.max_generation, &link.max_width};
        bool all = true;
        for (int i = 0; i < 4; ++i) {
            const auto query = symbol<NvmlUintQuery>(library, names[i]);
            all = all && query && query(nvml_device, targets[i]) == 0;
        }
        if (all) {
            link.kind = HostLink::Kind::kPcie;
            link.theoretical_gbs = pcie_link_gbs(link.max_generation, link.max_width);
        } else {
            link.problem = "NVML did not report the PCIe link";
        }
    }
    shutdown();
    dlclose(library);
    return link;
}

}  // namespace streams
