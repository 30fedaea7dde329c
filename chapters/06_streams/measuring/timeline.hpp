/// @file timeline.hpp
/// @brief Overlap arithmetic and text timelines over measured kernel records. Pure host code,
/// tested on the CPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "streams.hpp"

namespace streams {

/// True when the two kernels ran at the same moment: each started before the other ended.
/// Kernels that only touch (one ends at the very nanosecond the other starts) do not overlap.
bool overlaps(const KernelRecord& a, const KernelRecord& b);

/// Number of kernels running at `time_ns` (start <= time < end).
int running_at(const std::vector<KernelRecord>& kernels, std::uint64_t time_ns);

/// The largest number of kernels running at one instant (a sweep over all starts and ends;
/// at equal times ends come first, consistent with overlaps()). Only workers if `workers_only`.
int max_concurrent(const std::vector<KernelRecord>& kernels, bool workers_only);

/// What one run of a scenario shows.
struct RunSummary {
    int kernels = 0;            ///< all kernels, dummies included
    int workers = 0;            ///< worker kernels
    int worker_pairs = 0;       ///< workers * (workers - 1) / 2
    int overlapping_pairs = 0;  ///< worker pairs that overlapped
    int allowed_pairs = 0;      ///< worker pairs the stream rules let overlap
    int forbidden_overlaps =
        0;  ///< pairs (dummies included) that overlapped although the rules order them
    std::string first_forbidden;       ///< "k1 and k3" for the first of those, or empty
    int max_concurrent = 0;            ///< most workers running at one instant
    int sms_used = 0;                  ///< distinct SMs the workers ran on
    std::uint64_t first_start_ns = 0;  ///< earliest start of any kernel
    std::uint64_t span_ns = 0;         ///< latest end - earliest start, all kernels: the wall time
    std::uint64_t sum_worker_ns = 0;   ///< sum of the workers' own durations
    /// sum of worker durations / wall time: about 1 when serialized, up to the number of
    /// workers when they all ran together.
    double concurrency() const;
};

/// Counts pairs, overlaps, rule violations (stream_rules.hpp) and times of one run.
RunSummary summarize_run(const std::vector<KernelRecord>& kernels);

/// "200.1": nanoseconds as microseconds with one decimal.
std::string format_us(std::uint64_t ns);

/// Number of terminal columns a UTF-8 string takes (one per code point; enough for "µ").
std::size_t display_width(const std::string& text);

/// The columns of a text timeline: `width` columns spread evenly over [0, span_ns) measured from
/// each run's own first start. Both builds of a scenario share one axis, so their rows compare.
struct TimeAxis {
    std::uint64_t span_ns = 1;
    int width = 64;
};

/// One kernel's bar: '#' (worker) or '+' (dummy) in every column whose time interval the kernel
/// overlaps, ' ' elsewhere; a kernel shorter than a column still marks the column it ran in,
/// and a kernel running past the axis ends in '>'.
std::string timeline_bar(const KernelRecord& kernel, std::uint64_t origin_ns, const TimeAxis& axis);

/// The axis labels line: "0 µs" under the first column, the middle and the end labelled too.
std::string axis_labels(const TimeAxis& axis);

/// A whole timeline: a header, then one row per kernel (name, stream, stream id, SM, start and
/// end in µs from the first start, bar), each line starting with `indent`.
std::string render_timeline(const std::vector<KernelRecord>& kernels, const TimeAxis& axis,
                            const std::string& indent = "  ");

/// For runs with too many kernels for one row each: `rows` lines, each giving the number of
/// kernels running at the middle of its slice of [0, span_ns) and a bar of that length scaled so
/// that `full_scale` kernels fill `bar_width` columns.
std::string render_concurrency_profile(const std::vector<KernelRecord>& kernels,
                                       std::uint64_t span_ns, int rows, int full_scale,
                                       int bar_width, const std::string& indent = "  ");

}  // namespace streams
