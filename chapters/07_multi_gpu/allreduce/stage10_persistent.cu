// Stage 10: below the launch floor. One call at a time, stages 5-9 stop a little above the launch
// floor: the all-reduce itself is a microsecond or two, the launch and the wait for it the rest.
// Chapter 6's persistent kernel (scenario 9) showed the way out: do not launch per call at all.
// Here each GPU keeps one kernel resident that takes its calls from a doorbell in mapped host
// memory and runs stage 5's all-reduce on them: each block stores its slice of the input into
// every peer's staging slot, spins on the values it adds until they have landed (the data is the
// signal), sums in rank order, and tells the host "done" through a word of mapped host memory.
//
// The protocol, per GPU (ResidentMailbox, in cudaHostAllocMapped memory):
//   host:    doorbell = k             (release)  "call k: the inputs are ready"
//   block 0: sees doorbell >= k       (acquire)  and relays it to the other blocks through device
//                                                memory: one poller over the host link, not 32
//   kernel:  every block waits until every block has finished call k - 1 (a grid barrier on a
//            device-scope counter), runs call k on its slice; the last block to finish writes
//            completed = k (release)   "call k's output is written"
//   host:    sees completed == k      (acquire)  the result is usable: the call returns
//   host:    doorbell = k | stop bit             "end once every posted call has run"
// Release and acquire at system scope where the other side is across the host link.
//
// What launching per call gave for free, and a resident kernel must do itself. Between two
// launches of stage 5 the kernel boundary orders everything: a rank's stores that empty a staging
// buffer have landed before its next kernel starts. Here calls follow each other inside one
// kernel, so a rank could store call k + 1's data into a peer's buffer that the peer is still
// emptying from call k - 1. So each GPU, once all its blocks are done with call k, tells every
// peer so through a flag in the peer's memory (release), and each block waits, before storing
// call s's data, until every peer has said so for call s - 2, the call that emptied the buffer
// call s writes (acquire). The flag is almost always there already; the point is that the order
// is now guaranteed, not likely. And the stores that carry the data are volatile (relaxed at
// system scope, as NCCL's LL protocol stores its flagged data), so that the peer's spin on them
// is a strong read of a strong write, not a race.
//
// Blocks that wait on one another must all be running at once: the kernel is launched
// cooperatively, which either places every block on the GPU together or refuses the launch (an
// occupancy query alone promises nothing once another kernel, MPS or a tool holds SMs).
//
// What it costs: every block of it sits on an SM for as long as it lives, work or no work (32
// blocks at 256 KiB); block 0's thread 0 polls host memory over the link and the other blocks
// poll its relay, backing off with __nanosleep once idle for half a millisecond; nothing may wait
// for the whole device (cudaDeviceSynchronize, cudaFree) while it runs. Every spin gives up, the
// device always before the host: block 0 alone ends the kernel after
// ResidentLimits::idle_limit_ms without a call (the others follow its relayed stop), a peer that
// never sends traps the kernel after 10 s (kSpinTimeoutNs), and the host, which waits longer
// (host_wait_ms > 10 s), then finds the kernel ended. A trap is not a clean end: it leaves the
// GPU's context unusable (every later CUDA call of the process fails), so it is kept for a broken
// protocol. A host that dies takes its context, and the kernel, with it.
//
// Look at: the round-trip table (--section roundtrip), stage 10 against stage 5 launched and
// waited for, and against NCCL launched and waited for.
#include <cuda/atomic>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "cudatutorial/report.hpp"
#include "cudatutorial/wall_clock.hpp"
#include "peer_allreduce.hpp"
#include "peer_device.cuh"
#include "persistent_allreduce.hpp"
#include "stage5_one_shot_sentinel.cuh"

namespace multi_gpu {

namespace {

using SystemWord = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>;

/// The words a host and its GPU's resident kernel share, in mapped pinned host memory. Each
/// writer's words sit on cache lines of their own.
struct ResidentMailbox {
    alignas(64) std::uint64_t doorbell;  ///< host: last posted call (| stop bit)
    alignas(
        64) std::uint64_t completed;  ///< kernel (the last block of a call): last completed call
    alignas(64) std::uint32_t state;  ///< kernel (block 0): ResidentState
};

struct ResidentArgs {
    PeerArgs peers;                                 // every rank's buffers, flags and staging; n
    ResidentMailbox* mailbox = nullptr;             // device address of this GPU's mailbox
    unsigned long long* finished_blocks = nullptr;  // device memory: blocks done, all calls
    unsigned long long* relay = nullptr;            // device memory: block 0's copy of the bell
    unsigned long long idle_limit_ns = 0;
    unsigned long long straggler_ns = 0;  // ResidentLimits::straggler_us, in ns
};

constexpr unsigned kResidentThreads = 512;
/// Polls of the doorbell back to back before backing off: a caller that calls again within half
/// a millisecond is answered at once.
constexpr unsigned long long kHotPollNs = 500'000;
/// The longest pause between two polls once idle: what a call after a pause pays on top.
constexpr unsigned kMaxSleepNs = 8'192;

__device__ void set_state(const ResidentArgs& r, ResidentState state) {
    if (blockIdx.x == 0) {
        SystemFlag(r.mailbox->state)
            .store(static_cast<std::uint32_t>(state), cuda::memory_order_release);
    }
}

/// Polls `word` (the doorbell, or block 0's relay of it) until it posts a call after `done` or
/// says stop; returns what it read. After `idle_limit_ns` without either, returns done | stop bit
/// and sets `idle`.
template <typename Word>
__device__ std::uint64_t poll_for_call(const Word& word, std::uint64_t done,
                                       unsigned long long idle_limit_ns, bool& idle) {
    const unsigned long long idle_since = cudatutorial::global_timer_ns();
    unsigned sleep_ns = 32;
    for (;;) {
        // Acquire: pairs with the writer's release, so that what the host (and the work it
        // waited for) wrote before ringing is visible to this block after the barrier that follows.
        const std::uint64_t bell = word.load(cuda::memory_order_acquire);
        if ((bell & ~kResidentStopBit) > done || (bell & kResidentStopBit) != 0) {
            return bell;
        }
        const unsigned long long idle_ns = cudatutorial::global_timer_ns() - idle_since;
        if (idle_ns > idle_limit_ns) {
            idle = true;
            return done | kResidentStopBit;
        }
        if (idle_ns > kHotPollNs) {
            __nanosleep(sleep_ns);
            sleep_ns = sleep_ns < kMaxSleepNs ? 2 * sleep_ns : kMaxSleepNs;
        }
    }
}

using DeviceWord = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

/// Thread 0 of each block: the next call to run (done + 1), or 0 when the kernel is to end (the
/// stop, after every posted call has run; or the idle limit). Only block 0 polls the doorbell
/// over the host link and relays what it reads through device memory (release, device scope) to
/// the other blocks, which poll that. Only block 0 decides "idle" too, and relays it as a stop:
/// were each block to keep its own idle timer, one could leave while block 0 accepts a call
/// posted in that gap, and the call would never complete. The others' own limit is a fallback
/// (twice block 0's, plus a second) that a working kernel never reaches. Every block polling host
/// memory itself made a call 2 to 19 times slower (two H200s, one process per GPU: 12.7 us at 32
/// KiB with 4 blocks, 142 us at 256 KiB with 32, against 6.9 and 7.6 us relayed; that first design
/// is not kept in the repository, so these figures cannot be reproduced from it): a read of host
/// memory crosses the host link, and 32 of them in a loop on the word the host must write crowd out
/// both its write and the kernel's completion.
__device__ std::uint64_t wait_for_call(const ResidentArgs& r, std::uint64_t done) {
    bool idle = false;
    std::uint64_t bell = 0;
    if (blockIdx.x == 0) {
        bell = poll_for_call(SystemWord(r.mailbox->doorbell), done, r.idle_limit_ns, idle);
        DeviceWord(*r.relay).store(bell, cuda::memory_order_release);
    } else {
        bell =
            poll_for_call(DeviceWord(*r.relay), done, 2 * r.idle_limit_ns + 1'000'000'000ull, idle);
    }
    if ((bell & ~kResidentStopBit) > done) {
        return done + 1;
    }
    set_state(r, idle ? ResidentState::kIdleLimit : ResidentState::kStopped);
    return 0;
}

/// How stage 10 stores a value into a peer's staging slot: strong at system scope (relaxed), as
/// the peer spins on this very word.
struct VolatileStore {
    __device__ void operator()(float4* slot, float4 v) const {
        asm volatile("st.volatile.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(slot), "f"(v.x),
                     "f"(v.y), "f"(v.z), "f"(v.w)
                     : "memory");
    }
    __device__ void operator()(float* slot, float v) const {
        *reinterpret_cast<volatile float*>(slot) = v;
    }
};

/// Flag point 1 of flag_protocol.hpp, block 0's word: "rank `from` is done with call s" (every
/// block of it has read its staging buffer of call s and emptied the one of call s - 1).
constexpr int kDonePoint = 1;

/// Before call `seq` stores into the peers' staging buffer seq % 3: every peer has emptied it,
/// which it did in call seq - 2. Thread p waits for peer p; the barrier passes it to the block.
__device__ void wait_until_peers_emptied(const PeerArgs& a, std::uint32_t seq) {
    const int peer = static_cast<int>(threadIdx.x);
    if (seq > 2 && peer < a.ranks && peer != a.rank) {
        const SystemFlag done(a.flags[a.rank][flag_index(kDonePoint, 0, peer)]);
        unsigned long long started = 0;
        while (!flag_reached(done.load(cuda::memory_order_acquire), seq - 2)) {
            give_up_after_timeout(started);
        }
    }
    __syncthreads();
}

/// Thread 0 of each block, before it starts `call`: waits until every block has finished the call
/// before (acquire, pairing with their counts' release). Without it, with calls queued ahead (the
/// doorbell already past them), the blocks of one GPU could drift calls apart: the counter would
/// reach call * blocks while a slow block was still in an earlier call, and the "done" sent to
/// the peers would come early, letting them store into a buffer that block is still emptying.
/// One call at a time (the host posts call k once call k - 1 completed) it costs one read.
__device__ void wait_until_every_block_finished(const ResidentArgs& r, std::uint64_t call) {
    const DeviceWord finished(*r.finished_blocks);
    const unsigned long long target = call * gridDim.x;
    unsigned long long started = 0;
    while (finished.load(cuda::memory_order_acquire) < target) {
        give_up_after_timeout(started);
    }
}

/// A test's straggler (ResidentLimits::straggler_us): the last block starts each call late.
__device__ void straggle(const ResidentArgs& r) {
    if (r.straggler_ns == 0 || blockIdx.x != gridDim.x - 1) {
        return;
    }
    const unsigned long long start = cudatutorial::global_timer_ns();
    while (cudatutorial::global_timer_ns() - start < r.straggler_ns) {
        __nanosleep(1000);
    }
}

/// Thread 0 of each block, after the block's barrier: count the block as done with `call`; the
/// last block of the call tells the host and the peers (no block has begun the next call before
/// every block counted this one: wait_until_every_block_finished). Acquire-release at device scope:
/// the last block has seen every block's release. Then one system-scope fence, and relaxed stores:
/// a release pattern that passes every block's writes on to the host (the output is ready) and to
/// the peers (their staging slots here are read and emptied): one system-scope fence and one write
/// over the host link per GPU per call, whatever the number of blocks.
__device__ void finish_call(const ResidentArgs& r, std::uint64_t call) {
    const PeerArgs& a = r.peers;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> finished(*r.finished_blocks);
    if (finished.fetch_add(1, cuda::memory_order_acq_rel) + 1 != call * gridDim.x) {
        return;
    }
    cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_system);
    SystemWord(r.mailbox->completed).store(call, cuda::memory_order_relaxed);
    for (int p = 0; p < a.ranks; ++p) {
        if (p != a.rank) {
            SystemFlag(a.flags[p][flag_index(kDonePoint, 0, a.rank)])
                .store(static_cast<std::uint32_t>(call), cuda::memory_order_relaxed);
        }
    }
}

/// Launched once per GPU, every block resident (the launch never has more blocks than fit). Thread
/// 0 of each block waits for the doorbell while the others wait at the barrier; the block runs the
/// call; after a barrier (the block's stores are ordered before what its threads do next), thread 0
/// counts the block as done (finish_call).
__global__ void resident_allreduce_kernel(ResidentArgs r) {
    __shared__ std::uint64_t next_call;
    const PeerArgs& a = r.peers;
    if (threadIdx.x == 0) {
        set_state(r, ResidentState::kRunning);
    }
    std::uint64_t done = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            next_call = wait_for_call(r, done);
            if (next_call != 0) {
                wait_until_every_block_finished(r, next_call - 1);
                straggle(r);
            }
        }
        __syncthreads();
        const std::uint64_t call = next_call;
        if (call == 0) {
            return;  // every thread read the same value after the same barrier
        }
        const auto seq = static_cast<std::uint32_t>(call);  // flags count modulo 2^32
        wait_until_peers_emptied(a, seq);
        const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
        one_shot_sentinel_call(a, seq, first_input(a.send[a.rank], first, a.n / 4),
                               VolatileStore{});
        __syncthreads();
        if (threadIdx.x == 0) {
            finish_call(r, call);
        }
        done = call;
        // The next call's barrier (after wait_for_call) keeps this block's threads together.
    }
}

}  // namespace

const char* resident_state_name(ResidentState state) {
    switch (state) {
        case ResidentState::kLaunched:
            return "launched";
        case ResidentState::kRunning:
            return "running";
        case ResidentState::kStopped:
            return "stopped";
        case ResidentState::kIdleLimit:
            return "idle limit";
    }
    return "?";
}

// One local GPU's kernel: its stream, its mailbox, and whether it has ended.
struct PersistentAllReduce::Local {
    int device = 0;
    cudatutorial::CudaStream stream{cudaStreamNonBlocking};
    ResidentMailbox* host = nullptr;    // the mailbox as the host addresses it
    ResidentMailbox* mapped = nullptr;  // as the GPU does
    cudatutorial::DeviceBuffer<unsigned long long> finished_blocks{2};  // freed after the kernel
    bool launched = false;
    bool ended = false;

    explicit Local(int d) : device(d) {
        CT_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), sizeof(ResidentMailbox),
                               cudaHostAllocMapped | cudaHostAllocPortable));
        *host = ResidentMailbox{};
        CT_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped), host, 0));
        finished_blocks.fill_bytes(0);
    }
    // The mailbox is freed only once the kernel has ended: a kernel whose end finish() did not
    // see (it gave up, or threw) is waited for here, which its own limits bound.
    ~Local() {
        if (launched && !ended) {
            cudaStreamSynchronize(stream.get());
        }
        cudaFreeHost(host);
    }
    Local(const Local&) = delete;
    Local& operator=(const Local&) = delete;

    SystemWord doorbell() const { return SystemWord(host->doorbell); }
    ResidentState state() const {
        return static_cast<ResidentState>(
            cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(host->state)
                .load(cuda::memory_order_acquire));
    }
    std::uint64_t completed() const {
        // Acquire: pairs with the kernel's release, so that the output is visible after it.
        return SystemWord(host->completed).load(cuda::memory_order_acquire);
    }
};

PersistentAllReduce::PersistentAllReduce(PeerTeam& team, const std::vector<const float*>& send,
                                         const std::vector<float*>& recv, std::size_t n,
                                         ResidentLimits limits, std::uint64_t queued_calls)
    : team_(team), limits_(limits) {
    if (n == 0 || n * sizeof(float) > kPersistentMaxBytes) {
        throw std::invalid_argument("PersistentAllReduce: n must be 1 to " +
                                    std::to_string(kPersistentMaxBytes / sizeof(float)));
    }
    if (limits.idle_limit_ms == 0) {
        throw std::invalid_argument("PersistentAllReduce: an idle limit of 0 ms");
    }
    if (std::uint64_t{limits.host_wait_ms} * 1'000'000ull <= kSpinTimeoutNs) {
        throw std::invalid_argument("PersistentAllReduce: host_wait_ms must exceed the kernel's " +
                                    std::to_string(kSpinTimeoutNs / 1'000'000) +
                                    " ms spin limit (the device gives up first)");
    }
    // Stage 5's workspace (three staging buffers, flags zeroed, slots empty), every rank's
    // buffers shared: the same set-up as the launched stage, whose run() is never called here.
    buffers_ = std::make_unique<PeerAllReduce>(team, sentinel_peer_kernel(), send, recv, n);
    const int ranks = team.ranks();
    for (int g = 0; g < team.local_gpus(); ++g) {
        const DeviceGuard guard(team.device_of(g));
        int sms = 0;
        int per_sm = 0;
        CT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, team.device_of(g)));
        CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, resident_allreduce_kernel, static_cast<int>(kResidentThreads), 0));
        const auto resident = static_cast<unsigned>(std::max(1, per_sm * sms));
        const PeerLaunch shape =
            peer_launch_shape(PeerAlgorithm::kOneShotSentinel, n, ranks,
                              std::min(resident, kMaxResidentBlocks), kResidentThreads);
        blocks_ = shape.blocks;  // the same on every GPU: block b pairs with block b
        locals_.push_back(std::make_unique<Local>(team.device_of(g)));
    }
    const PeerWorkspaceLayout layout =
        peer_workspace_layout(PeerAlgorithm::kOneShotSentinel, ranks, n);
    for (int g = 0; g < team.local_gpus(); ++g) {
        Local& local = *locals_[g];
        const DeviceGuard guard(local.device);
        const PeerView& view = buffers_->part(g).view();
        ResidentArgs r;
        r.peers.rank = view.rank;
        r.peers.ranks = view.ranks;
        for (int p = 0; p < view.ranks; ++p) {
            char* base = static_cast<char*>(view.workspace[p]);
            r.peers.send[p] = view.send[p];
            r.peers.recv[p] = view.recv[p];
            r.peers.flags[p] = reinterpret_cast<std::uint32_t*>(base);
            r.peers.staging[p] = reinterpret_cast<float*>(base + layout.staging_offset);
        }
        r.peers.n = n;
        r.peers.capacity = layout.capacity;
        r.mailbox = local.mapped;
        r.finished_blocks = local.finished_blocks.data();
        r.relay = local.finished_blocks.data() + 1;
        r.idle_limit_ns = static_cast<unsigned long long>(limits.idle_limit_ms) * 1'000'000ull;
        r.straggler_ns = static_cast<unsigned long long>(limits.straggler_us) * 1'000ull;
        if (queued_calls > 0) {
            local.doorbell().store(queued_calls | kResidentStopBit, cuda::memory_order_release);
        }
        // Cooperative: every block on the GPU at once, or the launch fails (too many blocks for
        // what the GPU holds). Not CT_CHECK_LAUNCH: in Debug builds it synchronizes the device,
        // which would wait for this kernel until its idle limit.
        cudaLaunchAttribute together = {};
        together.id = cudaLaunchAttributeCooperative;
        together.val.cooperative = 1;
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(blocks_);
        config.blockDim = dim3(kResidentThreads);
        config.stream = local.stream.get();
        config.attrs = &together;
        config.numAttrs = 1;
        CT_CHECK(cudaLaunchKernelEx(&config, resident_allreduce_kernel, r));
        local.launched = true;
    }
    posted_ = queued_calls;
    if (queued_calls > 0) {
        return;
    }
    for (const auto& local : locals_) {
        const auto start = std::chrono::steady_clock::now();
        ResidentState state = ResidentState::kLaunched;
        while ((state = local->state()) == ResidentState::kLaunched) {
            if (cudatutorial::ms_since(start) > limits_.host_wait_ms) {
                throw std::runtime_error("stage 10: the resident kernel on GPU " +
                                         std::to_string(local->device) + " did not start within " +
                                         std::to_string(limits_.host_wait_ms) + " ms");
            }
            std::this_thread::yield();
        }
        if (state != ResidentState::kRunning) {
            throw std::runtime_error(
                std::string("stage 10: the resident kernel ended (") + resident_state_name(state) +
                ") before its first call: was the launch held until the kernel ended?");
        }
    }
}

PersistentAllReduce::~PersistentAllReduce() {
    try {
        finish();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "warning: stage 10's resident kernel did not stop cleanly: %s\n",
                     e.what());
    }
}

void PersistentAllReduce::call() {
    if (finished_) {
        throw std::logic_error("PersistentAllReduce::call after finish");
    }
    const std::uint64_t k = posted_ + 1;
    // Release: whatever the host did before (it waited for the work that wrote the inputs) is
    // visible to the kernels' acquire of this value. On x86 an ordinary store.
    for (const auto& local : locals_) {
        local->doorbell().store(k, cuda::memory_order_release);
    }
    posted_ = k;
    // The host's side of the round trip: spin on the completions, no CUDA call on the hot path;
    // every 4096 polls look at the kernel's state and the clock.
    const auto start = std::chrono::steady_clock::now();
    for (const auto& local : locals_) {
        for (unsigned polls = 1; local->completed() != k; ++polls) {
            if (polls % 4096 != 0) {
                continue;
            }
            const ResidentState state = local->state();
            if (state != ResidentState::kRunning) {
                throw std::runtime_error("stage 10: the resident kernel on GPU " +
                                         std::to_string(local->device) + " ended (" +
                                         resident_state_name(state) + ") before call " +
                                         std::to_string(k) + " completed");
            }
            if (cudatutorial::ms_since(start) > limits_.host_wait_ms) {
                throw std::runtime_error("stage 10: call " + std::to_string(k) +
                                         " did not complete on GPU " +
                                         std::to_string(local->device) + " within " +
                                         std::to_string(limits_.host_wait_ms) + " ms");
            }
        }
    }
}

void PersistentAllReduce::finish() {
    if (finished_) {
        return;
    }
    finished_ = true;
    for (const auto& local : locals_) {
        if (local->launched) {
            // The stop keeps the posted count: the kernel runs what is posted, then returns.
            local->doorbell().store(posted_ | kResidentStopBit, cuda::memory_order_release);
        }
    }
    std::string problem;
    for (const auto& local : locals_) {
        if (!local->launched) {
            continue;
        }
        // Off the hot path: ask the stream whether the kernel has returned, with pauses, at most
        // host_wait_ms (cudaStreamSynchronize could wait forever).
        const auto start = std::chrono::steady_clock::now();
        for (;;) {
            const cudaError_t status = cudaStreamQuery(local->stream.get());
            if (status == cudaSuccess) {
                break;
            }
            if (status != cudaErrorNotReady) {
                local->ended = true;  // the kernel failed: the context is unusable
                CT_CHECK(status);
            }
            if (cudatutorial::ms_since(start) > limits_.host_wait_ms) {
                throw std::runtime_error(
                    "stage 10: the resident kernel on GPU " + std::to_string(local->device) +
                    " did not end within " + std::to_string(limits_.host_wait_ms) +
                    " ms of the stop (state: " + resident_state_name(local->state()) + ")");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        local->ended = true;
        if (local->state() != ResidentState::kStopped && problem.empty()) {
            problem = "stage 10: the resident kernel on GPU " + std::to_string(local->device) +
                      " ended by its " + resident_state_name(local->state()) + ", not by the stop";
        }
    }
    // Every local kernel has ended; the peers' may still run until their own finish(). The
    // caller keeps every rank's buffers alive until all ranks are here (a barrier).
    if (!problem.empty()) {
        throw std::runtime_error(problem);
    }
}

std::string PersistentAllReduce::remark() const {
    return "stage 10 holds " + std::to_string(blocks_) + " block(s) of " +
           std::to_string(kResidentThreads) +
           " threads resident on every GPU for as long as it lives, polling the doorbell";
}

ResidentState PersistentAllReduce::state(int local) const {
    return locals_.at(local)->state();
}

std::unique_ptr<RoundTripAllReducer> make_persistent(PeerTeam& team,
                                                     const std::vector<const float*>& send,
                                                     const std::vector<float*>& recv,
                                                     std::size_t n) {
    return std::make_unique<PersistentAllReduce>(team, send, recv, n);
}

}  // namespace multi_gpu
