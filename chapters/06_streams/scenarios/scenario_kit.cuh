// What every scenario file shares: the timed kernel, the buffers of one run, and the names of
// this build. Every file in scenarios/ is compiled TWICE (see CMakeLists.txt): once as nvcc does
// by default and once with `--default-stream per-thread`. nvcc defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM in the second case, and the runtime header then maps
// cudaLaunchKernel, cudaMemcpy, cudaStreamSynchronize... (and so every <<<...>>> launch) to
// variants for which stream 0 means "this host thread's default stream". Nothing else differs.
//
// Two compilations of the same code in one program need distinct names, or the linker would
// merge them: everything here lives in namespace streams::legacy or streams::per_thread.
// The helpers of common/ (DeviceBuffer, CudaEvent, CudaStream) call the runtime out of line,
// from common/'s own compilation: with a null stream they mean the legacy default stream in both
// builds. Where a scenario means "this build's stream 0", it calls the runtime itself.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "streams.hpp"

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define STREAMS_BUILD per_thread
#define STREAMS_BUILD_IS_PER_THREAD 1
#else
#define STREAMS_BUILD legacy
#define STREAMS_BUILD_IS_PER_THREAD 0
#endif

// CMake says which build it meant to compile; a flag that did not reach nvcc stops the build here.
#if defined(STREAMS_EXPECT_PER_THREAD) && STREAMS_EXPECT_PER_THREAD != STREAMS_BUILD_IS_PER_THREAD
#error \
    "this target expects the other --default-stream setting: check chapters/06_streams/CMakeLists.txt"
#endif

namespace streams::STREAMS_BUILD {

/// What the kernel's single block writes about itself (poisoned to all ones before each run).
struct KernelTimes {
    unsigned long long start_ns;  ///< %globaltimer at the start of the block
    unsigned long long end_ns;    ///< %globaltimer at the end of the block
    unsigned int sm;              ///< %smid
    unsigned int padding;
};
static_assert(sizeof(KernelTimes) == 24,
              "device_bytes() in streams.cpp counts two 24-byte KernelTimes per kernel (times_ "
              "and primer_times_)");

/// This build's default stream for kernels issued by `host_thread` (0: the main thread).
StreamKind default_stream_kind();
std::string default_stream_label(int host_thread);

/// cudaStreamGetId of `stream` as this build resolves it (0 is resolved per build).
std::uint64_t stream_id_of(cudaStream_t stream);

class LegacyStreamSpan;

/// The device memory and the records of one scenario run: for each kernel slot, `n` output
/// elements and one KernelTimes.
class KernelSlots {
  public:
    /// Allocates, poisons with 0xff bytes, and waits for the poisoning to finish (cudaMemset
    /// runs in the default stream, which a non-blocking stream would not wait for).
    KernelSlots(int kernels, std::uint32_t n, std::uint32_t salt);

    /// Launches kernel `slot` on `stream`: a worker (kWorkerThreads threads writing n elements,
    /// then spinning until `duration_ns` after its start) or a dummy (one thread, one element,
    /// no spinning), and fills in what the record knows before the run.
    void launch(int slot, const std::string& name, Role role, cudaStream_t stream,
                const std::string& stream_label, StreamKind kind, int host_thread,
                std::uint64_t duration_ns);
    /// Same, with the stream id already known (for host threads that looked it up earlier).
    void launch_with_id(int slot, const std::string& name, Role role, cudaStream_t stream,
                        std::uint64_t stream_id, const std::string& stream_label, StreamKind kind,
                        int host_thread, std::uint64_t duration_ns);

    /// Launches an empty kernel on `stream` and waits for it, so that whatever the runtime sets
    /// up on a thread's first launch (a per-thread default stream...) is done before timing.
    /// It writes to a scratch record of `slot`, never to the slot's own record or output.
    void prime_stream(int slot, cudaStream_t stream);

    /// Waits for the whole device (cudaDeviceSynchronize: every stream, non-blocking ones
    /// included), reads `span`, copies times and outputs back and checks each kernel against
    /// the CPU reference.
    ScenarioRun finish(const LegacyStreamSpan& span);

  private:
    int kernels_;
    std::uint32_t n_;
    std::uint32_t salt_;
    cudatutorial::DeviceBuffer<KernelTimes> times_;
    cudatutorial::DeviceBuffer<KernelTimes> primer_times_;
    cudatutorial::DeviceBuffer<std::uint32_t> outputs_;
    std::vector<KernelRecord> records_;
    std::vector<std::uint32_t> elements_;  // what each slot's kernel was asked to write
};

/// A pair of events on the legacy default stream around a scenario's launches, to show what
/// such a measurement misses. The events are recorded on cudaStreamLegacy explicitly, so both
/// builds time the same thing.
class LegacyStreamSpan {
  public:
    void start();
    void stop();
    /// Milliseconds between the two events; call after the device is synchronized.
    double elapsed_ms() const;

  private:
    cudatutorial::CudaEvent start_;
    cudatutorial::CudaEvent stop_;
};

/// Microseconds (from the options) as whole nanoseconds for the kernels.
std::uint64_t to_ns(double microseconds);

// The scenarios, one file each (scenarios 1 and 2 differ only in one flag), are declared in
// streams.hpp for both builds.

}  // namespace streams::STREAMS_BUILD
