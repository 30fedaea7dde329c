/// @file run_info.hpp
/// @brief The run information of a table made without a GPU, for tests of tables and their
/// writers: fixed device fields (a name with quotes, so that CSV and JSON escaping is exercised)
/// and a fixed timestamp, so that every output is the same from run to run.
#pragma once

#include <string>

#include "cudatutorial/report.hpp"

namespace cudatutorial::testing {

/// A RunInfo for `program`'s table titled `title`, on "Test GPU \"X\"" (compute capability 9.0,
/// 132 SMs, CUDA 13.0), timestamped 2026-11-22 10:00 UTC; no peak bandwidth and no parameters.
inline RunInfo fake_run_info(const std::string& program, const std::string& title) {
    RunInfo info;
    info.program = program;
    info.title = title;
    info.gpu_name = "Test GPU \"X\"";
    info.compute_capability = "9.0";
    info.sm_count = 132;
    info.cuda_runtime = "13.0";
    info.cuda_driver = "13.0";
    info.timestamp = "2026-11-22T10:00:00+0000";
    return info;
}

}  // namespace cudatutorial::testing
