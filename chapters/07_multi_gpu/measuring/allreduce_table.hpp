/// @file allreduce_table.hpp
/// @brief The all-reduce table, the same in one process and in one process per GPU: one group of
/// rows per message size, x prev and x NCCL within the size, bus bandwidth (and % of the measured
/// link) as numeric columns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "multi_gpu.hpp"

namespace multi_gpu {

/// Groups `table` by message size ("size") and compares every row with NCCL's row of its size;
/// adds the launch floor (benchmark.hpp's launch_floor, timed with `config` on the current
/// device) to the header: the least a row can take, which the small sizes approach.
void prepare_allreduce_table(cudatutorial::TableRun& table,
                             const cudatutorial::BenchmarkConfig& config);

/// What every all-reduce row of `bytes` over `gpus` GPUs shares: its bytes, its size group, and
/// the busbw GB/s and % of `link_gbs` columns (when the link is known, > 0). The caller adds the
/// poison, the launch (or round trip), the verification and its stream.
cudatutorial::StageHooks allreduce_hooks(std::uint64_t bytes, int gpus, double link_gbs);

/// The row of a stage timed in another process (the network section's children report their
/// times through a file): `stats` and `verdict` as reported, then the columns and group of
/// allreduce_hooks().
cudatutorial::ResultRow reported_allreduce_row(const AllReduceStage& stage, std::uint64_t bytes,
                                               const cudatutorial::Stats& stats,
                                               const cudatutorial::Verification& verdict,
                                               int gpus);

/// Why `stage` does not run at `bytes` over `gpus` GPUs, as a note for the table (once per
/// table), or empty when it runs: past its largest size, or past the peer-memory kernels' GPU
/// count when it runs in its team form (`team_form`; NCCL has no such limit).
std::string allreduce_skip_reason(const AllReduceStage& stage, std::uint64_t bytes, int gpus,
                                  bool team_form);

/// For a stage that runs only in the round-trip section (stage 10, resident), the note that
/// says so in the event-timed tables; empty for every other stage.
std::string round_trip_only_note(const AllReduceStage& stage);

/// Appends `note` unless `notes` already holds it: a stage skipped at every size is said once.
void add_note_once(std::vector<std::string>& notes, const std::string& note);

/// The size group's label: "1 KiB", "1 GiB".
std::string size_group(std::uint64_t bytes);

}  // namespace multi_gpu
