// Green contexts: a stream confined to a partition of the GPU's SMs.
//
// What it is: the four steps of the driver's green-context API. Read the device's SM resource
// (cuDeviceGetDevResource), split off one group of N SMs (cuDevSmResourceSplitByCount), turn the
// group into a descriptor (cuDevResourceGenerateDesc), create a green context from it
// (cuGreenCtxCreate) and a stream in that context (cuGreenCtxStreamCreate). Runtime-API kernels
// and events work on that stream as on any other: only the SMs they may use change.
//
// Why the driver API, reached through entry points:
//  - CUDA 13.0's runtime has no way to confine a stream to some SMs: its execution contexts
//    (cudaDeviceGetDevResource, cudaGreenCtxCreate, ...) are CUDA 13.1 and not in the 13.0
//    headers this course is built with. The driver API has had green contexts since 12.4 and
//    their streams since 12.5.
//  - Linking libcuda (CUDA::cuda_driver) would bind these symbols when the program loads: on a
//    driver without them the whole chapter would refuse to start, not just this section. Taking
//    the functions from cudaGetDriverEntryPointByVersion instead lets an old driver say
//    "not supported" at run time, and the other sections run as before. It also needs no extra
//    library: the runtime finds the driver it already uses.
//
// What to look for: sm_count() is what the driver gave, read back from the context (a request is
// rounded up to smCoscheduledAlignment). The minimum partition and the alignment come from the
// device's resource, never from a table: 8 and 8 on compute capability 9.0, by the driver
// documentation's guideline 4 and 2 on 8.x, 2 and 2 on 7.x.
#include "green_context.hpp"

#include <cuda.h>

#include <string>

#if CUDA_VERSION >= 12050
#include <cudaTypedefs.h>
#define CT_GREEN_CONTEXTS 1
#else
#define CT_GREEN_CONTEXTS 0
#endif

namespace execution_model {

#if CT_GREEN_CONTEXTS

namespace {

// The driver functions this file uses, at the ABI of CUDA 12.5 (the first with green-context
// streams). `missing` names the first one the driver could not give.
struct Driver {
    PFN_cuGetErrorName_v6000 error_name = nullptr;
    PFN_cuDeviceGet_v2000 device_get = nullptr;
    PFN_cuDeviceGetDevResource_v12040 device_resource = nullptr;
    PFN_cuDevSmResourceSplitByCount_v12040 split_by_count = nullptr;
    PFN_cuDevResourceGenerateDesc_v12040 generate_desc = nullptr;
    PFN_cuGreenCtxCreate_v12040 create = nullptr;
    PFN_cuGreenCtxDestroy_v12040 destroy = nullptr;
    PFN_cuGreenCtxGetDevResource_v12040 context_resource = nullptr;
    PFN_cuGreenCtxStreamCreate_v12050 stream_create = nullptr;
    PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;
    std::string missing;
};

constexpr unsigned int kAbiVersion = 12050;

template <typename Function>
void load(Driver& driver, Function& function, const char* symbol) {
    if (!driver.missing.empty()) {
        return;
    }
    void* pointer = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t error =
        cudaGetDriverEntryPointByVersion(symbol, &pointer, kAbiVersion, cudaEnableDefault, &status);
    if (error != cudaSuccess || status != cudaDriverEntryPointSuccess || pointer == nullptr) {
        cudaGetLastError();  // not sticky; keep it out of the next CT_CHECK
        int version = 0;
        cudaDriverGetVersion(&version);
        driver.missing =
            std::string(symbol) + " not available from this driver (it supports CUDA " +
            std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10) +
            "; green-context streams need 12.5 or newer)";
        return;
    }
    function = reinterpret_cast<Function>(pointer);
}

const Driver& driver() {
    static const Driver loaded = [] {
        Driver d;
        load(d, d.error_name, "cuGetErrorName");
        load(d, d.device_get, "cuDeviceGet");
        load(d, d.device_resource, "cuDeviceGetDevResource");
        load(d, d.split_by_count, "cuDevSmResourceSplitByCount");
        load(d, d.generate_desc, "cuDevResourceGenerateDesc");
        load(d, d.create, "cuGreenCtxCreate");
        load(d, d.destroy, "cuGreenCtxDestroy");
        load(d, d.context_resource, "cuGreenCtxGetDevResource");
        load(d, d.stream_create, "cuGreenCtxStreamCreate");
        load(d, d.stream_destroy, "cuStreamDestroy");
        return d;
    }();
    return loaded;
}

std::string error_text(CUresult result) {
    const char* name = nullptr;
    if (driver().error_name == nullptr || driver().error_name(result, &name) != CUDA_SUCCESS ||
        name == nullptr) {
        return "CUresult " + std::to_string(static_cast<int>(result));
    }
    return name;
}

void check(CUresult result, const std::string& call) {
    if (result != CUDA_SUCCESS) {
        throw GreenContextError(call + " failed: " + error_text(result));
    }
}

const Driver& require_driver() {
    const Driver& d = driver();
    if (!d.missing.empty()) {
        throw GreenContextError(d.missing);
    }
    return d;
}

CUdevResource device_sm_resource(int device, CUdevice* handle) {
    const Driver& d = require_driver();
    // The green context retains the primary context; the runtime must have made it first, or
    // the driver creates and destroys one per green context (slow, and not what the runtime's
    // allocations live in).
    if (cudaFree(nullptr) != cudaSuccess) {
        cudaGetLastError();
        throw GreenContextError("the CUDA runtime could not initialize device " +
                                std::to_string(device));
    }
    check(d.device_get(handle, device), "cuDeviceGet");
    CUdevResource resource{};
    check(d.device_resource(*handle, &resource, CU_DEV_RESOURCE_TYPE_SM),
          "cuDeviceGetDevResource(SM)");
    return resource;
}

}  // namespace

GreenContextSupport green_context_support(int device) {
    GreenContextSupport support;
    try {
        CUdevice handle{};
        const CUdevResource resource = device_sm_resource(device, &handle);
        support.sm.sm_count = static_cast<int>(resource.sm.smCount);
        support.sm.min_partition = static_cast<int>(resource.sm.minSmPartitionSize);
        support.sm.alignment = static_cast<int>(resource.sm.smCoscheduledAlignment);
        support.supported = support.sm.sm_count > 0;
        if (!support.supported) {
            support.why_not = "the driver reports an SM resource of 0 SMs";
        }
    } catch (const GreenContextError& error) {
        support.why_not = error.what();
    }
    return support;
}

struct SmPartition::Handles {
    CUgreenCtx context = nullptr;
    CUstream stream = nullptr;
    int sm_count = 0;
    ~Handles() {
        // The stream first: destroying the context does not destroy its streams.
        if (stream != nullptr) {
            driver().stream_destroy(stream);
        }
        if (context != nullptr) {
            driver().destroy(context);
        }
    }
};

SmPartition::SmPartition(int device, int requested_sms) : handles_(std::make_unique<Handles>()) {
    CUdevice handle{};
    CUdevResource whole = device_sm_resource(device, &handle);
    const Driver& d = driver();
    CUdevResource group{};
    CUdevResource* chosen = &whole;
    if (requested_sms < static_cast<int>(whole.sm.smCount)) {
        unsigned int groups = 1;
        check(d.split_by_count(&group, &groups, &whole, nullptr, 0,
                               static_cast<unsigned int>(requested_sms)),
              "cuDevSmResourceSplitByCount(" + std::to_string(requested_sms) + " SMs)");
        if (groups < 1) {
            throw GreenContextError("cuDevSmResourceSplitByCount made no group of " +
                                    std::to_string(requested_sms) + " SMs");
        }
        chosen = &group;
    }
    CUdevResourceDesc description = nullptr;
    check(d.generate_desc(&description, chosen, 1), "cuDevResourceGenerateDesc");
    check(d.create(&handles_->context, description, handle, CU_GREEN_CTX_DEFAULT_STREAM),
          "cuGreenCtxCreate");
    check(d.stream_create(&handles_->stream, handles_->context, CU_STREAM_NON_BLOCKING, 0),
          "cuGreenCtxStreamCreate");
    CUdevResource held{};
    check(d.context_resource(handles_->context, &held, CU_DEV_RESOURCE_TYPE_SM),
          "cuGreenCtxGetDevResource(SM)");
    handles_->sm_count = static_cast<int>(held.sm.smCount);
}

#else  // headers older than CUDA 12.5: no green-context streams to call

GreenContextSupport green_context_support(int) {
    GreenContextSupport support;
    support.why_not = "built with CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                      std::to_string(CUDA_VERSION % 1000 / 10) +
                      " headers; green-context streams need CUDA 12.5 or newer";
    return support;
}

struct SmPartition::Handles {
    int sm_count = 0;
};

SmPartition::SmPartition(int device, int) : handles_(std::make_unique<Handles>()) {
    throw GreenContextError(green_context_support(device).why_not);
}

#endif

SmPartition::~SmPartition() = default;

cudaStream_t SmPartition::stream() const {
#if CT_GREEN_CONTEXTS
    return handles_->stream;
#else
    return nullptr;
#endif
}

int SmPartition::sm_count() const {
    return handles_->sm_count;
}

}  // namespace execution_model
