// The scenario list: one row per scenario, each field named (cudatutorial::StageRow), saying how
// it runs (each build's runner for the stream rules, its kernels, its memory). A new scenario is
// its file in scenarios/ plus one row here (and, for one that measures its own way, a section in
// main.cpp).
#include "streams.hpp"

#include <algorithm>
#include <stdexcept>

#include "cudatutorial/report.hpp"
#include "scenarios/graph_launch.hpp"
#include "scenarios/persistent_kernel.hpp"
#include "scenarios/pipeline_overlap.hpp"

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

namespace {

// What each scenario launches, for its row.

int three_kernels(const ScenarioConfig&) {
    return 3;
}

int worker_and_dummy_per_stream(const ScenarioConfig& config) {
    return 2 * config.streams;
}

int one_per_host_thread(const ScenarioConfig& config) {
    return config.streams;
}

int probe_kernels(const ScenarioConfig& config) {
    return config.probe_kernels;
}

std::string fixed(double value) {
    return cudatutorial::format_fixed(value, 1);
}

std::string each_worker(const ScenarioConfig& config) {
    return "each worker: one block of " + std::to_string(kWorkerThreads) + " threads writing " +
           std::to_string(config.n) + " elements, then spinning until " + fixed(config.kernel_us) +
           " µs after its start";
}

std::string streams_and_dummies(const ScenarioConfig& config) {
    return "N = " + std::to_string(config.streams) + " streams; " + each_worker(config) +
           "; each dummy: one thread, one element";
}

std::string host_threads(const ScenarioConfig& config) {
    return "N = " + std::to_string(config.streams) + " host threads; " + each_worker(config);
}

std::string probes(const ScenarioConfig& config) {
    return "K = " + std::to_string(config.probe_kernels) + " kernels of " + fixed(config.probe_us) +
           " µs, one block of " + std::to_string(kWorkerThreads) + " threads each, " +
           std::to_string(config.n) + " elements written by each";
}

std::size_t launch_overhead_bytes(const ScenarioConfig& config) {
    // A 32-byte time record per kernel, and the largest shape's regions (one at a time).
    return static_cast<std::size_t>(launch_overhead_kernel_count(config)) *
               sizeof(graph::NodeTime) +
           launch_overhead_shapes(config).back().elements() * sizeof(std::uint32_t);
}

int no_kernels(const ScenarioConfig&) {
    return 0;
}

std::size_t copy_bytes(const ScenarioConfig& config) {
    return 2 * static_cast<std::size_t>(config.copy_max_bytes);  // copy target and source
}

int pipeline_kernels(const ScenarioConfig& config) {
    int kernels = 0;  // one pass of each of the three schedules at each K
    for (const int k : config.pipeline_chunks) {
        kernels += 3 * k;
    }
    return kernels;
}

std::size_t pipeline_bytes(const ScenarioConfig& config) {
    int most = 1;
    for (const int k : config.pipeline_chunks) {
        most = std::max(most, k);
    }
    return pipeline::pipeline_device_bytes(static_cast<std::size_t>(config.pipeline_n), most);
}

int persistent_kernels(const ScenarioConfig& config) {
    // A launch per task for each baseline way, one persistent kernel.
    const int tasks =
        config.persistent_tasks + persistent::warmup_tasks_for(config.persistent_tasks);
    return 2 * tasks + 1;
}

std::size_t persistent_bytes(const ScenarioConfig& config) {
    return static_cast<std::size_t>(config.n) * sizeof(std::uint32_t);  // one way at a time
}

}  // namespace

const std::vector<ScenarioInfo>& scenario_list() {
    using Needs = ScenarioNeeds;
    const char* const kNotAboutStreamZero =
        "not about stream 0: created non-blocking streams only, "
        "run once";
    static const std::vector<ScenarioInfo> list = {
        ScenarioInfo("1", "created_default_created",
                     "a kernel in a created blocking stream s, one in the default stream, one more "
                     "in s")
            .with_launcher(legacy::run_created_default_created)
            .with(&Needs::per_thread, per_thread::run_created_default_created)
            .with(&Needs::legacy_rule,
                  "the legacy default stream waits for s and s waits for "
                  "it: k1, k2, k3 run one after another")
            .with(&Needs::per_thread_rule,
                  "stream 0 is an ordinary stream of this thread: k2 "
                  "may overlap k1 and k3 (which share s)")
            .with(&Needs::kernels, three_kernels)
            .with(&Needs::launches, each_worker),
        ScenarioInfo("2", "non_blocking_stream", "the same with s created cudaStreamNonBlocking")
            .with_launcher(legacy::run_non_blocking_stream)
            .with(&Needs::per_thread, per_thread::run_non_blocking_stream)
            .with(&Needs::legacy_rule,
                  "a non-blocking stream ignores the legacy stream's "
                  "barrier: k2 may overlap k1 and k3")
            .with(&Needs::per_thread_rule, "as in scenario 1: k2 may overlap k1 and k3")
            .with(&Needs::kernels, three_kernels)
            .with(&Needs::launches, each_worker),
        ScenarioInfo("3", "default_stream_between",
                     "N blocking streams with a worker each, a dummy kernel in the default stream "
                     "after each launch")
            .with_launcher(legacy::run_default_between_streams)
            .with(&Needs::per_thread, per_thread::run_default_between_streams)
            .with(&Needs::legacy_rule,
                  "each dummy waits for the workers before it and the "
                  "workers after it wait for the dummy: the workers run one "
                  "at a time")
            .with(&Needs::per_thread_rule,
                  "the dummies go to this thread's own default stream, "
                  "which orders nothing else: all workers may run at "
                  "once")
            .with(&Needs::kernels, worker_and_dummy_per_stream)
            .with(&Needs::launches, streams_and_dummies),
        ScenarioInfo("4", "host_threads",
                     "N host threads, each launching a worker in the default stream and "
                     "synchronizing it")
            .with_launcher(legacy::run_host_threads)
            .with(&Needs::per_thread, per_thread::run_host_threads)
            .with(&Needs::legacy_rule,
                  "all threads share the one legacy default stream: the "
                  "workers run one at a time")
            .with(&Needs::per_thread_rule,
                  "each thread has its own default stream: all workers "
                  "may run at once")
            .with(&Needs::kernels, one_per_host_thread)
            .with(&Needs::launches, host_threads),
        ScenarioInfo("5", "concurrency_limit",
                     "K blocking streams with one long single-block kernel each: how many run at "
                     "once?")
            .with_launcher(legacy::run_concurrency_limit)
            .with(&Needs::per_thread, per_thread::run_concurrency_limit)
            .with(&Needs::legacy_rule,
                  "nothing orders them; the device's limit on resident "
                  "grids decides")
            .with(&Needs::per_thread_rule,
                  "nothing orders them; the device's limit on resident "
                  "grids decides")
            .with(&Needs::kernels, probe_kernels)
            .with(&Needs::launches, probes)
            .with(&Needs::concurrency_profile, true),
        ScenarioInfo("6", "launch_overhead",
                     "a chain and a fork-join of tiny kernels, launched one by one, as a CUDA "
                     "graph (captured and built by hand) and with programmatic dependent launch")
            .with(&Needs::legacy_rule,
                  "not about stream 0: created non-blocking streams and "
                  "graphs only, run once")
            .with(&Needs::per_thread_rule,
                  "not about stream 0: created non-blocking streams and "
                  "graphs only, run once")
            .with(&Needs::kernels, launch_overhead_kernel_count)
            .with(&Needs::device_bytes, launch_overhead_bytes),
        ScenarioInfo("7", "copy_bandwidth",
                     "host <-> device copies from pageable, pinned (cudaMallocHost) and "
                     "registered (cudaHostRegister) memory, 4 KiB to --copy-max, against the host "
                     "link's rate")
            .with(&Needs::legacy_rule,
                  "not about stream 0: one created non-blocking stream, run "
                  "once")
            .with(&Needs::per_thread_rule,
                  "not about stream 0: one created non-blocking stream, "
                  "run once")
            .with(&Needs::kernels, no_kernels)
            .with(&Needs::device_bytes, copy_bytes),
        ScenarioInfo("8", "copy_compute_pipeline",
                     "a vector in K chunks, each copied in, processed, copied out: in one stream, "
                     "and with a stream per chunk issued depth first and breadth first")
            .with(&Needs::legacy_rule, kNotAboutStreamZero)
            .with(&Needs::per_thread_rule, kNotAboutStreamZero)
            .with(&Needs::kernels, pipeline_kernels)
            .with(&Needs::device_bytes, pipeline_bytes),
        ScenarioInfo("9", "persistent_kernel",
                     "one small task at a time, the host waiting for each: a launch per task, a "
                     "graph launch per task, and a persistent kernel launched once that takes its "
                     "tasks from a doorbell in mapped host memory")
            .with(&Needs::legacy_rule, kNotAboutStreamZero)
            .with(&Needs::per_thread_rule, kNotAboutStreamZero)
            .with(&Needs::kernels, persistent_kernels)
            .with(&Needs::device_bytes, persistent_bytes)
            .only_when_named(),  // its kernel stays resident, spinning, on one SM
    };
    return list;
}

const ScenarioInfo& scenario_info(int id) {
    const ScenarioInfo* found = cudatutorial::find_stage_in(scenario_list(), std::to_string(id));
    if (found == nullptr) {
        throw std::out_of_range("no scenario " + std::to_string(id) + " (1 to " +
                                std::to_string(kScenarioCount) + ")");
    }
    return *found;
}

std::size_t rule_scenario_bytes(int kernels, const ScenarioConfig& config) {
    // Per kernel slot, KernelSlots (scenario_kit.cuh) allocates n outputs and two KernelTimes of
    // 24 bytes: the kernel's own record and the scratch record of the launch that primes its
    // stream.
    constexpr std::size_t kTimesBytes = 2 * 24;
    return static_cast<std::size_t>(kernels) *
           (static_cast<std::size_t>(config.n) * sizeof(std::uint32_t) + kTimesBytes);
}

int kernel_count(int scenario, const ScenarioConfig& config) {
    return scenario_info(scenario).kernels(config);
}

std::size_t device_bytes(int scenario, const ScenarioConfig& config) {
    const ScenarioInfo& info = scenario_info(scenario);
    return info.device_bytes != nullptr ? info.device_bytes(config)
                                        : rule_scenario_bytes(info.kernels(config), config);
}

ScenarioRun run_scenario(Build build, int scenario, const ScenarioConfig& config) {
    const ScenarioInfo& info = scenario_info(scenario);  // throws on a bad id
    const ScenarioRunner run = build == Build::kLegacy ? info.launch : info.per_thread;
    if (run == nullptr) {
        throw std::invalid_argument("scenario " + info.id + " (" + info.name +
                                    ") runs once, not per build: it measures its own way");
    }
    return run(config);
}

}  // namespace streams
