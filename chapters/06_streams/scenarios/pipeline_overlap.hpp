/// @file pipeline_overlap.hpp
/// @brief Scenario 8: the classic copy/compute pipeline. A vector is cut into K chunks; each is
/// copied to the device, processed by a kernel, copied back. Issued (a) all in one stream,
/// (b) a stream per chunk, depth first, (c) a stream per chunk, breadth first.
///
/// Why it should be faster: a GPU has copy engines that work while the SMs compute (the device
/// says how many: cudaDevAttrAsyncEngineCount). In one stream every step waits for the previous
/// one: copy-in + kernel + copy-out. With a stream per chunk, chunk 1's copy-in can run while
/// chunk 0's kernel does, and chunk 0's copy-out while chunk 1's kernel does; with enough chunks
/// the total tends to the slowest of the three steps alone. The issue order: breadth first was
/// the advice for GPUs with one copy engine, whose single copy queue made chunk 1's copy in wait
/// behind chunk 0's copy out (on two-copy-engine Fermi, depth first measured faster). Streams do
/// not each get a hardware queue: they share the CUDA_DEVICE_MAX_CONNECTIONS work queues (8 by
/// default, at most 32), so at K = 16 at least two chunk streams may share one, and in the older
/// model an operation waiting at a queue's head holds up the other stream's work behind it (a
/// false dependency). Which stream uses which queue is the driver's undocumented choice, and the
/// H100 runs showed no such dependency, even with one queue.
/// Small chunks cost a fixed overhead per copy and launch, so the gain stops growing with K.
/// Look at: the timeline (H, K, D per stream), the total against the ideal and the sum, and how
/// both change with K.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/report.hpp"
#include "pipeline_plan.hpp"
#include "streams.hpp"

namespace streams {
/// The scenario number of the copy/compute pipeline (--scenario 8).
inline constexpr int kPipelineScenario = 8;
}  // namespace streams

namespace streams::pipeline {

/// What scenario 8 runs.
struct PipelineConfig {
    std::size_t n = std::size_t{1} << 22;  ///< 32-bit elements in the vector (16 MiB each way)
    std::vector<int> chunk_counts = {1, 2, 4, 8, 16};  ///< the K values of the sweep
    int shown_chunks = 8;                              ///< the K whose timelines are printed
    std::uint32_t rounds = 0;  ///< steps of the kernel per element; 0: calibrate (see below)
    int warmup = 2;
    int repetitions = 10;
};

/// The multiplier of the kernel's x -> a x + b (odd, so that every step is a bijection).
inline constexpr std::uint32_t kMultiplier = 0x2c1b3c6du;

/// One copy or kernel on the run's time axis (ns from its first operation).
struct TimelineOp {
    int chunk = 0;
    Stage stage = Stage::kCopyIn;
    int stream = 0;
    Interval interval;            ///< kernels: %globaltimer; copies: see copy_busy_intervals()
    std::uint64_t waited_ns = 0;  ///< copies: from "its stream reached it" to its busy start
};

/// A timeline: the ops of one instrumented run, and how its event times were placed.
struct Timeline {
    std::vector<TimelineOp> ops;
    ClockOffset offset;         ///< event clock -> %globaltimer
    std::uint64_t span_ns = 0;  ///< first op start to last op end
};

/// The device buffers, streams and events of scenario 8, for vectors of n elements in up to
/// `max_chunks` chunks. One object serves every schedule and K, so nothing is allocated between
/// timed runs.
class Runner {
  public:
    Runner(std::size_t n, int max_chunks, std::uint32_t rounds);
    ~Runner();
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    /// The steps per element the kernel runs.
    std::uint32_t rounds() const;
    /// Changes them (the calibration does).
    void set_rounds(std::uint32_t rounds);

    /// Issues one whole pass on `stream`: forks to the chunk streams, issues `schedule` over
    /// `chunks` chunks with the kernel adding `addend` each step, joins back into `stream`.
    /// With `instrument`, also records the events and %globaltimer spans of timeline().
    void issue(Schedule schedule, int chunks, cudaStream_t stream, std::uint32_t addend,
               bool instrument);

    /// Only one stage over the whole vector, on `stream` (for the stage times).
    void issue_stage(Stage stage, cudaStream_t stream, std::uint32_t addend);
    /// The whole copy in on `stream` and, at the same time, the whole copy out on another
    /// stream (forked from and joined back into `stream`): the link's both-ways rate.
    void issue_both_copies(cudaStream_t stream);

    /// Every output element against the CPU's closed form for `addend` (device idle).
    cudatutorial::Verification verify(std::uint32_t addend) const;
    /// The input element checks only (after issue_stage(kCopyIn)): the device's copy of the input.
    cudatutorial::Verification verify_copy_in() const;

    /// The timeline of the last instrumented pass (device idle).
    Timeline timeline(Schedule schedule, int chunks) const;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

/// One schedule at one K.
struct PipelineRun {
    Schedule schedule = Schedule::kOneStream;
    int chunks = 1;
    cudatutorial::Stats total_ms;  ///< fork to join, CUDA events (common harness)
    double ideal_ms = 0.0;         ///< ideal_pipeline_ms (pipeline schedules) or the stage sum
    bool passed = false;
    std::string detail;
    Timeline timeline;  ///< filled for the shown K only
    bool has_timeline = false;
};

/// What scenario 8 found.
struct PipelineResult {
    std::size_t n = 0;
    std::uint32_t rounds = 0;
    bool calibrated = false;     ///< rounds chosen by the program
    int copy_engines = 0;        ///< cudaDevAttrAsyncEngineCount
    StageTimes stages;           ///< each stage over the whole vector, alone (medians)
    bool stages_passed = false;  ///< the stage runs' outputs were right
    std::string stages_detail;
    std::vector<PipelineRun> runs;  ///< by K, then schedule
    bool passed() const;
};

/// Runs scenario 8 on device `device` (current): stage times, then every schedule and K through
/// the common harness, verified before and after; one more instrumented pass per schedule at
/// `shown_chunks` for the timelines (verified too). With rounds 0, the kernel's rounds are chosen
/// so that the kernel over the whole vector takes about as long as the longer of the two copies.
PipelineResult run_pipeline(const PipelineConfig& config, int device);

/// Device memory scenario 8 allocates for `n` elements (input, output, per-chunk spans).
std::size_t pipeline_device_bytes(std::size_t n, int max_chunks);

/// Prints the stage times, the K sweep, and the shown timelines (one row per stream).
void print_pipeline(std::ostream& out, const PipelineResult& result, int width);

/// The summary table's rows: each schedule at the shown K, failed if that schedule failed at any
/// K (or the stage runs did).
std::vector<cudatutorial::ResultRow> pipeline_rows(const PipelineResult& result, int shown_chunks);

/// One row per stream, H/K/D marking its copies in, kernels and copies out ('.' where a copy
/// waited for its engine), on `width` columns of [0, axis_ns).
std::string render_pipeline_timeline(const Timeline& timeline, std::uint64_t axis_ns, int width,
                                     const std::string& indent = "  ");

/// The K whose timelines are printed: 8 when the sweep has it, else the sweep's largest.
int shown_chunk_count(const std::vector<int>& chunk_counts);

/// Scenario 8 as the program runs it, with the sizes in `config`: a heading, the run, the
/// printout; returns the summary table's rows.
std::vector<cudatutorial::ResultRow> run_pipeline_scenario(std::ostream& out,
                                                           const ScenarioConfig& config, int warmup,
                                                           int repetitions, int width);

}  // namespace streams::pipeline
