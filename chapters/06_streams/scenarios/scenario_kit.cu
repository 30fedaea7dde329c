// The kernel every scenario launches and the bookkeeping of one run, in both builds.
#include "scenario_kit.cuh"

#include <cmath>
#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "worker_output.hpp"

namespace streams::STREAMS_BUILD {

namespace {

using cudatutorial::global_timer_ns;
using cudatutorial::sm_id;

/// One block: writes `elements` checked values, then thread 0 spins on %globaltimer until
/// `duration_ns` after the block started, so the kernel lasts the same time on any GPU; the
/// block's start, end and SM go to `times`. Only thread 0 reads the clock; the barrier makes
/// the recorded end come after every thread's writes.
__global__ void timed_kernel(KernelTimes* times, std::uint32_t* out, std::uint32_t elements,
                             std::uint32_t kernel, std::uint32_t salt,
                             unsigned long long duration_ns) {
    unsigned long long start = 0;
    if (threadIdx.x == 0) {
        start = global_timer_ns();
    }
    for (std::uint32_t i = threadIdx.x; i < elements; i += blockDim.x) {
        out[i] = expected_output(salt, kernel, i);
    }
    if (threadIdx.x == 0) {
        while (global_timer_ns() - start < duration_ns) {
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        KernelTimes record;
        record.start_ns = start;
        record.end_ns = global_timer_ns();
        record.sm = sm_id();
        record.padding = 0;
        *times = record;
    }
}

/// CT_CHECK_LAUNCH also synchronizes the device in Debug builds, to pin an error to its launch.
/// Here that would serialize the very kernels whose overlap we measure, in both builds, so
/// launches are checked without synchronizing; an error inside a kernel surfaces at the
/// cudaDeviceSynchronize in KernelSlots::finish.
void check_launch_without_sync(const char* file, int line) {
    cudatutorial::check_cuda(cudaGetLastError(), "kernel launch", file, line);
}

/// With lazy module loading (the default since CUDA 12.2) a kernel's code is loaded on its first
/// launch, which may wait for work already running; one launch up front keeps that out of the
/// timelines.
void load_kernel_once() {
    static std::once_flag loaded;
    std::call_once(loaded, [] {
        cudatutorial::CudaStream stream(cudaStreamNonBlocking);
        cudatutorial::DeviceBuffer<KernelTimes> times(1);
        cudatutorial::DeviceBuffer<std::uint32_t> out(1);
        timed_kernel<<<1, 1, 0, stream.get()>>>(times.data(), out.data(), 1, 0, 0, 0);
        check_launch_without_sync(__FILE__, __LINE__);
        CT_CHECK(cudaStreamSynchronize(stream.get()));
    });
}

std::string hex(std::uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", value);
    return text;
}

}  // namespace

StreamKind default_stream_kind() {
#if STREAMS_BUILD_IS_PER_THREAD
    return StreamKind::kBlocking;  // an ordinary (blocking) stream, one per host thread
#else
    return StreamKind::kLegacyDefault;
#endif
}

std::string default_stream_label(int host_thread) {
#if STREAMS_BUILD_IS_PER_THREAD
    return host_thread == 0 ? std::string("default (per-thread, main)")
                            : "default (per-thread, T" + std::to_string(host_thread) + ")";
#else
    (void)host_thread;
    return "default (legacy)";
#endif
}

std::uint64_t stream_id_of(cudaStream_t stream) {
    unsigned long long id = 0;
    CT_CHECK(cudaStreamGetId(stream, &id));
    return id;
}

std::uint64_t to_ns(double microseconds) {
    return static_cast<std::uint64_t>(std::llround(microseconds * 1000.0));
}

KernelSlots::KernelSlots(int kernels, std::uint32_t n, std::uint32_t salt)
    : kernels_(kernels),
      n_(n),
      salt_(salt),
      times_(static_cast<std::size_t>(kernels)),
      primer_times_(static_cast<std::size_t>(kernels)),
      outputs_(static_cast<std::size_t>(kernels) * n),
      records_(static_cast<std::size_t>(kernels)),
      elements_(static_cast<std::size_t>(kernels), 0) {
    load_kernel_once();
    CT_CHECK(cudaMemset(times_.data(), 0xff, times_.bytes()));
    CT_CHECK(cudaMemset(outputs_.data(), 0xff, outputs_.bytes()));
    // cudaMemset is asynchronous for device memory and goes to the default stream. A kernel in a
    // non-blocking stream would not wait for it: finish the poisoning before any launch.
    CT_CHECK(cudaDeviceSynchronize());
}

void KernelSlots::prime_stream(int slot, cudaStream_t stream) {
    if (slot < 0 || slot >= kernels_) {
        throw std::out_of_range("kernel slot " + std::to_string(slot) + " of " +
                                std::to_string(kernels_));
    }
    timed_kernel<<<1, 1, 0, stream>>>(primer_times_.data() + slot, nullptr, 0, 0, 0, 0);
    check_launch_without_sync(__FILE__, __LINE__);
    CT_CHECK(cudaStreamSynchronize(stream));
}

void KernelSlots::launch(int slot, const std::string& name, Role role, cudaStream_t stream,
                         const std::string& stream_label, StreamKind kind, int host_thread,
                         std::uint64_t duration_ns) {
    launch_with_id(slot, name, role, stream, stream_id_of(stream), stream_label, kind, host_thread,
                   duration_ns);
}

void KernelSlots::launch_with_id(int slot, const std::string& name, Role role, cudaStream_t stream,
                                 std::uint64_t stream_id, const std::string& stream_label,
                                 StreamKind kind, int host_thread, std::uint64_t duration_ns) {
    if (slot < 0 || slot >= kernels_) {
        throw std::out_of_range("kernel slot " + std::to_string(slot) + " of " +
                                std::to_string(kernels_));
    }
    const auto index = static_cast<std::size_t>(slot);
    KernelRecord& record = records_[index];
    record.name = name;
    record.role = role;
    record.stream = stream_label;
    record.stream_kind = kind;
    record.stream_id = stream_id;
    record.host_thread = host_thread;
    const bool worker = role == Role::kWorker;
    elements_[index] = worker ? n_ : 1;
    const unsigned threads = worker ? kWorkerThreads : 1;
    // In the per-thread build, stream 0 here is the calling host thread's default stream.
    timed_kernel<<<1, threads, 0, stream>>>(times_.data() + index, outputs_.data() + index * n_,
                                            elements_[index], static_cast<std::uint32_t>(slot),
                                            salt_, worker ? duration_ns : 0);
    check_launch_without_sync(__FILE__, __LINE__);
}

ScenarioRun KernelSlots::finish(const LegacyStreamSpan& span) {
    // Waits for every stream. An event or a cudaStreamSynchronize on the legacy default stream
    // would NOT wait for non-blocking streams.
    CT_CHECK(cudaDeviceSynchronize());
    std::vector<KernelTimes> times(static_cast<std::size_t>(kernels_));
    std::vector<std::uint32_t> outputs(outputs_.size());
    CT_CHECK(cudaMemcpy(times.data(), times_.data(), times_.bytes(), cudaMemcpyDeviceToHost));
    CT_CHECK(cudaMemcpy(outputs.data(), outputs_.data(), outputs_.bytes(), cudaMemcpyDeviceToHost));

    ScenarioRun run;
    run.legacy_event_ms = span.elapsed_ms();
    run.outputs_ok = true;
    const auto fail = [&run](const std::string& why) {
        if (run.outputs_ok) {
            run.output_detail = why;
        }
        run.outputs_ok = false;
    };
    for (int slot = 0; slot < kernels_; ++slot) {
        const auto index = static_cast<std::size_t>(slot);
        KernelRecord& record = records_[index];
        const KernelTimes& t = times[index];
        if (elements_[index] == 0) {
            fail("kernel slot " + std::to_string(slot) + " was never launched");
            continue;
        }
        if (t.start_ns == ~0ull || t.end_ns == ~0ull || t.end_ns < t.start_ns) {
            fail("kernel " + record.name + " did not record its start and end (did it run?)");
            continue;
        }
        record.start_ns = t.start_ns;
        record.end_ns = t.end_ns;
        record.sm = t.sm;
        for (std::uint32_t i = 0; i < elements_[index]; ++i) {
            const std::uint32_t got = outputs[index * n_ + i];
            const std::uint32_t want = expected_output(salt_, static_cast<std::uint32_t>(slot), i);
            if (got != want) {
                fail("kernel " + record.name + ": element " + std::to_string(i) + " is " +
                     hex(got) + ", expected " + hex(want));
                break;
            }
        }
    }
    run.kernels = records_;
    return run;
}

void LegacyStreamSpan::start() {
    CT_CHECK(cudaEventRecord(start_.get(), cudaStreamLegacy));
}

void LegacyStreamSpan::stop() {
    CT_CHECK(cudaEventRecord(stop_.get(), cudaStreamLegacy));
}

double LegacyStreamSpan::elapsed_ms() const {
    return stop_.elapsed_ms_since(start_);
}

}  // namespace streams::STREAMS_BUILD
