#include "streams.hpp"

#include <algorithm>
#include <stdexcept>

#include "copy_bandwidth.hpp"
#include "launch_overhead.hpp"
#include "pipeline_overlap.hpp"
#include "round_trip.hpp"

namespace streams {

const char* build_name(Build build) {
    return build == Build::kLegacy ? "legacy" : "per-thread";
}

const char* build_compile_flag(Build build) {
    return build == Build::kLegacy ? "nvcc's default, --default-stream legacy"
                                   : "nvcc --default-stream per-thread";
}

const char* default_stream_meaning(Build build) {
    return build == Build::kLegacy
               ? "stream 0 is the legacy default stream: one per device, shared by all host "
                 "threads, an implicit barrier for every blocking stream"
               : "stream 0 is the calling host thread's own default stream, an ordinary blocking "
                 "stream";
}

const char* role_name(Role role) {
    return role == Role::kWorker ? "worker" : "dummy";
}

const char* stream_kind_name(StreamKind kind) {
    switch (kind) {
        case StreamKind::kLegacyDefault:
            return "legacy default";
        case StreamKind::kBlocking:
            return "blocking";
        case StreamKind::kNonBlocking:
            return "non-blocking";
    }
    return "?";
}

const std::vector<ScenarioInfo>& scenario_list() {
    static const std::vector<ScenarioInfo> list = {
        {1, "created_default_created",
         "a kernel in a created blocking stream s, one in the default stream, one more in s",
         "the legacy default stream waits for s and s waits for it: k1, k2, k3 run one after "
         "another",
         "stream 0 is an ordinary stream of this thread: k2 may overlap k1 and k3 (which share s)"},
        {2, "non_blocking_stream", "the same with s created cudaStreamNonBlocking",
         "a non-blocking stream ignores the legacy stream's barrier: k2 may overlap k1 and k3",
         "as in scenario 1: k2 may overlap k1 and k3"},
        {3, "default_stream_between",
         "N blocking streams with a worker each, a dummy kernel in the default stream after each "
         "launch",
         "each dummy waits for the workers before it and the workers after it wait for the dummy: "
         "the workers run one at a time",
         "the dummies go to this thread's own default stream, which orders nothing else: all "
         "workers may run at once"},
        {4, "host_threads",
         "N host threads, each launching a worker in the default stream and synchronizing it",
         "all threads share the one legacy default stream: the workers run one at a time",
         "each thread has its own default stream: all workers may run at once"},
        {5, "concurrency_limit",
         "K blocking streams with one long single-block kernel each: how many run at once?",
         "nothing orders them; the device's limit on resident grids decides",
         "nothing orders them; the device's limit on resident grids decides"},
        {6, "launch_overhead",
         "a chain and a fork-join of tiny kernels, launched one by one, as a CUDA graph (captured "
         "and built by hand) and with programmatic dependent launch",
         "not about stream 0: created non-blocking streams and graphs only, run once",
         "not about stream 0: created non-blocking streams and graphs only, run once"},
        {7, "copy_bandwidth",
         "host <-> device copies from pageable, pinned (cudaMallocHost) and registered "
         "(cudaHostRegister) memory, 4 KiB to --copy-max, against the host link's rate",
         "not about stream 0: one created non-blocking stream, run once",
         "not about stream 0: one created non-blocking stream, run once"},
        {8, "copy_compute_pipeline",
         "a vector in K chunks, each copied in, processed, copied out: in one stream, and with a "
         "stream per chunk issued depth first and breadth first",
         "not about stream 0: created non-blocking streams only, run once",
         "not about stream 0: created non-blocking streams only, run once"},
        {9, "persistent_kernel",
         "one small task at a time, the host waiting for each: a launch per task, a graph launch "
         "per task, and a persistent kernel launched once that takes its tasks from a doorbell "
         "in mapped host memory",
         "not about stream 0: created non-blocking streams only, run once",
         "not about stream 0: created non-blocking streams only, run once"},
    };
    return list;
}

const ScenarioInfo& scenario_info(int id) {
    if (id < 1 || id > kScenarioCount) {
        throw std::out_of_range("no scenario " + std::to_string(id) + " (1 to " +
                                std::to_string(kScenarioCount) + ")");
    }
    return scenario_list()[static_cast<std::size_t>(id - 1)];
}

int kernel_count(int scenario, const ScenarioConfig& config) {
    switch (scenario) {
        case 1:
        case 2:
            return 3;
        case 3:
            return 2 * config.streams;
        case 4:
            return config.streams;
        case 5:
            return config.probe_kernels;
        case kLaunchOverheadScenario:
            return launch_overhead_kernel_count(config);
        case kCopyBandwidthScenario:
            return 0;
        case kPipelineScenario: {
            int kernels = 0;  // one pass of each of the three schedules at each K
            for (const int k : config.pipeline_chunks) {
                kernels += 3 * k;
            }
            return kernels;
        }
        case kPersistentScenario: {
            // A launch per task for each baseline way, one persistent kernel.
            const int tasks =
                config.persistent_tasks + persistent::warmup_tasks_for(config.persistent_tasks);
            return 2 * tasks + 1;
        }
        default:
            throw std::out_of_range("no scenario " + std::to_string(scenario));
    }
}

std::size_t device_bytes(int scenario, const ScenarioConfig& config) {
    if (scenario == kCopyBandwidthScenario) {
        return 2 * static_cast<std::size_t>(config.copy_max_bytes);  // copy target and source
    }
    if (scenario == kPipelineScenario) {
        int most = 1;
        for (const int k : config.pipeline_chunks) {
            most = std::max(most, k);
        }
        return pipeline::pipeline_device_bytes(static_cast<std::size_t>(config.pipeline_n), most);
    }
    if (scenario == kPersistentScenario) {
        return static_cast<std::size_t>(config.n) * sizeof(std::uint32_t);  // one way at a time
    }
    const auto kernels = static_cast<std::size_t>(kernel_count(scenario, config));
    if (scenario == kLaunchOverheadScenario) {
        // A 32-byte time record per kernel, and the largest shape's regions (one at a time).
        return kernels * sizeof(graph::NodeTime) +
               launch_overhead_shapes(config).back().elements() * sizeof(std::uint32_t);
    }
    // Per kernel slot, KernelSlots (scenario_kit.cuh) allocates n outputs and two KernelTimes of
    // 24 bytes: the kernel's own record and the scratch record of the launch that primes its
    // stream.
    constexpr std::size_t kTimesBytes = 2 * 24;
    return kernels * (static_cast<std::size_t>(config.n) * sizeof(std::uint32_t) + kTimesBytes);
}

ScenarioRun run_scenario(Build build, int scenario, const ScenarioConfig& config) {
    scenario_info(scenario);  // throws on a bad id
    if (scenario == kLaunchOverheadScenario) {
        throw std::invalid_argument("scenario 6 runs once, not per build: run_launch_overhead()");
    }
    if (scenario == kCopyBandwidthScenario || scenario == kPipelineScenario) {
        throw std::invalid_argument(
            "scenarios 7 and 8 run once, not per build: run_copy_bandwidth_scenario(), "
            "run_pipeline_scenario()");
    }
    if (scenario == kPersistentScenario) {
        throw std::invalid_argument(
            "scenario 9 runs once, not per build: persistent::run_persistent_scenario()");
    }
    return build == Build::kLegacy ? legacy::run_scenario(scenario, config)
                                   : per_thread::run_scenario(scenario, config);
}

}  // namespace streams
