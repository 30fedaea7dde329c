/// @file green_context.hpp
/// @brief A stream whose kernels may only use some of the GPU's SMs: a green context (CUDA
/// 12.4+ driver API) holding an SM partition, with one stream in it.
///
/// Used by the scaling section (sm_scaling.hpp) to run the same grid on 8, 16, 24, ... SMs and
/// watch the time fall (or stop falling). The runtime API cannot do this in CUDA 13.0 (its
/// execution contexts arrive in 13.1); green_context.cpp says why the driver API is reached
/// through entry points rather than linked.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace execution_model {

/// What the driver says about partitioning the device's SMs.
struct SmResource {
    int sm_count = 0;       ///< SMs in the device's resource (all of them)
    int min_partition = 0;  ///< minSmPartitionSize: the smallest group a split can make
    int alignment = 0;      ///< smCoscheduledAlignment: group sizes are multiples of this
};

/// Whether green contexts can be used on a device, and if not, why.
struct GreenContextSupport {
    bool supported = false;
    std::string why_not;  ///< the reason, when not supported (old driver, API error, build)
    SmResource sm;        ///< valid when supported
};

/// Asks the driver for the device's SM resource (cuDeviceGetDevResource). Never throws: every
/// failure (a driver older than CUDA 12.5, a device or a setup without green contexts, a build
/// against headers without them) comes back as supported = false with the reason.
GreenContextSupport green_context_support(int device);

/// A green context of `requested_sms` SMs of `device` and a non-blocking stream in it; every
/// kernel launched on stream() runs on those SMs only (barring the driver's documented
/// exceptions: MPS thread percentages, a loaded CDP module on compute capability 9.x). When
/// `requested_sms` is the device's whole SM count the context holds the whole, unsplit resource.
/// The driver rounds a request up to its alignment; sm_count() is what it gave. Throws
/// GreenContextError when the driver refuses.
class SmPartition {
  public:
    SmPartition(int device, int requested_sms);
    ~SmPartition();
    SmPartition(const SmPartition&) = delete;
    SmPartition& operator=(const SmPartition&) = delete;

    /// The stream to launch on (usable with the runtime API: <<<..., stream>>>, events).
    cudaStream_t stream() const;
    /// SMs the green context holds, read back from the driver (cuGreenCtxGetDevResource).
    int sm_count() const;

  private:
    struct Handles;
    std::unique_ptr<Handles> handles_;
};

/// A green-context call the driver refused (message: the call and the driver's error name).
class GreenContextError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace execution_model
