/// @file benchmark.hpp
/// @brief The timing harness: validate, warm up, time with CUDA events, summarize, validate again.
///
/// measure() is the one way a kernel is timed in this repository:
///  1. run once and validate (a wrong kernel is reported FAIL, whatever its speed);
///  2. warm-up runs (module loading, clocks ramping up, caches and TLBs filled);
///  3. `repetitions` timed runs, each between two CUDA events on the same stream, optionally
///     after overwriting L2 so that no run reads the previous run's data from cache. The stream
///     is first held by a one-thread kernel that waits until the host has queued every run, then
///     released, so every start event, the first one included, fires with its run's work already
///     queued: the host's launch latency is in no sample;
///  4. validate again: a kernel that breaks under repetition (a race, state not reset between
///     runs, an accumulating output) is caught too.
/// A sample is one call by default: the time of one call on its own, the events' fixed cost
/// included (a few microseconds, which dominate a tiny kernel). With `calls_per_sample` k > 1 a
/// sample is k calls back to back between one pair of events, divided by k: the time per call
/// when calls follow each other, as a training loop issues them, the events' cost shared by k.
/// launch_floor() times an empty kernel the same way: the least any sample can be.
/// The launch callback must compute the whole result from scratch each time (clear its own
/// outputs if it accumulates), on the stream it is given.
///
/// The timed runs sit inside an NVTX range named by BenchmarkConfig::label, so that a timeline
/// from Nsight Systems (`nsys profile --trace=cuda,nvtx`) names each stage's timed batch. Without
/// a tool attached, the range costs a branch (NVTX's default).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudatutorial/report.hpp"
#include "cudatutorial/stage.hpp"
#include "cudatutorial/stats.hpp"

namespace cudatutorial {

/// The outcome of checking a result against its reference.
struct Verification {
    bool passed = false;  ///< the result matched the reference
    std::string detail;   ///< why it failed (first mismatch, counts lost...), or empty
    /// A passing verification.
    static Verification pass() { return {true, {}}; }
    /// A failing verification, with the reason shown under the table.
    static Verification fail(std::string why) { return {false, std::move(why)}; }
};

/// How measure() times.
struct BenchmarkConfig {
    int warmup = 3;                 ///< untimed runs after the first validated run
    int repetitions = 20;           ///< timed runs
    bool flush_l2 = false;          ///< overwrite L2 before every timed run
    cudaStream_t stream = nullptr;  ///< where the launch and the events go
    /// Hold the stream while the runs are queued (see the file comment). Turn it off for a launch
    /// function that waits on the host (a host-side combine): the hold would delay it by its
    /// timeout and print a warning.
    bool hold_stream = true;
    /// Calls per sample (see the file comment): 1, each call timed on its own; k > 1, k calls
    /// back to back per sample, the sample divided by k. Not with flush_l2 (the flush would be
    /// timed too).
    int calls_per_sample = 1;
    /// The NVTX range around the timed runs, e.g. "stage 3 sequential_addressing" (time_stage
    /// sets it); empty: no range.
    std::string label;
};

/// Bytes one run of a stage moves through global memory, counted by element type as nvbench's
/// `add_global_memory_reads<T>(n)` counts them: `MemoryTraffic().reads<int>(n).writes<int>(1)`.
/// The count is the GB/s column's numerator, so it is the traffic the algorithm needs (each input
/// read once, each output written once), not what a particular kernel happens to move: a stage
/// that reads its input twice shows a lower GB/s, which is the point of the column.
class MemoryTraffic {
  public:
    /// Adds `count` elements of T read.
    template <class T>
    MemoryTraffic& reads(std::uint64_t count) {
        bytes_ += static_cast<double>(sizeof(T)) * static_cast<double>(count);
        return *this;
    }
    /// Adds `count` elements of T written.
    template <class T>
    MemoryTraffic& writes(std::uint64_t count) {
        bytes_ += static_cast<double>(sizeof(T)) * static_cast<double>(count);
        return *this;
    }
    /// The bytes counted so far.
    double bytes() const { return bytes_; }
    /// The bytes, where a count of bytes is expected (StageHooks::bytes).
    operator double() const { return bytes_; }  // NOLINT(google-explicit-constructor): by design

  private:
    double bytes_ = 0;
};

/// What measure() found.
struct Measurement {
    Stats stats;          ///< timing of the repetitions
    Verification before;  ///< validation of the first run
    Verification after;   ///< validation after the timed runs
    /// Both validations passed.
    bool passed() const { return before.passed && after.passed; }
    /// The first failure's detail, or empty.
    std::string failure_detail() const;
};

/// Launches the work to time on the given stream (must recompute the whole result each time).
using LaunchFunction = std::function<void(cudaStream_t)>;
/// Checks the result against the CPU reference (called with the device idle).
using VerifyFunction = std::function<Verification()>;

/// Times `launch` as described in the file comment. `verify` is called with the device idle.
Measurement measure(const LaunchFunction& launch, const VerifyFunction& verify,
                    const BenchmarkConfig& config);

/// Only the timing part of measure(): warm-up, then timed repetitions, no validation.
Stats time_repeated(const LaunchFunction& launch, const BenchmarkConfig& config);

/// An empty kernel (one thread) timed exactly as `config` times a stage: the floor under every
/// sample, what launching and the events cost on this GPU with this stream and calls per sample.
/// A stage near it is bound by launch latency, not by its own work.
Stats launch_floor(const BenchmarkConfig& config);

/// One call that hands work to the GPU and returns once its result is usable by the host: a
/// launch and a stream synchronize, or a doorbell rung and a completion flag seen (a kernel that
/// stays resident has no launch of its own for CUDA events to bracket).
using RoundTripFunction = std::function<void()>;

/// Round trips timed on the host clock (std::chrono::steady_clock), one call at a time: what a
/// caller waits for, the launch and the synchronization included. Calls `call` once and
/// validates, makes `warmup` untimed calls, times `repetitions` calls each on its own, validates
/// again. Nothing here waits for the whole device, so a resident kernel may run throughout; the
/// NVTX range is config.label. config.stream, flush_l2, hold_stream and calls_per_sample are not
/// used.
Measurement measure_round_trip(const RoundTripFunction& call, const VerifyFunction& verify,
                               const BenchmarkConfig& config);

/// An empty kernel launched on config.stream and waited for (cudaStreamSynchronize), timed as
/// measure_round_trip times a call: the least a launched call costs its caller.
Stats round_trip_floor(const BenchmarkConfig& config);

/// Untimed work the host does before each sample (it writes the inputs again), on the stream.
using SetupFunction = std::function<void(cudaStream_t)>;

/// Samples that each need an untimed set-up first (inputs the host has just written, so that
/// every sample pays the copies or page faults a first use pays): one sample at a time, `setup`,
/// a stream synchronize, then `launch` between two events. Calls both once and validates, makes
/// `warmup` untimed samples, times `repetitions`, validates again; with config.flush_l2 the L2
/// is flushed after each set-up. config.hold_stream and calls_per_sample are not used.
Measurement measure_after_setup(const SetupFunction& setup, const LaunchFunction& launch,
                                const VerifyFunction& verify, const BenchmarkConfig& config);

/// A row from a measurement: timed, PASS/FAIL from both validations, detail from the failure.
ResultRow make_row(const std::string& id, const std::string& name, const Measurement& measurement,
                   double bytes);

/// What a chapter gives TableRun::run() (table_run.hpp) or time_stage() for one stage: `verify`
/// and one of `launch` and `round_trip` are required.
struct StageHooks {
    /// Overwrites the stage's outputs before the first run, so that a stage that writes nothing
    /// cannot pass on what an earlier one left. Empty: nothing to overwrite.
    std::function<void()> poison;
    /// Launches the work to time on the given stream (the whole result, every time).
    LaunchFunction launch;
    /// Instead of `launch`: one call that hands the work over and returns once its result is
    /// usable by the host, timed on the host clock one call at a time (measure_round_trip,
    /// benchmark.hpp): for a caller's view of a launch + synchronize, or a resident kernel that
    /// has no launch for CUDA events to bracket. Set one of `launch` and `round_trip`.
    RoundTripFunction round_trip;
    /// With `launch`: untimed work before every sample (measure_after_setup): the host writes the
    /// inputs again, so that each timed run starts where a first use starts. Empty: the runs are
    /// timed back to back (measure).
    SetupFunction setup_each_sample;
    /// Checks the result against the CPU reference (called with the device idle).
    VerifyFunction verify;
    /// Bytes one run moves, for the GB/s column (MemoryTraffic counts them by element type); 0:
    /// no bandwidth (a compute-bound stage).
    double bytes = 0;
    /// Changes the options' timing for this stage only (a slow stage times fewer runs). Empty:
    /// the options' timing as given.
    std::function<void(BenchmarkConfig&)> adjust_timing;
    /// Adds the chapter's own columns (or a remark) to the row, after timing: it may read the
    /// row's times and verdict, and state the launch left behind.
    std::function<void(ResultRow&)> extras;
    /// The row's group (a bin count, a message size); empty: the row keeps none.
    std::string group;
};

/// One stage timed the way every row is, with `config` as the timing (changed by
/// `adjust_timing`): `poison`, then measure() (or measure_round_trip(), measure_after_setup(),
/// as the hooks say) inside the NVTX range config.label or "stage <id> <name>", the row made
/// from the measurement (PASS/FAIL from both validations, `bytes` for GB/s) with the id, name,
/// idea and flags of the stage's role (stage.hpp), then `extras` and `group`. The row is not
/// added to any table. TableRun::run() makes its rows with
/// it; a section that prints a layout of its own (chapter 1's copy probe) calls it directly, so
/// that its numbers come from the same protocol as every table's.
ResultRow time_stage(const StageDescriptor& stage, const StageHooks& hooks,
                     const BenchmarkConfig& config);

/// The row of a stage measured somewhere time_stage() cannot reach (chapter 7's one process per
/// GPU, each timing its own calls with the same protocol and reporting what it measured): the same
/// row time_stage() makes, from `measurement` made there, with the stage's flags and the hooks'
/// bytes, extras and group. Nothing is timed here.
ResultRow reported_row(const StageDescriptor& stage, const StageHooks& hooks,
                       const Measurement& measurement);

/// The last step run() takes before adding a row: `hooks.extras`, then `hooks.group` (when not
/// empty). Public so that its order can be tested without a GPU.
void apply_hooks(const StageHooks& hooks, ResultRow& row);

/// Evicts the L2 cache by reading a buffer twice its size, so that a timed run starts cold.
class L2Flusher {
  public:
    L2Flusher();   ///< sized from the current device's L2
    ~L2Flusher();  ///< frees the buffer
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    /// Enqueues the overwrite on `stream` (outside any timed region).
    void flush(cudaStream_t stream);

  private:
    void* buffer_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace cudatutorial
