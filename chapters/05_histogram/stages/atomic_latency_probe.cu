// A probe, not a stage: the latency of one global atomicAdd, to redo the seed's arithmetic.
//
// The seed estimates atomic throughput as "one atomic per read latency + write latency per
// address" (400 cycles at 1 GHz: 2.5 M atomics/s per bin). Here one thread issues atomics that
// each depend on the previous one's return value, so nothing overlaps and the time per atomic
// is its full round trip: once on a single address (it stays in L2) and once on addresses
// scattered over a buffer much larger than L2 (most go to DRAM). The chapter's README compares
// the seed's model, fed with these latencies, with what stage 2 really achieves.
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_info.hpp"
#include "histogram_device.cuh"

namespace histogram {

namespace {

// `counters[0]` only: the index (old == 0xFFFFFFFF ? 1 : 0) is 0 at run time, because the
// counter never gets near 2^32 - 1, but the compiler cannot know it, so each atomic waits for the
// previous one's result.
__global__ void same_address_chain(unsigned int* counters, int iterations, long long* cycles,
                                   unsigned int* sink) {
    unsigned int old = 0;
    const long long start = clock64();
    for (int i = 0; i < iterations; ++i) {
        old = atomicAdd(&counters[old == 0xFFFFFFFFu ? 1 : 0], 1u);
    }
    *cycles = clock64() - start;
    *sink = old;
}

// Slot i's address depends on the previous atomic's result, the old count of the previous slot:
// a small number (0 for a slot not hit before, more for one that the warm-up launch or an
// earlier step already incremented), which the compiler cannot know, so each atomic waits for
// the previous one's result. Whatever its value, consecutive slots are far apart in a buffer
// several times the L2 size, so most atomics miss L2.
__global__ void scattered_chain(unsigned int* buffer, std::size_t slots, int iterations,
                                long long* cycles, unsigned int* sink) {
    constexpr std::size_t kSlotWords = 64;  // 256 bytes between slots
    unsigned int old = 0;
    const long long start = clock64();
    for (int i = 0; i < iterations; ++i) {
        const std::size_t slot = (static_cast<std::size_t>(i) * 2654435761u + old) % slots;
        old = atomicAdd(&buffer[slot * kSlotWords], 1u);
    }
    *cycles = clock64() - start;
    *sink = old;
}

// The same dependent chain on a shared-memory counter: the atomic is done by the SM's own
// shared-memory unit (ATOMS), without leaving the SM. The textbook and the seed call that "a few
// cycles"; this measures it. With `loads_only`, a chain of plain shared loads through the same
// index arithmetic: what a shared access costs without the read-modify-write, and how much of
// the chain is the loop and the index select rather than the memory operation.
__global__ void shared_chain(int iterations, bool loads_only, long long* cycles,
                             unsigned int* sink) {
    __shared__ unsigned int counters[2];
    counters[0] = 0;
    counters[1] = 0;
    volatile unsigned int* const loads = counters;  // volatile: every load is really issued
    unsigned int old = 0;
    const long long start = clock64();
    if (loads_only) {
        for (int i = 0; i < iterations; ++i) {
            old = loads[old == 0xFFFFFFFFu ? 1 : 0];
        }
    } else {
        for (int i = 0; i < iterations; ++i) {
            old = atomicAdd(&counters[old == 0xFFFFFFFFu ? 1 : 0], 1u);
        }
    }
    *cycles = clock64() - start;
    *sink = old;
}

}  // namespace

AtomicLatency measure_atomic_latency(int iterations) {
    namespace ct = cudatutorial;
    AtomicLatency result;
    result.iterations = iterations;
    ct::DeviceBuffer<unsigned int> counters(2);
    ct::DeviceBuffer<long long> cycles(1);
    ct::DeviceBuffer<unsigned int> sink(1);
    counters.fill_bytes(0);

    int device = 0;
    int l2_bytes = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    result.scattered_bytes =
        std::max<std::size_t>(std::size_t{256} << 20, 8 * std::size_t(l2_bytes));
    ct::require_device_memory(result.scattered_bytes, "the scattered-atomics probe buffer");
    ct::DeviceBuffer<unsigned int> scattered(result.scattered_bytes / sizeof(unsigned int));
    scattered.fill_bytes(0);
    const std::size_t slots = result.scattered_bytes / 256;

    ct::CudaEvent start;
    ct::CudaEvent stop;
    const auto time_one = [&](auto launch, double& ns, double& cycles_per) {
        launch(std::max(1, iterations / 16));  // warm-up: module load, TLB, clocks
        CT_CHECK(cudaDeviceSynchronize());
        start.record();
        launch(iterations);
        stop.record();
        stop.synchronize();
        ns = 1e6 * stop.elapsed_ms_since(start) / iterations;
        long long host_cycles = 0;
        cycles.copy_to_host(&host_cycles, 1);
        cycles_per = static_cast<double>(host_cycles) / iterations;
    };
    time_one(
        [&](int count) {
            same_address_chain<<<1, 1>>>(counters.data(), count, cycles.data(), sink.data());
            CT_CHECK_LAUNCH();
        },
        result.same_address_ns, result.same_address_cycles);
    time_one(
        [&](int count) {
            scattered_chain<<<1, 1>>>(scattered.data(), slots, count, cycles.data(), sink.data());
            CT_CHECK_LAUNCH();
        },
        result.scattered_ns, result.scattered_cycles);
    // A shared atomic takes tens of cycles, not hundreds: 16 times the chain keeps the launch
    // overhead out of the event-timed ns (the cycle counts come from clock64 anyway).
    constexpr int kSharedFactor = 16;
    for (const bool loads_only : {false, true}) {
        double ns = 0;
        double cycles_per = 0;
        time_one(
            [&](int count) {
                shared_chain<<<1, 1>>>(kSharedFactor * count, loads_only, cycles.data(),
                                       sink.data());
                CT_CHECK_LAUNCH();
            },
            ns, cycles_per);
        // time_one divides by `iterations`; the chain was kSharedFactor times longer.
        (loads_only ? result.shared_load_ns : result.shared_atomic_ns) = ns / kSharedFactor;
        (loads_only ? result.shared_load_cycles : result.shared_atomic_cycles) =
            cycles_per / kSharedFactor;
    }
    return result;
}

}  // namespace histogram
