/// @file wide_section.hpp
/// @brief `histogram --section wide`: the wide kernels over one or more bin counts, as one table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/cli.hpp"

namespace histogram {

/// What the wide section takes from the command line.
struct WideSectionOptions {
    cudatutorial::CommonOptions common;
    std::vector<int> bins{65536};  ///< --wide-bins: each 1..65536, one group of rows per count
    std::string dist = "uniform";  ///< --dist, read as a 16-bit distribution
    std::uint64_t n = std::uint64_t{1} << 27;  ///< 16-bit values (2^27: 256 MiB, as 2^28 bytes)
    std::uint64_t seed = 0;
    std::vector<std::string> kernels;  ///< --stage: wide kernel ids or names; empty = all
    int block = 256;
    int grid = 0;
    int slow_reps = 3;
};

/// Runs the section: every selected kernel at every bin count, checked bin by bin against the
/// CPU reference; kernels that cannot run (shared memory, no clusters) are skipped with a note.
/// Returns the exit code. Throws cudatutorial::UsageError for bad options before any GPU work.
int run_wide_section(const WideSectionOptions& options);

}  // namespace histogram
