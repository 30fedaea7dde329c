/// @file sections.hpp
/// @brief A chapter's sections as data: one table per chapter, one row per section (its name, its
/// one-line idea, the function that runs it). From that table come the --stage/--section option
/// (the names it accepts and its help), `--stage list`, the checks that need no GPU, which
/// sections run and in which order, and each section's output files. Adding a section is one row.
///
/// Host code only (CLI11): keep it out of .cu files.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "cudatutorial/cli.hpp"
#include "cudatutorial/errors.hpp"
#include "cudatutorial/stage.hpp"

namespace cudatutorial {

/// What a section's row says beyond its name, idea and the function that runs it.
struct SectionNeeds {
    /// Whether it writes a table (and so files, with --csv/--json/--markdown).
    bool writes_table = true;
    /// Empty: the section may run beside others. Otherwise it runs only when named, alone, and
    /// this says why ("it runs one process per GPU, twice").
    std::string alone_because;
};

/// One section of a chapter: a row like a stage's (cudatutorial::StageRow). Its id is the name
/// --stage takes (and the output files' suffix); name and idea are what --stage list shows; its
/// `launch` runs the section on the chapter's context and returns its exit code (kSuccess when
/// every result verified); `by_default`: whether a run without --section includes it.
template <typename Context>
using Section = StageRow<SectionNeeds, int (*)(Context& context)>;

/// A row of a section table: `name` is both its --stage name and its listed name. What differs
/// from the default (it writes a table, runs by default, beside others) is said by name:
/// `without_table(section(...))`, `only_when_named(section(...))`,
/// `run_alone(section(...), "why")`.
template <typename Context>
Section<Context> section(const std::string& name, const std::string& idea, int (*run)(Context&)) {
    Section<Context> s(name, name, idea);
    s.launch = run;
    return s;
}

/// The same row, for a section that prints and writes no table (no files of its own).
template <typename Context>
Section<Context> without_table(Section<Context> s) {
    s.writes_table = false;
    return s;
}

/// The same row, run only when named (beside others or not).
template <typename Context>
Section<Context> only_when_named(Section<Context> s) {
    s.by_default = false;
    return s;
}

/// The same row, run only when named and alone; `why` says why ("it runs one process per GPU").
template <typename Context>
Section<Context> run_alone(Section<Context> s, const std::string& why) {
    s.alone_because = why;
    s.by_default = false;
    return s;
}

/// A chapter's sections, in the order they run.
template <typename Context>
class SectionTable {
  public:
    /// The table, its rows in the order the sections run.
    explicit SectionTable(std::vector<Section<Context>> sections)
        : sections_(std::move(sections)) {}

    /// The rows, in table order.
    const std::vector<Section<Context>>& sections() const { return sections_; }

    /// Every section's name, in table order.
    std::vector<std::string> names() const {
        std::vector<std::string> list;
        for (const auto& s : sections_) {
            list.push_back(s.id);
        }
        return list;
    }

    /// Registers --stage (its other name --section, which the chapter had first): a
    /// comma-separated list of sections, or `list` alone. The help names them, says which run
    /// by default, and ends with `more` (anything else the option accepts).
    CLI::Option* add_option(CLI::App& app, std::vector<std::string>& selected,
                            const std::string& more = {}) const {
        return add_option_named(app, "--stage,--section", selected, true, more);
    }

    /// The same option under other names (`names`, CLI11's "--a,--b"), for a chapter whose
    /// --stage picks something else (chapter 2's kernels); `with_list`: whether it also takes
    /// `list`.
    CLI::Option* add_option_named(CLI::App& app, const std::string& option_names,
                                  std::vector<std::string>& selected, bool with_list,
                                  const std::string& more = {}) const {
        std::string by_default;
        std::string named;
        std::string alone;
        for (const auto& s : sections_) {
            std::string& list = !s.alone_because.empty() ? alone
                                : s.by_default           ? by_default
                                                         : named;
            list += (list.empty() ? "" : ", ") + s.id;
        }
        std::vector<std::string> accepted = names();
        std::string help = "sections to run, comma-separated; by default: " + by_default;
        if (!named.empty()) {
            help += "; only when named: " + named;
        }
        if (!alone.empty()) {
            help += "; or alone, not run by default: " + alone;
        }
        if (with_list) {
            accepted.push_back("list");
            help += "; or list (the sections, without a GPU; with --json: as JSON)";
        }
        return app.add_option(option_names, selected, help + more)
            ->delimiter(',')
            ->check(CLI::IsMember(accepted));
    }

    /// Whether `selected` is `--stage list`.
    static bool is_list(const std::vector<std::string>& selected) {
        return selected == std::vector<std::string>{"list"};
    }

    /// Everything about `selected` that CLI11 cannot check (UsageError, exit 2): `list` and a
    /// section that runs alone must be named alone.
    void check(const std::vector<std::string>& selected) const {
        if (selected.size() < 2) {
            return;
        }
        if (std::find(selected.begin(), selected.end(), "list") != selected.end()) {
            throw UsageError("--stage", "list stands alone: it lists the sections");
        }
        for (const std::string& name : selected) {
            const Section<Context>* s = find(name);
            if (s != nullptr && !s->alone_because.empty()) {
                throw UsageError("--stage", name + " stands alone: " + s->alone_because);
            }
        }
    }

    /// `--stage list`: the sections as a registry, then the chapter's other registries.
    int list(const CommonOptions& options, const std::string& program,
             std::vector<StageGroup> more = {},
             const std::string& title = "Sections (--stage or --section)") const {
        std::vector<const StageDescriptor*> rows;
        for (const auto& s : sections_) {
            rows.push_back(&s);
        }
        more.insert(more.begin(), StageGroup{more.empty() ? std::string() : title, rows});
        return list_stages(options, program, more);
    }

    /// The section called `name`, or nullptr.
    const Section<Context>* find(const std::string& name) const {
        for (const auto& s : sections_) {
            if (s.id == name) {
                return &s;
            }
        }
        return nullptr;
    }

    /// The sections that run, in table order: those named, or (none named) every section run by
    /// default.
    std::vector<const Section<Context>*> chosen(const std::vector<std::string>& selected) const {
        std::vector<const Section<Context>*> list;
        for (const auto& s : sections_) {
            const bool named = std::find(selected.begin(), selected.end(), s.id) != selected.end();
            if (named || (selected.empty() && s.by_default)) {
                list.push_back(&s);
            }
        }
        return list;
    }

    /// Whether section `name` runs.
    bool wanted(const std::vector<std::string>& selected, const std::string& name) const {
        for (const Section<Context>* s : chosen(selected)) {
            if (s->id == name) {
                return true;
            }
        }
        return false;
    }

    /// Section `name`'s output files: as given for the first section that runs and writes a
    /// table, with "_<name>" before the extension for every later one ("out.json" ->
    /// "out_scaling.json"), as every program with several tables names them.
    CommonOptions files_for(const CommonOptions& options, const std::vector<std::string>& selected,
                            const std::string& name) const {
        for (const Section<Context>* s : chosen(selected)) {
            if (s->writes_table) {
                return s->id == name ? options : options.with_file_suffix("_" + name);
            }
        }
        return options.with_file_suffix("_" + name);
    }

    /// Runs every chosen section, in table order; returns the worst exit code.
    int run(const std::vector<std::string>& selected, Context& context) const {
        int status = to_int(ExitCode::kSuccess);
        for (const Section<Context>* s : chosen(selected)) {
            status = std::max(status, s->launch(context));
        }
        return status;
    }

  private:
    std::vector<Section<Context>> sections_;
};

}  // namespace cudatutorial
