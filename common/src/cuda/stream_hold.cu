// The stream hold of the timing harness (benchmark.hpp, time_repeated), and the empty kernel of
// its launch floor. The hold: one thread spins until the host, having queued every timed
// repetition, sets a flag in mapped host memory: only then does the first start event fire,
// with all the work already queued behind it, so no sample includes the host's launch latency
// (the first one included). nvbench holds its stream the same way. The spin gives up after a
// timeout, so that a launch function that waits on the host (which would wait forever for a
// held stream) costs a delay and a warning, never a hang.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_clocks.cuh"

namespace cudatutorial::detail {
namespace {

using cudatutorial::global_timer_ns;

__global__ void hold_until_released(const volatile int* release, unsigned long long timeout_ns,
                                    volatile int* timed_out) {
    const unsigned long long start = global_timer_ns();
    while (*release == 0) {
        if (global_timer_ns() - start > timeout_ns) {
            *timed_out = 1;
            return;
        }
        __nanosleep(1000);  // poll host memory every microsecond or so, not as fast as possible
    }
}

// Does nothing: timed like a stage, it measures what launching and the events alone cost
// (launch_floor, benchmark.hpp).
__global__ void empty_kernel() {}

}  // namespace

void launch_empty_kernel(cudaStream_t stream) {
    empty_kernel<<<1, 1, 0, stream>>>();
    CT_CHECK_LAUNCH();
}

void launch_stream_hold(const int* release, unsigned long long timeout_ns, int* timed_out,
                        cudaStream_t stream) {
    hold_until_released<<<1, 1, 0, stream>>>(release, timeout_ns, timed_out);
    CT_CHECK_LAUNCH();
}

}  // namespace cudatutorial::detail
