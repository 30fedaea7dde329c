/// @file stats.hpp
/// @brief Summary statistics of timings and the bandwidth arithmetic (host only: no CUDA
/// headers, so that formatting code and CPU tests need no toolkit).
#pragma once

#include <vector>

namespace cudatutorial {

/// Summary statistics of a set of timings, in milliseconds.
struct Stats {
    double median_ms = 0.0;  ///< the figure the tables report
    double min_ms = 0.0;     ///< fastest run
    double max_ms = 0.0;     ///< slowest run
    double mean_ms = 0.0;    ///< arithmetic mean
    int samples = 0;         ///< number of timed runs
    /// 99th percentile (nearest rank): the slow tail a caller waiting on each run meets.
    double p99_ms = 0.0;
};

/// Summarizes `samples_ms` (any order). Throws std::invalid_argument when it is empty or holds a
/// negative or non-finite value.
Stats summarize(std::vector<double> samples_ms);

/// The value below which `fraction` (0 to 1) of `samples` lie, by nearest rank; 0 for none.
double percentile(std::vector<double> samples, double fraction);

/// Bandwidth in GB/s (10^9 bytes per second) for `bytes` moved in `ms` milliseconds; 0 if ms <= 0.
double bandwidth_gbs(double bytes, double ms);

/// 100 * value / reference; 0 when reference <= 0.
double percent_of(double value, double reference);

}  // namespace cudatutorial
