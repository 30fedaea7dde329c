// Scenario 9: below the launch floor. Scenario 6 showed what a launch costs and how graphs and
// PDL share that cost among many kernels. A program that must hand the GPU one small task at a
// time, and wait for each (a server answering requests, an inference engine's decode step), pays
// it in full every time, graph or not. The way out is not to launch at all: a kernel that stays
// resident and takes its work from a queue, the idea behind inference engines' persistent kernels
// and "megakernels". Three ways to run the same task here:
//   task_kernel             one launch per task, then cudaStreamSynchronize (the baseline);
//   the same in a graph     one graph launch per task (the task number set in the graph's node),
//                           then cudaStreamSynchronize;
//   persistent_task_loop    launched once; the host rings a doorbell and waits for a completion
//                           flag, both in mapped pinned host memory, which both sides read and
//                           write directly, over the host link.
//
// The protocol (Mailbox below; every word in host memory, cudaHostAlloc(cudaHostAllocMapped)):
//   host:   doorbell = k            (release)   "task k is posted"
//   kernel: sees doorbell >= k      (acquire)   runs task k, writes its receipt
//   kernel: completed = k           (release)   "task k's results are visible"
//   host:   sees completed == k     (acquire)   reads the receipt: exactly task k's
//   host:   doorbell = k | stop bit             "end once every posted task has run"
// Release and acquire at *system* scope: the reader is on the other side of the host link, not
// in this GPU. A `volatile` flag is the classic way and is not enough: it makes the kernel read
// and write the flag in memory every time, but orders nothing else, so the host may see the flag
// before the receipt and the buffer that the task wrote just before it. (It was made to work
// with __threadfence_system() before the flag's store; the release store says the same, and the
// acquire load says what the reading side needs too.) Only loads and stores cross the link, no
// atomic read-modify-write: those need hardware support (cudaDevAttrHostNativeAtomicSupported).
//
// What it costs: the kernel holds its block, and so a share of one SM, for as long as it lives,
// whether there is work or not; a kernel of one block per SM would hold them all. While it waits
// it polls host memory; __nanosleep backs off once it has been idle for a while, which lets the
// SM's other work (and its power draw) breathe, at the price of a later answer to the next
// doorbell. And every wait on the whole device (cudaDeviceSynchronize, cudaFree, cudaFreeHost)
// now waits for a kernel that does not end by itself: here until its idle limit, elsewhere
// forever.
//
// Every spin gives up: the kernel ends with an error state after Limits::idle_limit_ms without a
// new doorbell (read from %globaltimer), so that a host that stopped ringing does not leave it
// spinning; the host gives up on a completion after Limits::host_wait_ms. A host that dies needs
// neither: the driver destroys its context, and the kernel with it. PersistentKernel's destructor
// rings the stop on every way out of its scope, exceptions included.
//
// Look at: the round trip per task against launch + synchronize, and that the graph, one kernel
// at a time, saves nothing.
// This file is compiled once (not into both stream builds, see CMakeLists.txt): it launches only
// into created non-blocking streams, never into stream 0.
#include <cuda/atomic>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "cudatutorial/wall_clock.hpp"
#include "persistent_kernel.hpp"

namespace streams::persistent {

namespace {

using cudatutorial::global_timer_ns;
using SystemWord = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>;
using SystemState = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>;

/// After a task, the kernel polls without pausing for this long (the host rings the next task
/// within a microsecond or two of reading a completion), then backs off with __nanosleep.
constexpr unsigned long long kHotPollNs = 50'000;
/// The longest pause between two polls once idle: the latency a task posted after a pause pays.
constexpr unsigned kMaxSleepNs = 8'192;

/// The words host and kernel share, in mapped pinned host memory. Each writer's words sit on a
/// cache line of their own, so that the host's writes and the GPU's never share a line.
struct Mailbox {
    alignas(64) std::uint64_t doorbell;   ///< host: last posted task (| kStopBit to stop)
    alignas(64) std::uint64_t completed;  ///< kernel: last completed task
    Receipt receipt;                      ///< kernel: the last task's receipt, before `completed`
    std::uint32_t state;                  ///< kernel: a KernelState
};

/// What the task kernels get: the buffer, its length, where the receipt goes.
struct TaskArgs {
    std::uint32_t* values;
    std::uint32_t n;
    Receipt* receipt;  ///< a device pointer to mapped host memory
};

/// Values each thread loads before it stores any: sixteen loads in flight instead of one, so that
/// a task of 4096 values (16 per thread) waits for memory once, not sixteen times.
constexpr unsigned kLoadsInFlight = 16;

/// The task, the same in every way of running it: add `task` to every value and return the sum
/// of the results in the receipt. One block of kTaskThreads; thread 0 writes the receipt.
__device__ void task_body(const TaskArgs& a, std::uint32_t task) {
    __shared__ std::uint32_t warp_sums[kTaskThreads / 32];
    std::uint32_t sum = 0;
    for (std::uint32_t first = threadIdx.x; first < a.n; first += kLoadsInFlight * kTaskThreads) {
        std::uint32_t v[kLoadsInFlight];
#pragma unroll
        for (unsigned j = 0; j < kLoadsInFlight; ++j) {
            const std::uint32_t i = first + j * kTaskThreads;
            v[j] = i < a.n ? a.values[i] : 0;
        }
#pragma unroll
        for (unsigned j = 0; j < kLoadsInFlight; ++j) {
            const std::uint32_t i = first + j * kTaskThreads;
            if (i < a.n) {
                v[j] += task;
                a.values[i] = v[j];
                sum += v[j];
            }
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    }
    if (threadIdx.x % 32 == 0) {
        warp_sums[threadIdx.x / 32] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        std::uint32_t total = 0;
        for (unsigned w = 0; w < kTaskThreads / 32; ++w) {
            total += warp_sums[w];
        }
        a.receipt->task = task;
        a.receipt->checksum = total;
    }
}

/// The baseline: one launch per task. The kernel's end is the completion: after
/// cudaStreamSynchronize its writes, to mapped host memory too, are visible to the host.
__global__ void task_kernel(TaskArgs a, std::uint32_t task) {
    task_body(a, task);
}

struct PersistentArgs {
    TaskArgs task;
    Mailbox* mailbox;  ///< device pointer to the mapped mailbox
    unsigned long long idle_limit_ns;
};

/// Thread 0 only. Waits for a task after `done`: returns done + 1 once the doorbell has posted
/// it (tasks run one by one, in order, however many are posted at once), or 0 when the kernel
/// must end (the stop bit with nothing left to run, or the idle limit), with the state written.
__device__ std::uint64_t wait_for_doorbell(const PersistentArgs& a, std::uint64_t done) {
    const SystemWord doorbell(a.mailbox->doorbell);
    const SystemState state(a.mailbox->state);
    const unsigned long long idle_since = global_timer_ns();
    unsigned sleep_ns = 32;
    for (;;) {
        // Acquire: what the host wrote before it rang (a real task's parameters) is visible
        // once the new value is seen. Relaxed would read the doorbell but not that.
        const std::uint64_t rung = doorbell.load(cuda::memory_order_acquire);
        if ((rung & ~kStopBit) > done) {
            return done + 1;
        }
        if (rung & kStopBit) {
            state.store(static_cast<std::uint32_t>(KernelState::kStopped),
                        cuda::memory_order_release);
            return 0;
        }
        const unsigned long long idle_ns = global_timer_ns() - idle_since;
        if (idle_ns > a.idle_limit_ns) {
            state.store(static_cast<std::uint32_t>(KernelState::kIdleLimit),
                        cuda::memory_order_release);
            return 0;
        }
        if (idle_ns > kHotPollNs) {
            // Idle for a while: sleep between polls (the warp issues nothing meanwhile), longer
            // each time, up to kMaxSleepNs.
            __nanosleep(sleep_ns);
            sleep_ns = sleep_ns < kMaxSleepNs ? 2 * sleep_ns : kMaxSleepNs;
        }
    }
}

/// Launched once, one block. Thread 0 waits for the doorbell while the other threads wait at the
/// barrier (a warp waiting at a barrier issues nothing); then the whole block runs the task,
/// and thread 0 publishes it.
__global__ void persistent_task_loop(PersistentArgs a) {
    __shared__ std::uint64_t next_task;  // thread 0's answer, for the whole block
    if (threadIdx.x == 0) {
        SystemState(a.mailbox->state)
            .store(static_cast<std::uint32_t>(KernelState::kRunning), cuda::memory_order_release);
    }
    std::uint64_t done = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            next_task = wait_for_doorbell(a, done);
        }
        __syncthreads();
        const std::uint64_t task = next_task;
        if (task == 0) {
            return;  // every thread read the same value after the same barrier: all return
        }
        task_body(a.task, static_cast<std::uint32_t>(task));
        // The barrier orders every thread's writes to the buffer before thread 0's release
        // below (release is cumulative: it covers what the barrier made thread 0 see).
        __syncthreads();
        if (threadIdx.x == 0) {
            // Release at system scope: the receipt and the buffer are written before the host
            // can see this value. A volatile store here would order nothing.
            SystemWord(a.mailbox->completed).store(task, cuda::memory_order_release);
        }
        done = task;
    }
}

/// A CT_CHECK_LAUNCH synchronizes the device in Debug builds: with a resident kernel that waits
/// until its idle limit, and in a timed loop it would time the synchronization. Launches here
/// check the launch only; cudaStreamSynchronize (or stop()) reports what went wrong inside.
void check_launch(const char* file, int line) {
    cudatutorial::check_cuda(cudaGetLastError(), "kernel launch", file, line);
}

/// Mapped pinned host memory for one T, zeroed, freed (cudaFreeHost) with its owner.
template <typename T>
class MappedHost {
  public:
    MappedHost() {
        void* host = nullptr;
        CT_CHECK(cudaHostAlloc(&host, sizeof(T), cudaHostAllocMapped));
        host_ = static_cast<T*>(host);
        *host_ = T{};
        void* device = nullptr;
        CT_CHECK(cudaHostGetDevicePointer(&device, host, 0));
        device_ = static_cast<T*>(device);
    }
    ~MappedHost() { cudaFreeHost(host_); }
    MappedHost(const MappedHost&) = delete;
    MappedHost& operator=(const MappedHost&) = delete;
    T* host() const { return host_; }
    T* device() const { return device_; }

  private:
    T* host_ = nullptr;
    T* device_ = nullptr;
};

}  // namespace

const char* kernel_state_name(KernelState state) {
    switch (state) {
        case KernelState::kLaunched:
            return "launched";
        case KernelState::kRunning:
            return "running";
        case KernelState::kStopped:
            return "stopped";
        case KernelState::kIdleLimit:
            return "idle limit";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------------
// The baseline: a launch (or a graph launch) per task.

struct LaunchedTasks::State {
    LaunchWay way;
    cudatutorial::CudaStream stream{cudaStreamNonBlocking};
    cudatutorial::DeviceBuffer<std::uint32_t> values;
    MappedHost<Receipt> receipt;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaGraphNode_t node = nullptr;

    State(const std::vector<std::uint32_t>& initial, LaunchWay w) : way(w), values(initial) {}
    ~State() {
        if (exec) {
            cudaGraphExecDestroy(exec);
        }
        if (graph) {
            cudaGraphDestroy(graph);
        }
    }
    TaskArgs args() {
        return {values.data(), static_cast<std::uint32_t>(values.size()), receipt.device()};
    }
    /// The graph node's parameters for `task`; `storage` holds what kernelParams points to.
    static cudaKernelNodeParams node_params(TaskArgs& a, std::uint32_t& task, void* (&storage)[2]) {
        storage[0] = &a;
        storage[1] = &task;
        cudaKernelNodeParams params{};
        params.func = reinterpret_cast<void*>(task_kernel);
        params.gridDim = dim3(1);
        params.blockDim = dim3(kTaskThreads);
        params.sharedMemBytes = 0;
        params.kernelParams = storage;  // copied by the call that takes `params`
        params.extra = nullptr;
        return params;
    }
};

LaunchedTasks::LaunchedTasks(const std::vector<std::uint32_t>& initial, LaunchWay way)
    : state_(std::make_unique<State>(initial, way)) {
    if (initial.empty()) {
        throw std::invalid_argument("LaunchedTasks: a task needs at least one value");
    }
    if (way == LaunchWay::kGraph) {
        // One kernel node, built by hand; its arguments are fixed at instantiation, so each
        // task sets its number in the instantiated graph (run_task) before launching it.
        TaskArgs a = state_->args();
        std::uint32_t task = 1;
        void* storage[2];
        const cudaKernelNodeParams params = state_->node_params(a, task, storage);
        CT_CHECK(cudaGraphCreate(&state_->graph, 0));
        CT_CHECK(cudaGraphAddKernelNode(&state_->node, state_->graph, nullptr, 0, &params));
        CT_CHECK(cudaGraphInstantiate(&state_->exec, state_->graph, 0));
    }
}

LaunchedTasks::~LaunchedTasks() = default;

Receipt LaunchedTasks::run_task() {
    State& s = *state_;
    std::uint32_t task = static_cast<std::uint32_t>(done_ + 1);
    if (s.way == LaunchWay::kGraph) {
        TaskArgs a = s.args();
        void* storage[2];
        const cudaKernelNodeParams params = s.node_params(a, task, storage);
        CT_CHECK(cudaGraphExecKernelNodeSetParams(s.exec, s.node, &params));
        CT_CHECK(cudaGraphLaunch(s.exec, s.stream.get()));
    } else {
        task_kernel<<<1, kTaskThreads, 0, s.stream.get()>>>(s.args(), task);
        check_launch(__FILE__, __LINE__);
    }
    CT_CHECK(cudaStreamSynchronize(s.stream.get()));
    done_ = task;
    return *s.receipt.host();
}

std::vector<std::uint32_t> LaunchedTasks::values() const {
    CT_CHECK(cudaStreamSynchronize(state_->stream.get()));
    return state_->values.to_host();
}

// ---------------------------------------------------------------------------------------------
// The persistent kernel: launched once, fed through the mailbox.

struct PersistentKernel::State {
    Limits limits;
    cudatutorial::CudaStream stream{cudaStreamNonBlocking};
    cudatutorial::CudaStream copies{cudaStreamNonBlocking};  // values() while the kernel runs
    cudatutorial::DeviceBuffer<std::uint32_t> values;
    MappedHost<Mailbox> mailbox;
    std::uint64_t posted = 0;
    bool launched = false;
    bool ended = false;  // the stream has drained: the kernel returned
    KernelState end_state = KernelState::kLaunched;

    State(const std::vector<std::uint32_t>& initial, Limits l) : limits(l), values(initial) {}

    SystemWord doorbell() const { return SystemWord(mailbox.host()->doorbell); }
    std::uint64_t completed() const {
        // Acquire: pairs with the kernel's release, so that the receipt read after it is the
        // one the kernel wrote before it.
        return SystemWord(mailbox.host()->completed).load(cuda::memory_order_acquire);
    }
    KernelState kernel_state() const {
        return static_cast<KernelState>(
            SystemState(mailbox.host()->state).load(cuda::memory_order_acquire));
    }
    std::chrono::duration<double> host_wait() const {
        return std::chrono::duration<double>(limits.host_wait_ms / 1000.0);
    }
    KernelState stop();
    /// The guard: runs before the buffer and the mailbox are freed (cudaFree and cudaFreeHost
    /// would wait for a kernel still running), on every way out, a failed constructor included.
    ~State() {
        if (!launched || ended) {
            return;
        }
        try {
            stop();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "warning: the persistent kernel did not stop cleanly: %s\n",
                         e.what());
        }
    }
};

PersistentKernel::PersistentKernel(const std::vector<std::uint32_t>& initial, Limits limits,
                                   std::uint64_t queued_tasks)
    : state_(std::make_unique<State>(initial, limits)) {
    State& s = *state_;
    if (initial.empty()) {
        throw std::invalid_argument("PersistentKernel: a task needs at least one value");
    }
    if (limits.idle_limit_ms == 0 || limits.host_wait_ms == 0) {
        throw std::invalid_argument("PersistentKernel: limits of 0 ms");
    }
    // The buffer's copy (a synchronous cudaMemcpy) has finished: nothing in flight before the
    // launch. The mailbox starts zeroed: no task posted, none completed, state kLaunched.
    if (queued_tasks > 0) {
        s.posted = queued_tasks;
        s.doorbell().store(queued_tasks | kStopBit, cuda::memory_order_release);
    }
    const PersistentArgs args{{s.values.data(), static_cast<std::uint32_t>(s.values.size()),
                               &s.mailbox.device()->receipt},
                              s.mailbox.device(),
                              static_cast<unsigned long long>(limits.idle_limit_ms) * 1'000'000ull};
    persistent_task_loop<<<1, kTaskThreads, 0, s.stream.get()>>>(args);
    check_launch(__FILE__, __LINE__);
    s.launched = true;
    if (queued_tasks > 0) {
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    KernelState state = KernelState::kLaunched;
    while ((state = s.kernel_state()) == KernelState::kLaunched) {
        if (std::chrono::steady_clock::now() - start > s.host_wait()) {
            throw std::runtime_error("the persistent kernel did not start within " +
                                     std::to_string(limits.host_wait_ms) + " ms");
        }
        std::this_thread::yield();
    }
    if (state != KernelState::kRunning) {
        // The launch returned only after the kernel had ended, idle: a tool that holds the
        // launch until the kernel ends (compute-sanitizer may) cannot run this protocol.
        throw std::runtime_error(
            std::string("the persistent kernel ended (") + kernel_state_name(state) +
            ") before its first task: was the launch held until the kernel ended? Post the "
            "tasks before the launch instead (queued_tasks)");
    }
}

PersistentKernel::~PersistentKernel() = default;

Receipt PersistentKernel::run_task() {
    State& s = *state_;
    const std::uint64_t task = s.posted + 1;
    // Release: on the host's side, what it wrote before (a task's parameters) is visible to the
    // kernel's acquire load that reads this value. On x86 an ordinary store.
    s.doorbell().store(task, cuda::memory_order_release);
    s.posted = task;
    // The host's side of the round trip: spin on the completion, no pause and no CUDA call on
    // the hot path. Every 4096 polls, look at the kernel's state and the clock.
    const auto start = std::chrono::steady_clock::now();
    for (unsigned polls = 1; s.completed() != task; ++polls) {
        if (polls % 4096 != 0) {
            continue;
        }
        const KernelState state = s.kernel_state();
        if (state != KernelState::kRunning) {
            throw std::runtime_error("the persistent kernel ended (" +
                                     std::string(kernel_state_name(state)) + ") before task " +
                                     std::to_string(task) + " completed");
        }
        if (std::chrono::steady_clock::now() - start > s.host_wait()) {
            throw std::runtime_error("task " + std::to_string(task) + " did not complete within " +
                                     std::to_string(s.limits.host_wait_ms) + " ms");
        }
    }
    return s.mailbox.host()->receipt;
}

KernelState PersistentKernel::stop() {
    return state_->stop();
}

KernelState PersistentKernel::State::stop() {
    State& s = *this;
    if (s.ended) {
        return s.end_state;
    }
    // The stop bit keeps the posted count: the kernel runs what is posted, then returns.
    s.doorbell().store(s.posted | kStopBit, cuda::memory_order_release);
    // Off the hot path: ask the stream whether the kernel has returned, with pauses, at most
    // host_wait_ms (cudaStreamSynchronize could wait forever).
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const cudaError_t status = cudaStreamQuery(s.stream.get());
        if (status == cudaSuccess) {
            break;
        }
        if (status != cudaErrorNotReady) {
            s.ended = true;  // the kernel failed: the context is unusable, nothing to wait for
            CT_CHECK(status);
        }
        if (cudatutorial::ms_since(start) > s.limits.host_wait_ms) {
            throw std::runtime_error(
                "the persistent kernel did not end within " +
                std::to_string(s.limits.host_wait_ms) +
                " ms of the stop (state: " + kernel_state_name(s.kernel_state()) + ")");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    s.ended = true;
    s.end_state = s.kernel_state();
    return s.end_state;
}

KernelState PersistentKernel::state() const {
    return state_->kernel_state();
}

std::uint64_t PersistentKernel::tasks_done() const {
    return state_->completed();
}

std::vector<std::uint32_t> PersistentKernel::values() const {
    // A stream of its own, non-blocking: the copy waits for nothing else, the resident kernel
    // least of all (a copy in the legacy default stream would not wait for it either, but that
    // rests on the kernel's stream being non-blocking).
    const State& s = *state_;
    std::vector<std::uint32_t> host(s.values.size());
    CT_CHECK(cudaMemcpyAsync(host.data(), s.values.data(), s.values.bytes(), cudaMemcpyDeviceToHost,
                             s.copies.get()));
    CT_CHECK(cudaStreamSynchronize(s.copies.get()));
    return host;
}

}  // namespace streams::persistent
