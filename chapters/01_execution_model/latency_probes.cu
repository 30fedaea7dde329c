// Latency and throughput probes: the inputs of Little's law, measured on the GPU at hand instead
// of copied from a table.
//
// The textbook assumed 20 cycles per arithmetic instruction, 800 cycles per global load and the
// number of FP32 units per SM of Fermi and Kepler. Those figures are 15 years old, and a table of
// "cores per SM" keyed by compute capability breaks on every new GPU. So we measure:
//  - FMA latency: one thread runs a chain of dependent FMAs (each needs the previous result);
//    cycles / FMAs is the time from issue to result.
//  - FMA throughput: every SM full of warps, each thread with 8 independent chains, so the
//    scheduler always finds an FMA to issue; FMAs / cycles per SM is what the SM can retire.
//  - DRAM latency: one thread follows a chain of pointers through a random permutation of a
//    buffer much larger than L2 (L2 flushed first), so every load waits for the previous one.
// The FMA figures are clock64() cycles of the SM that ran the code: latency and throughput are
// both per SM cycle, so their product (Little's law for arithmetic) does not depend on the clock.
// The DRAM latency is timed twice over the same loop: with %globaltimer (nanoseconds) and with
// clock64() (SM cycles). DRAM does not run on the SM clock, so its latency is a time: the bytes
// that must be in flight are latency (ns) x bandwidth (GB/s = bytes per ns), whatever clock the
// SM runs at. The ratio of the two counts is the SM clock during the probe.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

namespace {

constexpr int kUnroll = 16;  // FMAs per loop trip: keeps the loop's own instructions negligible
constexpr int kChains = 8;   // independent FMA chains per thread in the throughput probe

using cudatutorial::global_timer_ns;
using cudatutorial::sm_id;

__global__ void fma_latency_kernel(float* out, long long* cycles, int trips, float a, float b) {
    float x = 1.0f + static_cast<float>(threadIdx.x);
    const long long start = clock64();
    for (int trip = 0; trip < trips; ++trip) {
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) {
            x = fmaf(x, a, b);  // needs the x of the line before: a dependent chain
        }
    }
    const long long stop = clock64();
    out[0] = x;  // keeps the chain alive
    cycles[0] = stop - start;
}

__global__ void fma_throughput_kernel(float* out, long long* starts, long long* stops,
                                      unsigned int* sms, int trips, float a, float b) {
    float x[kChains];
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
        x[k] = static_cast<float>(threadIdx.x + k);
    }
    __syncthreads();
    const long long start = clock64();
    for (int trip = 0; trip < trips; ++trip) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
            for (int k = 0; k < kChains; ++k) {
                x[k] = fmaf(x[k], a, b);  // 8 chains that do not wait for each other
            }
        }
    }
    __syncthreads();
    const long long stop = clock64();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
        sum += x[k];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) {
        starts[blockIdx.x] = start;
        stops[blockIdx.x] = stop;
        sms[blockIdx.x] = sm_id();
    }
}

// next[i] = (a * i + c) mod 2^k with a = 1 (mod 4) and c odd visits every index once before
// returning (Hull-Dobell), in an order that jumps all over the buffer.
__global__ void init_chase_kernel(unsigned int* next, unsigned int count) {
    const unsigned int mask = count - 1;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        next[i] = (1664525u * i + 1013904223u) & mask;
    }
}

// times[0] = SM cycles (clock64), times[1] = nanoseconds (%globaltimer) of the timed hops.
__global__ void chase_kernel(const unsigned int* next, int warmup_hops, int hops,
                             unsigned int* sink, long long* times) {
    unsigned int p = 0;
    for (int i = 0; i < warmup_hops; ++i) {  // instruction cache, first TLB entries
        p = next[p];
    }
    const unsigned long long start_ns = global_timer_ns();
    const long long start_cycles = clock64();
    for (int i = 0; i < hops; ++i) {
        p = next[p];  // the address of each load is the value of the previous one
    }
    // The reads below need not wait for the last load: one hop in thousands, negligible.
    const long long stop_cycles = clock64();
    const unsigned long long stop_ns = global_timer_ns();
    sink[0] = p;
    times[0] = stop_cycles - start_cycles;
    times[1] = static_cast<long long>(stop_ns - start_ns);
}

}  // namespace

double measure_fma_latency_cycles(int chain) {
    const int trips = std::max(1, chain / kUnroll);
    ct::DeviceBuffer<float> out(1);
    ct::DeviceBuffer<long long> cycles(1);
    long long measured = 0;
    for (int run = 0; run < 2; ++run) {  // the first run also loads the code: keep the second
        fma_latency_kernel<<<1, 1>>>(out.data(), cycles.data(), trips, 0.999f, 0.001f);
        CT_CHECK_LAUNCH();
        cycles.copy_to_host(&measured, 1);
    }
    return static_cast<double>(measured) / (static_cast<double>(trips) * kUnroll);
}

double measure_fma_throughput_per_sm(const ct::DeviceInfo& device, int chain) {
    constexpr int kThreads = 256;
    const int blocks_per_sm = std::max(1, device.max_threads_per_sm / kThreads);
    const int blocks = device.sm_count * blocks_per_sm;
    ct::DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * kThreads);
    ct::DeviceBuffer<long long> starts(blocks), stops(blocks);
    ct::DeviceBuffer<unsigned int> sms(blocks);
    const int trips = std::max(1, chain / kUnroll);
    for (int run = 0; run < 2; ++run) {
        fma_throughput_kernel<<<blocks, kThreads>>>(out.data(), starts.data(), stops.data(),
                                                    sms.data(), trips, 0.999f, 0.001f);
        CT_CHECK_LAUNCH();
    }
    CT_CHECK(cudaDeviceSynchronize());
    const auto start_host = starts.to_host();
    const auto stop_host = stops.to_host();
    const auto sm_host = sms.to_host();
    // Per SM: all FMAs of the blocks it ran over the span from its first start to its last stop
    // (clock64 is a per-SM counter: only compare values read on the same SM).
    struct Span {
        long long first = 0, last = 0;
        int blocks = 0;
    };
    std::map<unsigned int, Span> per_sm;
    for (int i = 0; i < blocks; ++i) {
        Span& span = per_sm[sm_host[i]];
        span.first = span.blocks ? std::min(span.first, start_host[i]) : start_host[i];
        span.last = span.blocks ? std::max(span.last, stop_host[i]) : stop_host[i];
        ++span.blocks;
    }
    double sum = 0.0;
    for (const auto& [sm, span] : per_sm) {
        const double fmas = static_cast<double>(span.blocks) * kThreads * kChains * kUnroll * trips;
        sum += fmas / static_cast<double>(std::max(1LL, span.last - span.first));
    }
    return per_sm.empty() ? 0.0 : sum / static_cast<double>(per_sm.size());
}

DramLatency measure_dram_latency(std::size_t buffer_bytes, int hops) {
    std::size_t count = 1;
    while (count * 2 * sizeof(unsigned int) <= buffer_bytes) {
        count *= 2;  // a power of two, for the full-period permutation
    }
    if (count > (std::size_t{1} << 31) || hops < 1) {
        throw std::invalid_argument("measure_dram_latency: buffer too large or no hops");
    }
    ct::DeviceBuffer<unsigned int> next(count);
    ct::DeviceBuffer<unsigned int> sink(1);
    ct::DeviceBuffer<long long> times(2);
    init_chase_kernel<<<1024, 256>>>(next.data(), static_cast<unsigned int>(count));
    CT_CHECK_LAUNCH();
    {
        ct::L2Flusher flusher;  // evict the permutation the init kernel left in L2
        flusher.flush(nullptr);
    }
    chase_kernel<<<1, 1>>>(next.data(), 256, hops, sink.data(), times.data());
    CT_CHECK_LAUNCH();
    long long measured[2] = {0, 0};
    times.copy_to_host(measured, 2);
    DramLatency latency;
    latency.cycles_per_load = static_cast<double>(measured[0]) / hops;
    latency.ns_per_load = static_cast<double>(measured[1]) / hops;
    return latency;
}

ProbeResults run_latency_probes(const ct::DeviceInfo& device, bool small) {
    ProbeResults results;
    results.fma_latency_cycles = measure_fma_latency_cycles(small ? 256 : 16384);
    results.fma_per_cycle_per_sm = measure_fma_throughput_per_sm(device, small ? 64 : 4096);
    results.chase_bytes = small ? (std::size_t{16} << 20) : (std::size_t{256} << 20);
    results.chase_hops = small ? 512 : 32768;
    results.dram = measure_dram_latency(results.chase_bytes, results.chase_hops);
    return results;
}

}  // namespace execution_model
