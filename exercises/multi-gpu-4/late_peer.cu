// Exercise multi-gpu-4's harness: a kernel that keeps one GPU busy for a while before its call,
// so that the other GPU reaches the flag barrier first and is already spinning when the late
// one signals. A barrier that does not wait then reads its staging before the peer's stores
// arrive, and one that signals too early is read the moment the flag lands.
#include <cstdint>

#include "cudatutorial/check.hpp"
#include "one_shot_exercise.hpp"

namespace one_shot_exercise {
namespace {

__device__ std::uint64_t global_nanoseconds() {
    std::uint64_t t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin_kernel(std::uint64_t nanoseconds) {
    const std::uint64_t until = global_nanoseconds() + nanoseconds;
    while (global_nanoseconds() < until) {
    }
}

}  // namespace

void launch_late_peer_delay(unsigned microseconds, cudaStream_t stream) {
    spin_kernel<<<1, 1, 0, stream>>>(std::uint64_t{microseconds} * 1000);
    CT_CHECK_LAUNCH();
}

}  // namespace one_shot_exercise
