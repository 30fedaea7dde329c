/// @file device_clocks.cuh
/// @brief The two special registers the chapters read inside kernels: when (%globaltimer) and
/// where (%smid). Device code only; include from .cu files.
#pragma once

namespace cudatutorial {

/// %globaltimer: a nanosecond clock shared by all SMs, so times from different kernels (and SMs)
/// can be compared directly. Its update interval depends on the GPU (32 ns on the H100; up to
/// about a microsecond on others).
__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

/// %smid: the SM this thread runs on (the hardware may renumber SMs; use it to count and group,
/// not to name a physical SM).
__device__ __forceinline__ unsigned int sm_id() {
    unsigned int id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

}  // namespace cudatutorial
