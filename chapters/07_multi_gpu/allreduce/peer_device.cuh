/// @file peer_device.cuh
/// @brief What the peer-memory kernels share (stage4_one_shot.cu, stage5_one_shot_sentinel.cu,
/// stage6_two_shot.cu, stage10_persistent.cu): the call counter, the flag barrier and its
/// memory-ordering argument, the spin that gives up, the staging slots, stage 5's "the data is
/// the signal" helpers, and the launch every stage file publishes its kernel with. Device code;
/// include it from .cu files.
///
/// The memory-ordering argument, once for both stages. A block publishes what it wrote to peer
/// memory, and learns that the peers have published theirs, like this:
///   1. every thread of the block does its loads and stores (some of them to peer GPUs);
///   2. __syncthreads(): the block's accesses are ordered before what any of its threads does next;
///   3. thread p (p < ranks, p != own rank) stores the call number into peer p's flag for this
///   block
///      with a system-scope *release*: everything ordered before it (step 2 made that the whole
///      block's accesses) is visible to whoever sees the flag, on any GPU;
///   4. the same thread spins on its own flag for peer p with a system-scope *acquire* until it
///      reads this call's number: peer p's block has passed its step 3, so everything peer p's
///      block did before is visible here;
///   5. __syncthreads() again: the whole block may now use what the peers published.
/// Release/acquire (cuda::atomic_ref at thread_scope_system) rather than volatile flags plus
/// __threadfence_system(): the pair says exactly which accesses are ordered, and it orders loads
/// too, which is what makes it safe to overwrite memory a peer has read (a write-after-read across
/// GPUs). Scope matters: a device-scope release would order nothing for a reader on another GPU.
///
/// Block b of every rank pairs with block b of every other rank, and only ever touches the slice
/// of the vector that block b owns on every rank, so no grid-wide barrier is needed. A block that
/// spins needs its partners to be running: the launch never has more blocks than fit on the GPU at
/// once (peer_resident_blocks), or a waiting block could keep its partner from being scheduled.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

#include "cudatutorial/device_clocks.cuh"
#include "cudatutorial/programmatic_launch.cuh"
#include "flag_protocol.hpp"
#include "peer_allreduce.hpp"

namespace multi_gpu {

using SystemFlag = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>;

// Every spin gives up after this long and aborts the kernel (a CUDA error on the host), so that a
// peer that never comes (it failed, or was never launched) is an error, not a hang.
inline constexpr unsigned long long kSpinTimeoutNs = 10'000'000'000ull;

// Call in a spin loop with the time the spin started (0 the first time).
__device__ inline void give_up_after_timeout(unsigned long long& started) {
    const unsigned long long now = cudatutorial::global_timer_ns();
    if (started == 0) {
        started = now;
    } else if (now - started > kSpinTimeoutNs) {
        __trap();
    }
}

// The thread's first input vector (zeros past the end), loaded before begin_call: the load and
// begin_call's read of the call counter are then in flight together, instead of one after the
// other (about 0.2 us of a 3 us call back to back, measured on two H200s).
__device__ inline float4 first_input(const float* input, std::size_t first, std::size_t vectors) {
    return first < vectors ? reinterpret_cast<const float4*>(input)[first] : float4{};
}

__device__ inline float4 operator+(float4 x, float4 y) {
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// Rank `owner`'s staging slot in which rank `from` leaves its input, in buffer `buffer`.
__device__ inline float* staging_slot(const PeerArgs& a, int owner, int buffer, int from) {
    return a.staging[owner] + (static_cast<std::size_t>(buffer) * a.ranks + from) * a.capacity;
}

__device__ inline bool is_empty(float value) {
    return __float_as_uint(value) == kEmptySlotBits;
}

// -0.0 is the empty marker, so it travels as +0.0 (on every rank alike, own value included).
__device__ inline float sendable(float value) {
    return is_empty(value) ? 0.0f : value;
}

__device__ inline float4 sendable(float4 v) {
    return make_float4(sendable(v.x), sendable(v.y), sendable(v.z), sendable(v.w));
}

// A load that goes to memory every time (never a stale cached copy): the spin needs to see the
// peer's store when it lands.
__device__ inline float4 load_volatile(const float4* address) {
    float4 v;
    asm volatile("ld.volatile.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(address)
                 : "memory");
    return v;
}

__device__ inline float load_volatile(const float* address) {
    return *reinterpret_cast<const volatile float*>(address);
}

__device__ inline float4 wait_for(const float4* slot) {
    float4 v = load_volatile(slot);
    unsigned long long started = 0;
    while (is_empty(v.x) || is_empty(v.y) || is_empty(v.z) || is_empty(v.w)) {
        give_up_after_timeout(started);
        v = load_volatile(slot);
    }
    return v;
}

__device__ inline float wait_for(const float* slot) {
    float v = load_volatile(slot);
    unsigned long long started = 0;
    while (is_empty(v)) {
        give_up_after_timeout(started);
        v = load_volatile(slot);
    }
    return v;
}

// Every kernel's first step. Launched programmatically (stage 9), the kernel may have started
// while the previous kernel of its stream still runs: wait here until that kernel has finished
// and its writes are visible (the input may be its output, and the staging slots this call
// empties are the ones the previous call read), then let the next kernel of the stream be
// scheduled, so that its launch overlaps this call. Launched the ordinary way, both return at
// once.
__device__ inline void follow_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// This block's call number: one more than at its previous call. Kept in device memory, not
// passed by the host, so that a CUDA graph, which replays the same arguments, still counts.
__device__ inline std::uint32_t begin_call(const PeerArgs& a) {
    __shared__ std::uint32_t seq;
    if (threadIdx.x == 0) {
        seq = a.counters[blockIdx.x] + 1;
    }
    __syncthreads();
    return seq;
}

__device__ inline void end_call(const PeerArgs& a, std::uint32_t seq) {
    if (threadIdx.x == 0) {
        a.counters[blockIdx.x] = seq;
    }
}

// Steps 2-5 of the file comment (the memory-ordering argument).
__device__ inline void peer_barrier(const PeerArgs& a, int point, std::uint32_t seq) {
    __syncthreads();
    const int peer = static_cast<int>(threadIdx.x);
    if (peer < a.ranks && peer != a.rank) {
        SystemFlag(a.flags[peer][flag_index(point, blockIdx.x, a.rank)])
            .store(seq, cuda::memory_order_release);
        const SystemFlag mine(a.flags[a.rank][flag_index(point, blockIdx.x, peer)]);
        unsigned long long started = 0;
        while (!flag_reached(mine.load(cuda::memory_order_acquire), seq)) {
            give_up_after_timeout(started);
        }
    }
    __syncthreads();
}

/// The launch a stage file publishes its kernel with (PeerKernel::launch): programmatically
/// (stage 9, where the GPU has it) or the ordinary way.
template <void (*Kernel)(PeerArgs)>
void launch_peer_kernel(unsigned blocks, unsigned threads, const PeerArgs& args, bool programmatic,
                        cudaStream_t stream) {
    if (programmatic) {
        cudatutorial::launch_programmatic(Kernel, dim3(blocks), dim3(threads), stream, args);
    } else {
        Kernel<<<blocks, threads, 0, stream>>>(args);
    }
}

}  // namespace multi_gpu
