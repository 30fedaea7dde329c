/// @file stage.hpp
/// @brief The stage descriptor every chapter's registry uses, and the stage-list option pieces
/// (host only: no CUDA headers).
///
/// A stage is one idea in one file. Its descriptor says what the table and `--stage list` show
/// (id, name, the idea in one line) and its role, which decides its row's flags: a step of the
/// progression (x prev, x first), the baseline it is compared with (CUB, NCCL), or a labelled
/// bug demonstration whose FAIL is the lesson and does not fail the run. TableRun::run()
/// (table_run.hpp) runs one; a chapter's registry adds what its launches need.
#pragma once

#include <algorithm>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cudatutorial/errors.hpp"
#include "cudatutorial/report.hpp"

namespace cudatutorial {

/// What a stage is in its table.
enum class StageRole {
    kProgression,      ///< a step of the chapter's progression
    kBaseline,         ///< the library the steps are measured against (CUB, NCCL)
    kExpectedFailure,  ///< a labelled bug demonstration: FAIL expected, never counted as failure
};

/// "progression", "baseline", "expected failure".
const char* role_name(StageRole role);

/// What every registry entry has.
struct StageDescriptor {
    std::string id;    ///< short key shown in the table and accepted by --stage: "1", "5v", "cub"
    std::string name;  ///< the idea as a name: "sequential_addressing"
    std::string idea;  ///< one line: what changed from the previous stage and why it helps
    StageRole role = StageRole::kProgression;  ///< see StageRole
};

/// Sets `row`'s id, name, idea and flags from `stage`'s role. For an expected failure the
/// verdict cannot fail the run, and the detail says why a pass proves nothing and a FAIL is the
/// lesson.
void apply_stage(const StageDescriptor& stage, ResultRow& row);

/// Prints the registry for `--stage list`: id, name, role and idea, one stage per line.
void print_stage_list(std::ostream& out, const std::vector<const StageDescriptor*>& stages);

/// One registry of a chapter's `--stage list`. A chapter with several (chapter 0's vector add
/// and stencil, chapter 5's byte and wide histograms) gives each a title that says where its
/// entries run; a chapter with one leaves the title empty.
struct StageGroup {
    std::string title;                           ///< "Stencil (--section stencil)", or ""
    std::vector<const StageDescriptor*> stages;  ///< in registry order
};

/// `--stage list`: each group's title (when it has one), then its print_stage_list table.
void print_stage_list(std::ostream& out, const std::vector<StageGroup>& groups);

/// `--stage list --json`: the same registry as one JSON document, for scripts:
/// {"program": "reduction", "groups": [{"title": "", "stages": [{"id": "1", "name": "...",
/// "role": "progression", "idea": "..."}, ...]}, ...]}.
void print_stage_list_json(std::ostream& out, const std::string& program,
                           const std::vector<StageGroup>& groups);

/// Splits "1,3,cub" at commas (empty items dropped).
std::vector<std::string> split_list(const std::string& text);

/// The stage of `registry` whose id or name is `id_or_name`, or nullptr.
template <typename Stage>
const Stage* find_stage_in(const std::vector<Stage>& registry, const std::string& id_or_name) {
    const auto found = std::find_if(registry.begin(), registry.end(), [&](const Stage& stage) {
        return stage.id == id_or_name || stage.name == id_or_name;
    });
    return found == registry.end() ? nullptr : &*found;
}

/// The stages named in `wanted` (ids or names, in any order; "all" or nothing: every stage that
/// `in_all` accepts), each once, in registry order. Throws UsageError naming `option` and the
/// known ids for a name that is no stage.
template <typename Stage>
std::vector<const Stage*> select_stages(const std::vector<Stage>& registry,
                                        const std::vector<std::string>& wanted,
                                        const std::string& option,
                                        const std::function<bool(const Stage&)>& in_all = {}) {
    const auto names = [](const Stage& stage, const std::string& text) {
        return text == stage.id || text == stage.name;
    };
    const bool all = wanted.empty() || (wanted.size() == 1 && wanted[0] == "all");
    for (const std::string& text : wanted) {
        if (!all && find_stage_in(registry, text) == nullptr) {
            std::string ids;
            for (const Stage& stage : registry) {
                ids += (ids.empty() ? "" : ", ") + stage.id;
            }
            throw UsageError(option, "'" + text + "' is not a stage (ids: " + ids +
                             ", a stage's name, all, or list)");
        }
    }
    std::vector<const Stage*> selected;
    for (const Stage& stage : registry) {
        const bool chosen = all ? (!in_all || in_all(stage))
                                : std::any_of(wanted.begin(), wanted.end(),
                                              [&](const auto& t) { return names(stage, t); });
        if (chosen) {
            selected.push_back(&stage);
        }
    }
    return selected;
}

/// For a chapter whose stages live in several registries (one per section): throws UsageError,
/// worded as select_stages words it, unless every item of `wanted` is "all" or the id or name of
/// an entry of one of `registries`.
void require_known_stages(const std::vector<StageGroup>& registries,
                          const std::vector<std::string>& wanted, const std::string& option);

/// Whether `stage` is named (by id or name) in `wanted`, or `wanted` is empty or "all".
bool stage_chosen(const StageDescriptor& stage, const std::vector<std::string>& wanted);

/// The descriptors of a registry, for print_stage_list.
template <typename Stage>
std::vector<const StageDescriptor*> descriptors(const std::vector<Stage>& registry) {
    std::vector<const StageDescriptor*> list;
    for (const Stage& stage : registry) {
        list.push_back(&stage);
    }
    return list;
}

}  // namespace cudatutorial
