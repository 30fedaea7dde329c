/// @file persistent_kernel.hpp
/// @brief Scenario 9 (below the launch floor): the same small task handed to the GPU three ways,
/// one task at a time, the host waiting for each: a kernel launch per task, a graph launch per
/// task, and a persistent kernel, launched once, that takes its tasks from a doorbell in mapped
/// host memory. The kernels and the protocol are in scenarios/persistent_kernel.cu, compiled once
/// (not in both stream builds): every launch goes to a created non-blocking stream.
///
/// The task: add the task's number k (1, 2, 3, ...) to each of n 32-bit integers in device memory
/// and return their sum in a receipt (mapped host memory). After k tasks element i holds
/// initial[i] + k(k+1)/2 (mod 2^32), so the host checks every receipt exactly, and the whole
/// buffer after the run (the CPU reference: measuring/round_trip.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace streams::persistent {

/// Untimed warm-up tasks before `tasks` timed ones: a tenth as many, at least 20.
inline int warmup_tasks_for(int tasks) {
    return tasks / 10 > 20 ? tasks / 10 : 20;
}

/// Threads of every task kernel's single block (eight warps).
inline constexpr unsigned kTaskThreads = 256;

/// The doorbell's top bit: the host asks the kernel to end once it has run every task posted.
inline constexpr std::uint64_t kStopBit = std::uint64_t{1} << 63;

/// What a task hands back, in mapped host memory: which task ran, and the sum of the values it
/// left (mod 2^32).
struct Receipt {
    std::uint32_t task = 0;
    std::uint32_t checksum = 0;
};

/// Where the persistent kernel is in its life, as it writes it into mapped host memory.
enum class KernelState : std::uint32_t {
    kLaunched = 0,   ///< launched, not running yet (what the host writes before the launch)
    kRunning = 1,    ///< waiting for the doorbell or running a task
    kStopped = 2,    ///< ended because the doorbell said stop: the clean end
    kIdleLimit = 3,  ///< ended because no doorbell came for Limits::idle_limit_ms: an error
};
/// "launched", "running", "stopped", "idle limit".
const char* kernel_state_name(KernelState state);

/// How long each side waits for the other before it gives up.
struct Limits {
    /// The kernel ends with KernelState::kIdleLimit after this long without a new doorbell, so
    /// that a host that stopped ringing never leaves it spinning.
    std::uint32_t idle_limit_ms = 2000;
    /// The host gives up on a task's completion, on the kernel's start and on its end after this
    /// long (std::runtime_error).
    std::uint32_t host_wait_ms = 3000;
};

/// The baseline: one kernel per task, launched and waited for.
enum class LaunchWay {
    kKernel,  ///< task_kernel<<<1, kTaskThreads, 0, stream>>>, then cudaStreamSynchronize
    kGraph,   ///< a graph of that one kernel: cudaGraphExecKernelNodeSetParams (the task number),
              ///< cudaGraphLaunch, cudaStreamSynchronize
};

/// Tasks on a buffer, each launched as a kernel of its own (LaunchWay), on a created
/// non-blocking stream.
class LaunchedTasks {
  public:
    /// A device buffer holding `initial`; for kGraph, the graph built and instantiated.
    LaunchedTasks(const std::vector<std::uint32_t>& initial, LaunchWay way);
    ~LaunchedTasks();
    LaunchedTasks(const LaunchedTasks&) = delete;
    LaunchedTasks& operator=(const LaunchedTasks&) = delete;

    /// Runs the next task (1, 2, ...): launch, wait, read its receipt.
    Receipt run_task();
    /// Tasks run so far.
    std::uint64_t tasks_done() const { return done_; }
    /// The buffer, copied back.
    std::vector<std::uint32_t> values() const;

  private:
    struct State;
    std::unique_ptr<State> state_;
    std::uint64_t done_ = 0;
};

/// One kernel, launched once, that runs tasks as the host posts them (the protocol is in
/// scenarios/persistent_kernel.cu). The object is the guard of that kernel: its destructor rings
/// the stop value and waits (bounded) for the kernel to end, also when an exception unwinds.
/// While it lives, nothing may wait for the whole device (cudaDeviceSynchronize, cudaFree,
/// cudaFreeHost; cudaMalloc and cudaMallocHost may too): that would wait for the resident
/// kernel, until its idle limit.
class PersistentKernel {
  public:
    /// Copies `initial` to the device and launches the kernel. With `queued_tasks` > 0 those
    /// tasks and the stop are posted before the launch, so the kernel runs them and ends without
    /// waiting for the host (what the tests run under compute-sanitizer, which may hold the
    /// launch until the kernel ends); the host then only calls stop(). Otherwise the host waits
    /// (at most Limits::host_wait_ms) until the kernel runs, and throws std::runtime_error if it
    /// ended first.
    PersistentKernel(const std::vector<std::uint32_t>& initial, Limits limits,
                     std::uint64_t queued_tasks = 0);
    /// stop() if the kernel may still run; a failure is reported on stderr, never thrown.
    ~PersistentKernel();
    PersistentKernel(const PersistentKernel&) = delete;
    PersistentKernel& operator=(const PersistentKernel&) = delete;

    /// Posts the next task (rings the doorbell), waits for its completion and returns its
    /// receipt, read after the completion. Throws std::runtime_error when the kernel has ended or
    /// the task does not complete within Limits::host_wait_ms.
    Receipt run_task();
    /// Rings the stop value and waits (at most Limits::host_wait_ms) for the kernel to end;
    /// returns how it ended. Throws cudatutorial::CudaError if the kernel failed, and
    /// std::runtime_error if it did not end in time. Later calls return the same state.
    KernelState stop();
    /// What the kernel last wrote about itself.
    KernelState state() const;
    /// Tasks the kernel has completed.
    std::uint64_t tasks_done() const;
    /// The buffer, copied back on a stream of its own, which does not wait for the kernel.
    /// Between two tasks, after run_task() returned, it holds exactly what the tasks so far left:
    /// their writes were released before the completion.
    std::vector<std::uint32_t> values() const;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace streams::persistent
