// One run of a chapter's table (table_run.hpp): the stage protocol around time_stage(), and the
// one call of finish_table().
#include "cudatutorial/table_run.hpp"

#include <stdexcept>
#include <utility>

namespace cudatutorial {

TableRun::TableRun(RunInfo info, const CommonOptions& options, const std::string& file_suffix)
    : table_(std::move(info)),
      options_(file_suffix.empty() ? options : options.with_file_suffix(file_suffix)) {}

void TableRun::set_baseline(const std::string& row_id, const std::string& label) {
    table_.set_baseline(row_id, label);
}

void TableRun::set_group_column(const std::string& header) {
    table_.set_group_column(header);
}

ResultRow TableRun::time_stage(const StageDescriptor& stage, const StageHooks& hooks) {
    return cudatutorial::time_stage(stage, hooks, options_.benchmark_config());
}

const ResultRow& TableRun::run(const StageDescriptor& stage, const StageHooks& hooks) {
    add(time_stage(stage, hooks));
    return table_.rows().back();
}

void TableRun::add(ResultRow row) {
    table_.add(std::move(row));
}

namespace {
// The row of a stage that did not run: untimed, outside the x prev chain, `reason` as its detail.
ResultRow unrun_row(const StageDescriptor& stage, const std::string& reason,
                    const std::function<void(ResultRow&)>& extras, bool expected) {
    ResultRow row;
    row.id = stage.id;
    row.name = stage.name;
    row.idea = stage.idea;
    row.timed = false;
    row.passed = false;
    row.expected_failure = expected;
    row.in_progression = false;
    row.detail = reason;
    if (extras) {
        extras(row);
    }
    return row;
}
}  // namespace

void TableRun::skip(const StageDescriptor& stage, const std::string& reason,
                    const std::function<void(ResultRow&)>& extras) {
    add(skipped_row(stage, reason, extras));
}

ResultRow skipped_row(const StageDescriptor& stage, const std::string& reason,
                      const std::function<void(ResultRow&)>& extras) {
    // Nothing ran, so nothing is wrong: the row cannot fail the run.
    return unrun_row(stage, reason, extras, /*expected=*/true);
}

void TableRun::could_not_run(const StageDescriptor& stage, const std::string& reason,
                             const std::function<void(ResultRow&)>& extras) {
    add(unrun_row(stage, reason, extras, /*expected=*/false));
}

void TableRun::add_note(const std::string& note) {
    table_.add_note(note);
}

void TableRun::attach(const std::string& key, std::string json_value) {
    table_.attach(key, std::move(json_value));
}

int TableRun::finish(bool other_checks_passed) {
    if (finished_) {
        throw std::logic_error("TableRun::finish called twice for \"" + table_.info().title +
                               "\": a table is printed and written once");
    }
    finished_ = true;
    return finish_table(table_, options_, other_checks_passed);
}

}  // namespace cudatutorial
