/// @file roundtrip.hpp
/// @brief The round-trip section: the all-reduce as a caller that waits for each result sees it,
/// one call at a time, timed on the host (measure_round_trip): stage 5 launched and waited for,
/// stage 10 resident, NCCL launched and waited for. The same rows in one process and in one
/// process per GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/table_run.hpp"
#include "peer_team.hpp"

namespace multi_gpu {

/// The stages of the round-trip table, in row order: "5", "10", "nccl" (where built).
const std::vector<std::string>& round_trip_stage_ids();

/// The message sizes the section runs when --sizes is not given: 4 B, 1, 8, 32, 64 and 256 KiB (the
/// small end, where the launch is most of a call; stage 10 stops at 256 KiB).
std::vector<std::uint64_t> round_trip_default_bytes();

/// The timing of the round-trip rows from the chapter's: ten times --reps calls timed (a call
/// is a few microseconds), at least 20 untimed first, one call per sample.
cudatutorial::BenchmarkConfig round_trip_config(cudatutorial::BenchmarkConfig base);

/// Groups `table` by size against NCCL, says how it is timed, and adds the round-trip floor (an
/// empty kernel launched and waited for on config.stream, the current device).
void prepare_round_trip_table(cudatutorial::TableRun& table,
                              const cudatutorial::BenchmarkConfig& config);

/// The rows of every size on `team` (collective over the ranks): each stage of
/// round_trip_stage_ids() made, timed with `config` (measure_round_trip), verified bit for bit on
/// every local GPU, finished and freed with the ranks in step. Skips go to `notes`.
void add_round_trip_rows(cudatutorial::TableRun& table, PeerTeam& team,
                         const std::vector<std::uint64_t>& sizes, std::uint64_t seed,
                         const cudatutorial::BenchmarkConfig& config, double link_gbs,
                         std::vector<std::string>& notes);

}  // namespace multi_gpu
