/// @file round_trip.hpp
/// @brief Scenario 9's measurement: the same small task run one at a time, launched per task
/// (kernel or graph) and through a persistent kernel (persistent_kernel.hpp); the round trip of
/// every task timed on the host, every receipt and the final buffer checked against the CPU.
///
/// Why on the host: a CUDA event pair brackets work in a stream, and a resident kernel has no
/// launch per task to bracket. What a caller waits for is the round trip anyway: from posting
/// the task to holding its result, timed with std::chrono::steady_clock around each task.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "cudatutorial/report.hpp"
#include "cudatutorial/stats.hpp"
#include "scenarios/persistent_kernel.hpp"
#include "streams.hpp"

namespace streams {
/// The scenario number of the persistent kernel (--scenario 9).
inline constexpr int kPersistentScenario = 9;
}  // namespace streams

namespace streams::persistent {

/// The three ways a task reaches the GPU, in table order (the first is the baseline).
enum class Way { kLaunch, kGraph, kPersistent };
/// kLaunch, kGraph, kPersistent.
const std::vector<Way>& all_ways();
/// "launch + sync", "graph launch + sync", "persistent kernel".
const char* way_name(Way way);
/// "launch_sync", "graph_sync", "persistent_kernel": the table's kernel names.
const char* way_key(Way way);

/// k(k+1)/2 mod 2^32: what tasks 1..k have added to every element.
std::uint32_t added_by_tasks(std::uint64_t tasks);
/// The values a run starts from, different for every salt.
std::vector<std::uint32_t> initial_values(std::uint32_t n, std::uint32_t salt);
/// The receipt task `task` must return when the run started from `initial`.
Receipt expected_receipt(const std::vector<std::uint32_t>& initial, std::uint64_t task);
/// Empty when `got` is task `task`'s receipt, otherwise what differs.
std::string check_receipt(const std::vector<std::uint32_t>& initial, std::uint64_t task,
                          const Receipt& got);
/// Empty when `values` are what `tasks` tasks leave from `initial`, otherwise the first wrong one.
std::string check_values(const std::vector<std::uint32_t>& initial, std::uint64_t tasks,
                         const std::vector<std::uint32_t>& values);

/// What scenario 9 runs.
struct RoundTripConfig {
    std::uint32_t n = 4096;   ///< values each task updates
    int tasks = 10000;        ///< timed tasks per way
    int warmup_tasks = 1000;  ///< untimed (but checked) tasks before them
    Limits limits;            ///< the persistent kernel's idle limit, the host's waits
    std::uint32_t salt = 1;   ///< mixed into the initial values
};

/// One way, measured.
struct RoundTrip {
    Way way = Way::kLaunch;
    cudatutorial::Stats stats;  ///< round trip of one task, ms (timed tasks only)
    double p99_us = 0;          ///< 99th percentile of the round trip
    int tasks_checked = 0;      ///< receipts checked, warm-up included
    bool passed = false;        ///< every receipt and the final buffer exact, a clean stop
    std::string detail;         ///< the first problem, or empty
    /// How the persistent kernel ended (kStopped: cleanly); kLaunched for the other ways.
    KernelState end_state = KernelState::kLaunched;
    /// The row of the chapter's table (round_trip_row's columns), as time_stage made it.
    cudatutorial::ResultRow row;
};

/// Runs config.warmup_tasks + config.tasks tasks `way`, one at a time, through time_stage's
/// round_trip hook (cudatutorial::measure_round_trip times each call on the host clock): every
/// receipt checked as it comes, the buffer once every task has run (for the persistent kernel,
/// after a clean stop). A task that fails or times out ends the measurement with passed false and
/// the reason; a CUDA error is thrown (cudatutorial::CudaError).
RoundTrip time_round_trips(Way way, const RoundTripConfig& config);

/// A measurement as a row of the chapter's table, the row time_round_trips() makes: the way's id
/// (9a, 9b, 9c in all_ways() order) and key, group `group` (the task), per-task median and
/// min-max, and the columns "µs/task", "p99 µs" and "tasks"; not timed when it failed.
cudatutorial::ResultRow round_trip_row(const RoundTrip& measurement, const std::string& group);

/// The group of scenario 9's rows: "<n> ints".
std::string round_trip_group(std::uint32_t n);

/// Scenario 9 as the program runs it: a heading, the three ways measured and printed; returns
/// the rows (ids 9a, 9b, 9c, all in round_trip_group(config.n); 9a is the baseline).
std::vector<cudatutorial::ResultRow> run_persistent_scenario(std::ostream& out,
                                                             const ScenarioConfig& config);

}  // namespace streams::persistent
