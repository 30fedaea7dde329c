/// @file streams.hpp
/// @brief Chapter 6, streams: the host API of the five scenarios and of the two builds that run
/// them (the legacy default stream and the per-thread default stream).
///
/// The scenario sources (scenarios/*.cu) are compiled twice: once as nvcc compiles by default
/// (`--default-stream legacy`) into namespace streams::legacy, and once with
/// `--default-stream per-thread` into namespace streams::per_thread. The code is the same; only
/// what "stream 0" means differs. Every kernel reads %globaltimer when it starts and when it ends
/// and %smid, so the program measures which kernels ran at the same time instead of drawing it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

namespace streams {

/// Which compilation of the scenario sources runs a scenario.
enum class Build {
    kLegacy,     ///< compiled as nvcc does by default: stream 0 is the legacy default stream
    kPerThread,  ///< compiled with `--default-stream per-thread`: stream 0 is per host thread
};

/// "legacy" or "per-thread".
const char* build_name(Build build);
/// How that build was compiled, e.g. "nvcc --default-stream per-thread".
const char* build_compile_flag(Build build);
/// What stream 0 is in that build, in one line.
const char* default_stream_meaning(Build build);

/// What a kernel is there for.
enum class Role {
    kWorker,  ///< runs for a fixed time and writes `n` checked elements; counted in the pairs
    kDummy,   ///< one thread, no spinning, writes one checked element (scenario 3's default-stream
              ///< kernel)
};

/// "worker" or "dummy".
const char* role_name(Role role);

/// How a stream synchronizes with the legacy default stream.
enum class StreamKind {
    kLegacyDefault,  ///< the legacy default stream itself
    kBlocking,       ///< created with cudaStreamDefault, or a per-thread default stream
    kNonBlocking,    ///< created with cudaStreamNonBlocking
};

/// "legacy default", "blocking" or "non-blocking".
const char* stream_kind_name(StreamKind kind);

/// One kernel of a scenario run: what it was launched on, and when and where it ran.
/// Records are kept in the order the kernels were issued (see stream_rules.hpp).
struct KernelRecord {
    std::string name;           ///< "k1", "w3", "d3", "t5", "g17"
    Role role = Role::kWorker;  ///< worker or dummy
    std::string stream;         ///< label, e.g. "s3 blocking", "default (legacy)"
    StreamKind stream_kind = StreamKind::kBlocking;  ///< its synchronization with the legacy stream
    std::uint64_t stream_id = 0;  ///< cudaStreamGetId: two kernels with equal ids shared a stream
    int host_thread = 0;          ///< 0: the main thread; 1..N: the threads of scenario 4
    std::uint32_t sm = 0;         ///< %smid of the kernel's single block
    std::uint64_t start_ns = 0;   ///< %globaltimer when the block started
    std::uint64_t end_ns = 0;     ///< %globaltimer when the block finished
    /// end_ns - start_ns
    std::uint64_t duration_ns() const { return end_ns - start_ns; }
};

/// Threads per block of every worker kernel (each kernel is one block).
inline constexpr unsigned kWorkerThreads = 128;
/// Number of scenarios (1..kScenarioCount): the rows of scenario_list(), whose ids are 1, 2, ...
/// in order (a test checks both).
inline constexpr int kScenarioCount = 9;

/// What the scenarios launch.
struct ScenarioConfig {
    int streams = 8;           ///< streams in scenario 3, host threads in scenario 4
    double kernel_us = 200.0;  ///< how long each worker of scenarios 1-4 spins (microseconds)
    std::uint32_t n = 4096;    ///< elements each worker writes (its checked output)
    int probe_kernels = 256;   ///< kernels (one stream each) in scenario 5
    double probe_us = 2000.0;  ///< how long each kernel of scenario 5 spins (microseconds)
    int device = 0;            ///< the device the host threads of scenario 4 select
    std::uint32_t salt = 1;    ///< mixed into every output value, so that runs differ
    int graph_kernels = 1000;  ///< kernels of scenario 6's chain (and, split, of its fork-join)
    int graph_branches = 4;    ///< branches of scenario 6's fork-join
    std::uint64_t copy_max_bytes = std::uint64_t{64} << 20;  ///< largest copy of scenario 7
    std::uint64_t pipeline_n = std::uint64_t{1} << 22;       ///< elements of scenario 8's vector
    std::vector<int> pipeline_chunks = {1, 2, 4, 8, 16};     ///< the K values of scenario 8
    std::uint32_t pipeline_rounds = 0;   ///< steps per element of scenario 8's kernel; 0: calibrate
    int persistent_tasks = 10000;        ///< timed tasks per way in scenario 9 (`n` values each)
    std::uint32_t idle_limit_ms = 2000;  ///< scenario 9's kernel gives up after this long idle
};

/// One run of one scenario.
struct ScenarioRun {
    std::vector<KernelRecord> kernels;  ///< in issue order
    /// Elapsed time between two events recorded on the legacy default stream (cudaStreamLegacy)
    /// just before the first launch and just after the last one. It is NOT the scenario's
    /// duration when non-blocking streams are involved: the second event does not wait for them.
    double legacy_event_ms = 0.0;
    bool outputs_ok = false;    ///< every kernel wrote exactly the expected values and its times
    std::string output_detail;  ///< the first problem found, or empty
};

/// How one build runs a scenario of the stream rules: its compilation of scenarios/*.cu.
using ScenarioRunner = ScenarioRun (*)(const ScenarioConfig& config);

/// What a scenario's row says beyond its id ("1".."9"), key (the name, for tables and files) and
/// title (the idea: what is launched).
struct ScenarioNeeds {
    const char* legacy_rule = "";      ///< what the rules say for the legacy build
    const char* per_thread_rule = "";  ///< what the rules say for the per-thread build
    /// Scenarios 1-5, the stream rules: the per-thread build's runner (the row's `launch` is the
    /// legacy build's); both run, side by side. Null for 6-9, which measure their own way, once.
    ScenarioRunner per_thread = nullptr;
    /// Kernels a run launches with `config`.
    int (*kernels)(const ScenarioConfig& config) = nullptr;
    /// Device memory a run allocates, in bytes. Null: what the kernel slots of scenarios 1-5 take
    /// (rule_scenario_bytes).
    std::size_t (*device_bytes)(const ScenarioConfig& config) = nullptr;
    /// The launch in numbers, one line under the title ("N = 8 streams; each worker: ...").
    std::string (*launches)(const ScenarioConfig& config) = nullptr;
    /// Shown as how many kernels ran at once over time (too many kernels for a timeline).
    bool concurrency_profile = false;
};

/// One scenario of the table (cudatutorial::StageRow): id, key (`name`), title (`idea`), its
/// rules, and how it runs. Scenario 9 runs only when named (`by_default`: its kernel stays
/// resident, spinning, on one SM).
using ScenarioInfo = cudatutorial::StageRow<ScenarioNeeds, ScenarioRunner>;

/// The scenarios, in order.
const std::vector<ScenarioInfo>& scenario_list();

/// Scenario `id` (1..kScenarioCount); throws std::out_of_range otherwise.
const ScenarioInfo& scenario_info(int id);

/// What the kernel slots of a run of scenarios 1-5 allocate: for each kernel, n outputs and two
/// time records (scenario_kit.cuh's KernelSlots).
std::size_t rule_scenario_bytes(int kernels, const ScenarioConfig& config);

/// Kernels a run of `scenario` launches with `config`.
int kernel_count(int scenario, const ScenarioConfig& config);
/// Device memory a run of `scenario` allocates (outputs and time records), in bytes.
std::size_t device_bytes(int scenario, const ScenarioConfig& config);

/// Runs `scenario` (1..5) once in `build` on the current device and returns its kernels' records,
/// already checked against the CPU reference (expected_output in worker_output.hpp).
/// Throws cudatutorial::CudaError on a CUDA failure, std::out_of_range on a bad scenario and
/// std::invalid_argument for a scenario that does not run per build (6-9).
ScenarioRun run_scenario(Build build, int scenario, const ScenarioConfig& config);

// Scenarios 1-5 as each build compiled them (scenarios/*.cu, compiled twice; the rows of
// scenario_list() name them).
namespace legacy {
ScenarioRun run_created_default_created(const ScenarioConfig& config);  // scenario 1
ScenarioRun run_non_blocking_stream(const ScenarioConfig& config);      // scenario 2
ScenarioRun run_default_between_streams(const ScenarioConfig& config);  // scenario 3
ScenarioRun run_host_threads(const ScenarioConfig& config);             // scenario 4
ScenarioRun run_concurrency_limit(const ScenarioConfig& config);        // scenario 5
}  // namespace legacy
namespace per_thread {
ScenarioRun run_created_default_created(const ScenarioConfig& config);
ScenarioRun run_non_blocking_stream(const ScenarioConfig& config);
ScenarioRun run_default_between_streams(const ScenarioConfig& config);
ScenarioRun run_host_threads(const ScenarioConfig& config);
ScenarioRun run_concurrency_limit(const ScenarioConfig& config);
}  // namespace per_thread

}  // namespace streams
