/// @file pipeline_plan.hpp
/// @brief Scenario 8's arithmetic, pure host code tested on the CPU: how a vector is cut into
/// chunks, in which order the three schedules issue their copies and kernels, what time a
/// perfect pipeline would take, where event times land on the %globaltimer axis, and the
/// closed form that checks the kernel's output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streams::pipeline {

/// One chunk of the vector: elements [offset, offset + count).
struct Chunk {
    std::size_t offset = 0;
    std::size_t count = 0;
};

/// Cuts n elements into `chunks` pieces that differ by at most one element (the first n % chunks
/// get the extra one), in order and without gaps. Throws std::invalid_argument when chunks < 1
/// or chunks > n (an empty chunk would be a copy of nothing).
std::vector<Chunk> split_chunks(std::size_t n, int chunks);

/// How the chunks are issued.
enum class Schedule {
    kOneStream,     ///< every copy and kernel in one stream: nothing can overlap
    kDepthFirst,    ///< a stream per chunk; chunk 0's copy-in, kernel, copy-out, then chunk 1's...
    kBreadthFirst,  ///< a stream per chunk; all copies in, then all kernels, then all copies out
};

/// "one_stream", "depth_first", "breadth_first".
const char* schedule_key(Schedule schedule);
/// All three, in the order the program runs them.
const std::vector<Schedule>& all_schedules();

/// The three steps of a chunk.
enum class Stage { kCopyIn, kKernel, kCopyOut };

/// "H2D", "kernel", "D2H".
const char* stage_name(Stage stage);

/// One operation as the host issues it.
struct Operation {
    int chunk = 0;
    Stage stage = Stage::kCopyIn;
    int stream = 0;  ///< index into the program's streams: 0 for kOneStream, else the chunk
};

/// The operations of `schedule` over `chunks` chunks, in issue order. Each chunk's three stages
/// are in stage order within its stream, whatever the schedule.
std::vector<Operation> issue_order(Schedule schedule, int chunks);

/// Times of the three stages over the WHOLE vector, each run alone (milliseconds), and of both
/// copies running at the same time.
struct StageTimes {
    double copy_in_ms = 0.0;
    double kernel_ms = 0.0;
    double copy_out_ms = 0.0;
    double both_copies_ms = 0.0;  ///< copy in and copy out at once, two streams; 0: not measured
    double sum_ms() const { return copy_in_ms + kernel_ms + copy_out_ms; }
};

/// The time the slowest resource needs for its share of the work, however the chunks are cut:
/// with two or more copy engines the copies in and out run on different engines, so the bound is
/// max(copy in, kernel, copy out), and at least the time both copies take together when they
/// share the link (both_copies_ms, when measured); with one engine both directions queue on it:
/// max(in + out, kernel); with none, nothing overlaps: the sum.
double steady_state_bound_ms(const StageTimes& stages, int copy_engines);

/// What a perfect pipeline of `chunks` equal chunks takes: the first chunk passes all three
/// stages alone (sum / chunks), and each of the other chunks adds one slot of the bottleneck
/// (bound / chunks): (sum + (chunks - 1) * bound) / chunks. One chunk gives the sum; many tend
/// to the bound. No launch or per-copy overhead is counted: that is what the measurement adds.
double ideal_pipeline_ms(const StageTimes& stages, int chunks, int copy_engines);

/// A measured interval on the %globaltimer axis (nanoseconds).
struct Interval {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
};

/// The offset that puts CUDA event times (ms since a reference event) on the %globaltimer axis,
/// bracketed by what the kernels recorded: an event recorded in a stream just before a kernel
/// completes no later than the kernel starts, and one recorded just after it completes no earlier
/// than the kernel ends. For each kernel, `before_ms`/`after_ms` are those events' times.
struct ClockOffset {
    bool known = false;       ///< at least one kernel bracketed it
    double lower_ns = 0.0;    ///< the offset is at least this (after-events >= kernel ends)
    double upper_ns = 0.0;    ///< and at most this (before-events <= kernel starts)
    double offset_ns = 0.0;   ///< the middle of [lower, upper], used for the timeline
    bool consistent = false;  ///< lower <= upper (else clock resolution or drift broke the bound)
    /// Half the bracket's width: the most any event time can be off on the timeline.
    double uncertainty_ns() const;
};

/// The bracket above from every kernel's %globaltimer interval and its two events' times.
/// `kernel_ns` is relative to `origin_ns` (which keeps the doubles small).
ClockOffset bracket_clock_offset(const std::vector<Interval>& kernels_ns,
                                 const std::vector<double>& before_ms,
                                 const std::vector<double>& after_ms, std::uint64_t origin_ns);

/// One copy as its two events saw it: `ready_ns` when its stream reached it, `done_ns` when it
/// completed, both on the %globaltimer axis.
struct CopyEvents {
    double ready_ns = 0.0;
    double done_ns = 0.0;
};

/// When each copy of one direction actually ran, assuming the copies of that direction take
/// turns on one copy engine: a copy cannot start before it was ready nor before the previous
/// copy (in completion order) finished. Its events alone would also count the time it waited
/// for the engine. Results in the order of `copies`.
std::vector<Interval> copy_busy_intervals(const std::vector<CopyEvents>& copies);

/// The length of time in which some interval of `a` and some interval of `b` both run: the
/// measure of (union of a) intersected with (union of b). Used for "copies overlapped kernels for
/// ... µs".
std::uint64_t overlap_ns(const std::vector<Interval>& a, const std::vector<Interval>& b);

/// The length of the union of `intervals` (time in which at least one of them runs).
std::uint64_t busy_ns(const std::vector<Interval>& intervals);

/// The kernel's work: `rounds` steps of x -> a * x + b (mod 2^32), one after another, so the time
/// grows with `rounds` while the bytes stay the same.
constexpr std::uint32_t iterate_affine(std::uint32_t x, std::uint32_t a, std::uint32_t b,
                                       std::uint32_t rounds) {
    for (std::uint32_t r = 0; r < rounds; ++r) {
        x = a * x + b;
    }
    return x;
}

/// `rounds` steps of x -> a x + b are one step of x -> multiplier x + b * addend_per_b (mod
/// 2^32): the CPU reference checks every element with two operations, whatever `rounds` is.
struct AffineSteps {
    std::uint32_t multiplier = 1;    ///< a^rounds
    std::uint32_t addend_per_b = 0;  ///< 1 + a + ... + a^(rounds - 1)
    std::uint32_t apply(std::uint32_t x, std::uint32_t b) const {
        return multiplier * x + b * addend_per_b;
    }
};

/// The closed form of `rounds` steps with multiplier `a` (by squaring: O(log rounds)).
AffineSteps compose_affine(std::uint32_t a, std::uint32_t rounds);

}  // namespace streams::pipeline
