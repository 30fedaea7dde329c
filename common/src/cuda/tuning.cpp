// The adaptive stages' per-architecture table and the device figures they read (tuning.hpp).
#include "cudatutorial/tuning.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_info.hpp"

namespace cudatutorial::tuning {

const std::vector<ArchitectureTuning>& architecture_table() {
    static const std::vector<ArchitectureTuning> table = {
        // 9.0, H100 and H200 (Hopper). Measured, but not every value on both GPUs:
        //  - 345 ns: chapter 1's pointer chase on the H100 (256 MiB, L2 flushed;
        //    docs/results/nvidia-h100-80gb-hbm3/execution_model_latency.txt). The H200's latency
        //    was not measured: it uses the H100's.
        //  - margin 8: the H100's tuning pass of chapter 3 (docs/results/nvidia-h100-80gb-hbm3/
        //    reduction_2e28.txt): at full occupancy 2 loads per thread (64 KiB per SM, 7.5x
        //    Little's law) measured slower than 4 (128 KiB); chapter 5's register counters
        //    agree (0.0954 against 0.0925 ms).
        //  - 14.8 bytes per SM per clock: chapter 5's stage 8 on the H200, 256 random byte
        //    values, 2^28 bytes in 0.0692 ms = 3879 GB/s at 1980 MHz over 132 SMs
        //    (docs/results/nvidia-h200/histogram_bytes.txt); the unpipelined kernel sustained
        //    12.5.
        {9, 0, 345, 8, 14.8, false,
         "measured: latency on the H100, margin on the H100, shared atomics on the H200"},
        // Every other GPU: an estimate, the 9.0 figures carried over (no other architecture was
        // measured). A GPU with a slower or faster memory still gets its own bandwidth and SM
        // count from its attributes; only these three figures are borrowed.
        {0, -1, 345, 8, 14.8, true, "estimate: the 9.0 (H100/H200) figures carried over"},
    };
    return table;
}

const char* match_name(TuningMatch match) {
    switch (match) {
        case TuningMatch::kExact:
            return "exact";
        case TuningMatch::kSameMajor:
            return "same major";
        case TuningMatch::kDefault:
            return "default";
    }
    return "?";
}

TuningLookup find_tuning(const std::vector<ArchitectureTuning>& table, int cc_major, int cc_minor) {
    const ArchitectureTuning* same_major = nullptr;
    const ArchitectureTuning* fallback = nullptr;
    for (const ArchitectureTuning& entry : table) {
        if (entry.cc_major == 0) {
            fallback = fallback ? fallback : &entry;
        } else if (entry.cc_major == cc_major && entry.cc_minor == cc_minor) {
            return {&entry, TuningMatch::kExact};
        } else if (entry.cc_major == cc_major && entry.cc_minor < 0 && !same_major) {
            same_major = &entry;
        }
    }
    if (same_major) {
        return {same_major, TuningMatch::kSameMajor};
    }
    if (!fallback) {
        throw std::logic_error("tuning table without a default entry (compute capability 0)");
    }
    return {fallback, TuningMatch::kDefault};
}

const ArchitectureTuning& tuning_for(int cc_major, int cc_minor) {
    return *find_tuning(architecture_table(), cc_major, cc_minor).entry;
}

DeviceFigures device_figures(int device) {
    DeviceFigures f;
    int sm_khz = 0;
    CT_CHECK(cudaDeviceGetAttribute(&f.cc_major, cudaDevAttrComputeCapabilityMajor, device));
    CT_CHECK(cudaDeviceGetAttribute(&f.cc_minor, cudaDevAttrComputeCapabilityMinor, device));
    CT_CHECK(cudaDeviceGetAttribute(&f.sm_count, cudaDevAttrMultiProcessorCount, device));
    CT_CHECK(cudaDeviceGetAttribute(&f.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor,
                                    device));
    CT_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device));
    f.bandwidth_gbs = device_bandwidth_gbs(device);
    f.sm_clock_mhz = sm_khz / 1e3;
    return f;
}

int current_device() {
    int device = 0;
    CT_CHECK(cudaGetDevice(&device));
    return device;
}

}  // namespace cudatutorial::tuning
