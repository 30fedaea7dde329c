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
#include <type_traits>
#include <utility>
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
    /// An empty descriptor, its fields set one by one.
    StageDescriptor() = default;
    /// The four fields a table row shows: `{"cub", "cub_device_reduce_sum", "the baseline",
    /// StageRole::kBaseline}`; the others keep their defaults.
    StageDescriptor(std::string stage_id, std::string stage_name, std::string stage_idea,
                    StageRole stage_role = StageRole::kProgression)
        : id(std::move(stage_id)),
          name(std::move(stage_name)),
          idea(std::move(stage_idea)),
          role(stage_role) {}

    std::string id;    ///< short key shown in the table and accepted by --stage: "1", "5v", "cub"
    std::string name;  ///< the idea as a name: "sequential_addressing"
    std::string idea;  ///< one line: what changed from the previous stage and why it helps
    StageRole role = StageRole::kProgression;  ///< see StageRole
    bool by_default = true;  ///< part of `--stage all` (false: runs only when named)
    /// Runs the candidate a tuning pass chose for the GPU: the executable runs the chapter's
    /// tuning pass before its table when a selected stage says so.
    bool uses_tuner = false;
    /// The file that holds its kernel and its row, relative to the chapter ("stages/stage3_...").
    /// A generated stage list (cmake/StageList.cmake) fills it in; hand-written lists may leave
    /// it empty.
    std::string source;
};

/// One row of a chapter's stage list, every field named: what every stage says
/// (StageDescriptor), what its launches need (`Needs`, a chapter's struct whose fields default to
/// what most of its stages share) and the host function that launches its kernel (`Launch`, null
/// for a library baseline the chapter calls itself). Where a stage has a file of its own, the
/// file ends with its row, field by field:
///
///     StageInfo row("3", "sequential_addressing", "tid < s adds tid + s: no bank conflicts");
///     row.launch = launch_sequential_addressing;
///     row.min_block = 64;  // a field of Needs
///     return row;
///
/// and the build collects the rows of a chapter's stage files into its list, in file-name order
/// (cmake/StageList.cmake): a new stage is one new file. A list written in one place names each
/// field the same way, in a chain:
///
///     AddStage("2", "vector_add_grid_stride", "a fixed grid and a loop")
///         .with_launcher(launch_vector_add_grid_stride)
///         .with(&AddNeeds::grid_stride, true),
template <typename Needs, typename Launch>
struct StageRow : StageDescriptor, Needs {
    /// An empty row, its fields set one by one.
    StageRow() = default;
    /// A row with its id, name and one-line idea; every other field at its default.
    StageRow(std::string stage_id, std::string stage_name, std::string stage_idea)
        : StageDescriptor(std::move(stage_id), std::move(stage_name), std::move(stage_idea)) {}

    Launch launch = nullptr;  ///< the launcher in the stage's file; null for a library baseline

    /// The launcher (`launch`).
    StageRow& with_launcher(Launch launcher) {
        launch = launcher;
        return *this;
    }
    /// Its role in the table (a progression step unless said otherwise).
    StageRow& with_role(StageRole stage_role) {
        role = stage_role;
        return *this;
    }
    /// Left out of `--stage all` (`by_default` false): runs only when named.
    StageRow& only_when_named() {
        by_default = false;
        return *this;
    }
    /// Runs the candidate a tuning pass chose for the GPU (`uses_tuner`).
    StageRow& tuned() {
        uses_tuner = true;
        return *this;
    }
    /// The file that holds its kernel, relative to the chapter (`source`), for a list written in
    /// one place; a generated list sets it from the file the row stands in.
    StageRow& with_source(std::string file) {
        source = std::move(file);
        return *this;
    }
    /// A field of `Needs`, named by its member: `.with(&AddNeeds::grid_stride, true)`. The value
    /// converts to the field's type (the type comes from the member alone, so a string literal
    /// or a function template's specialization is taken as the field needs it).
    template <typename Field>
    StageRow& with(Field Needs::*field, std::common_type_t<Field> value) {
        this->*field = std::move(value);
        return *this;
    }
};

/// For a chapter whose rows need nothing beyond a launcher.
struct NoNeeds {};

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
