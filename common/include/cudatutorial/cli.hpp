/// @file cli.hpp
/// @brief Command-line options shared by every chapter (on top of CLI11), input validation, and
/// the main() wrapper that maps errors to exit codes.
///
/// Host code only: keep this header (and CLI11) out of .cu files. CLI11's classes are only
/// declared here: a file that adds options or parses includes <CLI/CLI.hpp> itself, so that the
/// files that only run a table (table_run.hpp) do not compile CLI11's headers (seconds each).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/sizes.hpp"
#include "cudatutorial/stage.hpp"

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace cudatutorial {

struct DeviceInfo;

/// Options every chapter executable accepts.
struct CommonOptions {
    int repetitions = 20;         ///< --reps: timed runs per kernel
    int warmup = 3;               ///< --warmup: untimed runs before timing
    bool flush_l2 = false;        ///< --flush-l2: overwrite L2 before each timed run
    int batch = 1;                ///< --batch K: calls back to back per sample (benchmark.hpp)
    std::string csv_path;         ///< --csv FILE
    std::string json_path;        ///< --json FILE
    bool json_to_stdout = false;  ///< --json with no FILE (or "-"): only with --stage list
    std::string markdown_path;    ///< --markdown FILE
    int device = 0;               ///< --device N

    /// The harness configuration these options ask for.
    BenchmarkConfig benchmark_config() const;
    /// "median of 20 after 3 warm-up runs" (", L2 flushed" with --flush-l2), for table headers.
    std::string timing_description() const;
    /// The same options with `suffix` before each output file's extension, for a program that
    /// writes a second table: "out.json" -> "out_scaling.json" (an empty path stays empty).
    CommonOptions with_file_suffix(const std::string& suffix) const;
};

/// Whether a chapter offers --flush-l2 (a chapter whose kernels barely touch memory does not).
enum class L2FlushOption {
    kOffered,    ///< listed in --help
    kNotListed,  ///< still parsed, so that the chapter can say why it does not apply
};

/// Registers --reps, --warmup, --flush-l2, --batch, --csv, --json, --markdown and --device on
/// `app`, in the group
/// "Common options", which --help lists after the chapter's own options whatever the order in
/// which they were added. --json without a FILE (or with "-") means standard output, which only
/// `--stage list --json` accepts (run_program refuses it elsewhere, exit 2).
void add_common_options(CLI::App& app, CommonOptions& options,
                        L2FlushOption l2_flush = L2FlushOption::kOffered);

/// A CLI11 validator accepting what parse_size accepts.
CLI::Validator size_validator();

/// A CLI11 validator accepting a file path that can be opened for writing, so that a typo in
/// --csv/--json is reported (exit 2) before any GPU work rather than after a long run. Its
/// message says why not: the folder does not exist, or it is not writable.
CLI::Validator writable_file_validator();

/// A CLI11 validator accepting positive powers of two.
CLI::Validator power_of_two_validator();

/// Adds a size option (see parse_size) that writes the parsed value to `target` and shows
/// `target`'s initial value as the default in --help.
CLI::Option* add_size_option(CLI::App& app, const std::string& name, std::uint64_t& target,
                             const std::string& description);

/// Adds --stage, as every chapter with a stage list offers it: 'all', 'list' (the stages and
/// their ideas, without a GPU; with --json: as JSON), or a comma-separated list of ids or names.
/// `ids` lists them as the help shows them (stage_ids(), or a chapter's own words); `note` ends
/// the help with what is particular to the chapter.
CLI::Option* add_stage_option(CLI::App& app, std::string& stages, const std::string& ids,
                              const std::string& note = "");

/// " 1 2 3 cub": the ids of `stages` (any list of StageDescriptor rows), for add_stage_option.
template <class Stage>
std::string stage_ids(const std::vector<Stage>& stages) {
    std::string ids;
    for (const Stage& stage : stages) {
        ids += " " + stage.id;
    }
    return ids;
}

/// Adds --seed, the seed of the chapter's generated inputs (`what`: "the random matrices").
CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed,
                             const std::string& what = "the input generator");

/// Throws UsageError unless `block` is a power of two within [min_block, the device's limit].
void require_block_size(int block, const DeviceInfo& device, int min_block = 32,
                        const std::string& option = "--block");

/// The one block-size check before any GPU work: throws UsageError ("--block: must be a power
/// of two from 32 to 1024; got 48") unless `block` is a power of two in [min_block, max_block].
/// require_block_size() then checks it against the device.
void require_power_of_two_block(int block, int min_block = 32, int max_block = 1024,
                                const std::string& option = "--block");

/// Throws UsageError unless min <= value <= max, naming the option.
void require_range(std::uint64_t value, std::uint64_t min, std::uint64_t max,
                   const std::string& option);

/// The one place a chapter's table is printed and its result files written; chapters reach it
/// through TableRun::finish() (table_run.hpp), and tests/scripts/test_table_output.py keeps it
/// so. Records the clocks seen during timing (clocks.hpp) in `table`'s run information, prints
/// `table` (its notes under it), writes the CSV/JSON/Markdown files `options` ask for
/// (table_writers.hpp), and returns the exit code: kSuccess when every row passed (labelled bug
/// demonstrations aside) and `other_checks_passed`, else kVerificationFailed. A program with
/// several tables finishes each, with a file suffix for all but the first; a program whose own
/// files take an option's name (chapter 6's --csv timeline) gives its table a copy of the
/// options without it and writes that file itself, afterwards.
int finish_table(ResultTable& table, const CommonOptions& options, bool other_checks_passed = true);

/// Answers `--stage list`, without a GPU: the chapter's registry as a table, or as JSON on
/// standard output with `--json` alone (print_stage_list_json); `--json FILE` writes the JSON to
/// FILE as well as printing the table. Returns kSuccess.
int list_stages(const CommonOptions& options, const std::string& program,
                const std::vector<StageGroup>& groups);

/// Runs `body`, turning exceptions into one line on stderr and the documented exit code:
/// UsageError -> 2 ("error: --block: ..."), CudaError/NoDeviceError -> 3, anything else -> 3
/// ("internal error").
int guarded_main(const std::function<int()>& body);

/// Adds --section: a comma-separated list, each item one of `known` (the chapter's sections).
CLI::Option* add_section_option(CLI::App& app, std::vector<std::string>& sections,
                                const std::vector<std::string>& known,
                                const std::string& description);

/// Whether `section` runs: it was named in --section, or --section was not given.
bool section_wanted(const std::vector<std::string>& sections, const std::string& section);

/// Adds --profile-help ("print the Nsight Compute (ncu) commands for `what`, and exit").
CLI::Option* add_profile_help_flag(CLI::App& app, bool& flag, const std::string& what);

/// Parses the command line (help -> exit 0) and then runs `body` under guarded_main. Every usage
/// error, CLI11's or a UsageError from `body`, is one line on stderr and exit 2, in one form:
/// "error: <option>: <what is wrong>", the option named as the user typed it (--section where
/// it is another name of --stage), e.g. "error: --section: warp is not one of indices, add,
/// errors, timing, stencil (see --help)".
int run_program(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

}  // namespace cudatutorial
