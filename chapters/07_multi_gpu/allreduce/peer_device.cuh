/// @file peer_device.cuh
/// @brief What the peer-memory kernels share (stages 4, 5, 6 in peer_kernels.cu and stage 10 in
/// stage10_persistent.cu): every rank's buffers as one GPU addresses them (PeerArgs), the spin
/// that gives up, the staging slots, and stage 5's "the data is the signal" helpers. Device code
/// only; include it from .cu files.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

#include "cudatutorial/device_clocks.cuh"
#include "flag_protocol.hpp"
#include "peer_allreduce.hpp"

namespace multi_gpu {

struct PeerArgs {
    int rank = 0;
    int ranks = 1;
    const float* send[kMaxPeerRanks] = {};
    float* recv[kMaxPeerRanks] = {};
    std::uint32_t* flags[kMaxPeerRanks] = {};  // each rank's flag words
    float* staging[kMaxPeerRanks] = {};        // each rank's staging area (one-shot)
    std::uint32_t* counters = nullptr;         // this rank's call counter per block
    std::size_t n = 0;                         // floats to all-reduce
    std::size_t capacity = 0;                  // floats per staging slot
    std::size_t chunk_begin = 0;               // two-shot: this rank's chunk [begin, end)
    std::size_t chunk_end = 0;
};

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

}  // namespace multi_gpu
