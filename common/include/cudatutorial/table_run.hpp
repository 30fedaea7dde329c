/// @file table_run.hpp
/// @brief One run of a chapter's table: the stages it times, the rows it is given, and the one
/// ending that prints the table and writes its files.
///
/// Every chapter's table takes the same steps: make the table, time each selected stage with
/// time_stage() (benchmark.hpp), add the chapter's columns, add the row, add notes, then
/// finish_table(). Written
/// once here, they run in the same order in every chapter, and a chapter supplies only what
/// differs: the run information, and per stage its StageHooks (what to poison, launch and
/// verify; its extra columns; benchmark.hpp). For each stage:
///  1. time_stage(): poison, time with the options' timing, verify before and after, make the row;
///  2. `extras` (the chapter's columns, read after timing), then the row's `group`;
///  3. the row goes into the table.
/// Rows a section times in its own way (chapter 6's timelines, chapter 1's sweep) go in with
/// add(). finish() is then the one way out: it records the clocks, prints, writes
/// --csv/--json/--markdown and returns the exit code (finish_table, cli.hpp).
///
/// Host code only, like cli.hpp: keep it out of .cu files.
#pragma once

#include <functional>
#include <string>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/stage.hpp"

namespace cudatutorial {

/// One chapter table, from the run information to the exit code (see the file comment).
class TableRun {
  public:
    /// A table for the run described by `info`, timed and written as `options` ask. A program's
    /// second table passes a `file_suffix` ("_timing"): out.json -> out_timing.json
    /// (CommonOptions::with_file_suffix).
    TableRun(RunInfo info, const CommonOptions& options, const std::string& file_suffix = {});

    /// The run information (the header), for a line added while the table fills.
    RunInfo& info() { return table_.info(); }
    /// The run information, read only.
    const RunInfo& info() const { return table_.info(); }
    /// The options this table is timed and written with (the file suffix applied).
    const CommonOptions& options() const { return options_; }

    /// See ResultTable::set_baseline.
    void set_baseline(const std::string& row_id, const std::string& label);
    /// See ResultTable::set_group_column.
    void set_group_column(const std::string& header);

    /// Times `stage` with `hooks` (the steps of the file comment), adds its row and returns it
    /// (the reference holds until the next row is added).
    const ResultRow& run(const StageDescriptor& stage, const StageHooks& hooks);
    /// The row run() would add, not added: for a chapter that derives columns across several
    /// rows (chapter 5's "x CUB" within a bin count) before it adds them.
    ResultRow time_stage(const StageDescriptor& stage, const StageHooks& hooks);
    /// Adds a row made elsewhere: a section that teaches its own timing (chapter 6's timelines).
    void add(ResultRow row);
    /// Adds `stage`'s row as one that cannot run here, with `reason` as its detail: not timed,
    /// shown as FAIL (expected) and outside the x prev chain, so it fails neither the run nor a
    /// comparison (a launch configuration this GPU refuses, a partition the driver will not
    /// make). `extras` adds the chapter's own columns, as StageHooks::extras does.
    void skip(const StageDescriptor& stage, const std::string& reason,
              const std::function<void(ResultRow&)>& extras = {});
    /// Adds `stage`'s row as one that did not run when it should have (a launch this program
    /// predicted would work, refused; work found wrong or hung before it could be timed): not
    /// timed, FAIL, so the run fails; `extras` as in skip().
    void could_not_run(const StageDescriptor& stage, const std::string& reason,
                       const std::function<void(ResultRow&)>& extras = {});
    /// See ResultTable::add_note.
    void add_note(const std::string& note);
    /// See ResultTable::attach.
    void attach(const std::string& key, std::string json_value);

    /// The table so far, for the rare reader (a printout after the table that reads its rows).
    const ResultTable& table() const { return table_; }

    /// Records the clocks, prints the table, writes the files the options ask for, and returns
    /// the exit code (finish_table, cli.hpp): kSuccess when every row passed and
    /// `other_checks_passed`. A table is finished once: a second call throws std::logic_error.
    int finish(bool other_checks_passed = true);
    /// Whether finish() has run.
    bool finished() const { return finished_; }

  private:
    ResultTable table_;
    CommonOptions options_;
    bool finished_ = false;
};

/// The row TableRun::skip() adds, for a section that collects its rows before it adds them
/// (chapter 1's SM partitions, whose columns compare the rows): not timed, FAIL (expected),
/// outside the x prev chain, `reason` as its detail, then `extras`.
ResultRow skipped_row(const StageDescriptor& stage, const std::string& reason,
                      const std::function<void(ResultRow&)>& extras = {});

}  // namespace cudatutorial
