#include "cudatutorial/cli.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <utility>

#include "cudatutorial/check.hpp"
#include "cudatutorial/clocks.hpp"
#include "cudatutorial/device_info.hpp"

namespace cudatutorial {

BenchmarkConfig CommonOptions::benchmark_config() const {
    BenchmarkConfig config;
    config.warmup = warmup;
    config.repetitions = repetitions;
    config.flush_l2 = flush_l2;
    config.calls_per_sample = batch;
    return config;
}

std::string CommonOptions::timing_description() const {
    return "median of " + std::to_string(repetitions) + " after " + std::to_string(warmup) +
           " warm-up runs" + (flush_l2 ? ", L2 flushed" : "");
}

namespace {

std::string path_with_suffix(const std::string& path, const std::string& suffix) {
    if (path.empty()) {
        return path;
    }
    const std::size_t slash = path.find_last_of('/');
    const std::size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
        return path + suffix;
    }
    return path.substr(0, dot) + suffix + path.substr(dot);
}

}  // namespace

CommonOptions CommonOptions::with_file_suffix(const std::string& suffix) const {
    CommonOptions copy = *this;
    copy.csv_path = path_with_suffix(csv_path, suffix);
    copy.json_path = path_with_suffix(json_path, suffix);
    copy.markdown_path = path_with_suffix(markdown_path, suffix);
    return copy;
}

void add_common_options(CLI::App& app, CommonOptions& options, L2FlushOption l2_flush) {
    // --help prints groups in the order of their first option; -h (added by CLI11 itself) opens
    // the chapter's group, so this one always comes last.
    const std::string group = "Common options";
    app.add_option("--reps", options.repetitions, "timed repetitions per kernel (median reported)")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str()
        ->group(group);
    app.add_option("--warmup", options.warmup, "untimed runs before timing")
        ->check(CLI::Range(0, 10000))
        ->capture_default_str()
        ->group(group);
    CLI::Option* flush = app.add_flag("--flush-l2", options.flush_l2,
                                      "overwrite the L2 cache before every timed run "
                                      "(cold-cache timing)")
                             ->group(l2_flush == L2FlushOption::kOffered ? group : std::string());
    app.add_option("--batch", options.batch,
                   "calls back to back per timed sample, the sample divided by them: the time "
                   "per call when calls follow each other, the events' fixed cost shared "
                   "(1: each call timed on its own)")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str()
        ->excludes(flush)
        ->group(group);
    app.add_option("--csv", options.csv_path, "also write the results table as CSV to FILE")
        ->check(writable_file_validator())
        ->group(group);
    app.add_option_function<std::string>(
           "--json",
           [&options](const std::string& path) {
               options.json_to_stdout = path.empty() || path == "-";
               options.json_path = options.json_to_stdout ? std::string() : path;
           },
           "also write the results table as JSON to FILE (with --stage list and no FILE: the "
           "stages as JSON on standard output)")
        ->expected(0, 1)
        ->check(writable_file_validator())
        ->group(group);
    app.add_option("--markdown", options.markdown_path,
                   "also write the results table as Markdown (what the READMEs show) to FILE")
        ->check(writable_file_validator())
        ->group(group);
    app.add_option("--device", options.device, "CUDA device ordinal")
        ->check(CLI::Range(0, 1023))
        ->capture_default_str()
        ->group(group);
}

CLI::Validator size_validator() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            try {
                parse_size(text);
            } catch (const UsageError& error) {
                return error.what();
            }
            return {};
        },
        "SIZE", "SIZE");
}

namespace {

// Why `path` cannot be opened for writing: its folder is missing or read-only, or the path is a
// folder or a read-only file.
std::string why_not_writable(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (fs::is_directory(path, error)) {
        return "it is a folder";
    }
    const fs::path parent = fs::path(path).parent_path();
    const std::string folder = parent.empty() ? std::string(".") : parent.string();
    if (!fs::exists(folder, error)) {
        return "its folder " + folder + " does not exist";
    }
    if (!fs::is_directory(folder, error)) {
        return folder + " is not a folder";
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
        return "its folder " + folder + " is not writable";
    }
    if (fs::exists(path, error) && ::access(path.c_str(), W_OK) != 0) {
        return "the file is not writable";
    }
    return "it cannot be opened for writing";
}

}  // namespace

CLI::Validator writable_file_validator() {
    return CLI::Validator(
        [](std::string& path) -> std::string {
            if (path == "-") {  // standard output (--stage list --json -)
                return {};
            }
            // Opened for appending, so an existing file is not truncated before the run.
            if (std::ofstream(path, std::ios::app)) {
                return {};
            }
            return "cannot write '" + path + "': " + why_not_writable(path);
        },
        "FILE", "WRITABLE_FILE");
}

CLI::Validator power_of_two_validator() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            std::uint64_t value = 0;
            if (!parse_plain_unsigned(text, value) || !is_power_of_two(value)) {
                return "'" + text + "' is not a power of two (32, 64, 128, 256, 512, 1024...)";
            }
            return {};
        },
        "POWER_OF_TWO", "POWER_OF_TWO");
}

CLI::Option* add_size_option(CLI::App& app, const std::string& name, std::uint64_t& target,
                             const std::string& description) {
    const std::string default_text = describe_size(target);
    return app
        .add_option_function<std::string>(
            name, [&target](const std::string& text) { target = parse_size(text); }, description)
        ->check(size_validator())
        ->default_str(default_text);
}

CLI::Option* add_stage_option(CLI::App& app, std::string& stages, const std::string& ids,
                              const std::string& note) {
    return app
        .add_option("--stage", stages,
                    "'all', 'list' (the stages and their ideas, without a GPU; with --json: as "
                    "JSON), or a comma-separated list of ids or names:" +
                        ids + note)
        ->capture_default_str();
}

CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed, const std::string& what) {
    return app.add_option("--seed", seed, "seed of " + what)->capture_default_str();
}

void require_block_size(int block, const DeviceInfo& device, int min_block,
                        const std::string& option) {
    if (!is_power_of_two_in(block, min_block, device.max_threads_per_block)) {
        throw UsageError(
            option, std::to_string(block) + " is not supported: it must be a power of two from " +
                        std::to_string(min_block) + " to " +
                        std::to_string(device.max_threads_per_block) + " (this device's limit)");
    }
}

void require_power_of_two_block(int block, int min_block, int max_block,
                                const std::string& option) {
    if (!is_power_of_two_in(block, min_block, max_block)) {
        throw UsageError(option, "must be a power of two from " + std::to_string(min_block) +
                                     " to " + std::to_string(max_block) + "; got " +
                                     std::to_string(block));
    }
}

void require_range(std::uint64_t value, std::uint64_t min, std::uint64_t max,
                   const std::string& option) {
    if (value < min || value > max) {
        throw UsageError(option, std::to_string(value) + " is out of range: it must be from " +
                                     std::to_string(min) + " to " + std::to_string(max));
    }
}

int finish_table(ResultTable& table, const CommonOptions& options, bool other_checks_passed) {
    if (options.batch > 1) {  // every sample of this table is a batch: the header says so
        table.info().set("calls per sample", std::to_string(options.batch) +
                                                 " back to back, the sample divided by them");
    }
    record_clocks(table.info());
    table.print(std::cout);
    table.write_files(options.csv_path, options.json_path, options.markdown_path);
    return to_int(table.all_passed() && other_checks_passed ? ExitCode::kSuccess
                                                            : ExitCode::kVerificationFailed);
}

CLI::Option* add_section_option(CLI::App& app, std::vector<std::string>& sections,
                                const std::vector<std::string>& known,
                                const std::string& description) {
    return app.add_option("--section", sections, description)
        ->delimiter(',')
        ->check(CLI::IsMember(known));
}

bool section_wanted(const std::vector<std::string>& sections, const std::string& section) {
    return sections.empty() ||
           std::find(sections.begin(), sections.end(), section) != sections.end();
}

CLI::Option* add_profile_help_flag(CLI::App& app, bool& flag, const std::string& what) {
    return app.add_flag("--profile-help", flag,
                        "print the Nsight Compute (ncu) commands for " + what + ", and exit");
}

int list_stages(const CommonOptions& options, const std::string& program,
                const std::vector<StageGroup>& groups) {
    if (options.json_to_stdout) {
        print_stage_list_json(std::cout, program, groups);
        return to_int(ExitCode::kSuccess);
    }
    print_stage_list(std::cout, groups);
    if (!options.json_path.empty()) {
        std::ofstream file(options.json_path);
        print_stage_list_json(file, program, groups);
        if (!file) {
            throw UsageError("--json", "cannot write '" + options.json_path + "'");
        }
    }
    return to_int(ExitCode::kSuccess);
}

namespace {

// Which of its names the user typed for each option. CLI11 names an option by its first name in
// its messages (--stage for `--stage,--section`), and a chapter's check names the option as the
// code knows it; the student should read the name they typed.
class TypedNames {
  public:
    TypedNames() = default;
    TypedNames(const CLI::App& app, int argc, char** argv) : app_(&app) {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--") {
                break;
            }
            if (arg.size() < 2 || arg[0] != '-') {
                continue;
            }
            const std::string name = arg.substr(0, arg.find('='));  // --n=5 is --n
            if (const CLI::Option* option = app.get_option_no_throw(name)) {
                typed_.emplace_back(option, name);
            }
        }
    }

    /// `name` (any of an option's names) as the user last typed that option; `name` itself when
    /// the option was not typed, or `name` is not an option.
    std::string operator()(const std::string& name) const {
        const CLI::Option* option = app_ ? app_->get_option_no_throw(name) : nullptr;
        std::string typed = name;
        for (const auto& [typed_option, typed_name] : typed_) {
            if (option != nullptr && typed_option == option) {
                typed = typed_name;
            }
        }
        return typed;
    }

    /// Whether `name` is one of the program's options.
    bool is_option(const std::string& name) const {
        return app_ != nullptr && !name.empty() && name[0] == '-' &&
               app_->get_option_no_throw(name) != nullptr;
    }

  private:
    const CLI::App* app_ = nullptr;
    std::vector<std::pair<const CLI::Option*, std::string>> typed_;
};

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

// Every usage error is one line: "error: --section: warp is not one of ...".
void print_usage_error(const std::string& option, const std::string& problem) {
    std::string line = "error: " + (option.empty() ? problem : option + ": " + problem);
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::cerr << line << "\n";
}

// A bound as CLI::Range prints it (std::to_string), without a fraction of zeros: "1.000000" -> "1".
std::string plain_number(std::string text) {
    // A stream's default form of a large double, as newer CLI11 prints a range's bounds: "1e+06".
    if (text.find_first_of("eE") != std::string::npos) {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() + text.size() && std::isfinite(value) &&
            value == std::floor(value) && std::fabs(value) < 1e15) {
            return std::to_string(static_cast<long long>(value));
        }
    }
    if (text.find('.') != std::string::npos) {
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') {
            text.pop_back();
        }
    }
    return text;
}

// What a value that could not be read as the option's type should have been: "a whole number".
std::string expected_value(const CLI::Option* option) {
    const std::string type = option != nullptr ? option->get_type_name() : std::string();
    if (type.find("INT") != std::string::npos) {
        return "a whole number";
    }
    if (type.find("FLOAT") != std::string::npos) {
        return "a number";
    }
    return "a valid value (see --help)";
}

// Whether `text` reads as a value of `option`'s type: a whole number ("-5") for an integer
// option, any number ("0.5") otherwise.
bool is_number_for(const std::string& text, const CLI::Option* option) {
    const bool whole =
        option != nullptr && option->get_type_name().find("INT") != std::string::npos;
    char* end = nullptr;
    if (whole) {
        std::strtoll(text.c_str(), &end, 10);
    } else {
        std::strtod(text.c_str(), &end);
    }
    return !text.empty() && end == text.c_str() + text.size();
}

// CLI11's words for a bad value of `option`, in the course's: the values a choice takes, a
// range's bounds.
std::string reword_value_problem(const std::string& problem, const CLI::Option* option) {
    // CLI::IsMember: "warp not in {indices,add,errors}"
    const std::size_t not_in = problem.find(" not in {");
    if (not_in != std::string::npos && problem.back() == '}') {
        std::string choices = problem.substr(not_in + 9, problem.size() - not_in - 10);
        std::string listed;
        for (const char ch : choices) {
            listed += ch == ',' ? std::string(", ") : std::string(1, ch);
        }
        return problem.substr(0, not_in) + " is not one of " + listed + " (see --help)";
    }
    // CLI::Range: "Value 0 not in range 1 to 100000" (CLI11 2.1), "Value 0 not in range
    // [1 - 100000]" (CLI11 2.2 and newer); "Value abc could not be converted"
    if (starts_with(problem, "Value ")) {
        const std::size_t range = problem.find(" not in range ");
        if (range != std::string::npos) {
            std::string bounds = problem.substr(range + 14);
            std::string separator = " to ";
            if (bounds.size() > 2 && bounds.front() == '[' && bounds.back() == ']') {
                bounds = bounds.substr(1, bounds.size() - 2);
                separator = " - ";
            }
            const std::size_t to = bounds.find(separator);
            if (to != std::string::npos) {
                // CLI::Range says "not in range" of a value that is no number at all, too.
                const std::string value = problem.substr(6, range - 6);
                if (!is_number_for(value, option)) {
                    return "'" + value + "' is not " + expected_value(option);
                }
                return value + " is out of range: it must be from " +
                       plain_number(bounds.substr(0, to)) + " to " +
                       plain_number(bounds.substr(to + separator.size()));
            }
        }
        const std::size_t converted = problem.find(" could not be converted");
        if (converted != std::string::npos) {
            return "'" + problem.substr(6, converted - 6) + "' is not " + expected_value(option);
        }
    }
    return problem;
}

// A CLI11 parse error as the option the user typed and what is wrong with it.
std::pair<std::string, std::string> describe_parse_error(const CLI::App& app,
                                                         const CLI::ParseError& error,
                                                         const TypedNames& typed) {
    const std::string message = error.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
        const std::vector<std::string> extras = app.remaining();
        const std::string first = extras.empty() ? message : extras.front();
        if (first.size() > 1 && first[0] == '-' &&
            !std::isdigit(static_cast<unsigned char>(first[1]))) {
            return {first.substr(0, first.find('=')), "not an option of this program (see --help)"};
        }
        return {first, "unexpected argument: options start with -- (see --help)"};
    }
    // ConversionError: "Could not convert: --block = 256x"
    const std::string convert = "Could not convert: ";
    if (starts_with(message, convert)) {
        const std::size_t equals = message.find(" = ", convert.size());
        if (equals != std::string::npos) {
            const std::string name = message.substr(convert.size(), equals - convert.size());
            return {typed(name), "'" + message.substr(equals + 3) + "' is not " +
                                     expected_value(app.get_option_no_throw(name))};
        }
    }
    // ExcludesError "--batch excludes --flush-l2", RequiresError "--a requires --b"
    for (const std::string& relation : {std::string(" excludes "), std::string(" requires ")}) {
        const std::size_t at = message.find(relation);
        if (at != std::string::npos && typed.is_option(message.substr(0, at))) {
            const std::string other = typed(message.substr(at + relation.size()));
            return {typed(message.substr(0, at)), relation == " excludes "
                                                      ? "cannot be combined with " + other
                                                      : "needs " + other + " as well"};
        }
    }
    // ValidationError, ArgumentMismatch and the rest: "--stage: warp not in {...}"
    const std::size_t colon = message.find(": ");
    if (colon != std::string::npos && typed.is_option(message.substr(0, colon))) {
        std::string problem = message.substr(colon + 2);
        // ArgumentMismatch: "--block: 1 required INT missing"
        if (problem.size() > 8 && problem.compare(problem.size() - 8, 8, " missing") == 0 &&
            problem.find(" required ") != std::string::npos) {
            problem = "needs a value";
        }
        const std::string name = message.substr(0, colon);
        return {typed(name), reword_value_problem(problem, app.get_option_no_throw(name))};
    }
    return {"", message};
}

// Runs `body` with the exit codes of guarded_main, usage errors naming options as typed.
int run_guarded(const std::function<int()>& body, const TypedNames& typed) {
    try {
        return body();
    } catch (const UsageError& error) {
        print_usage_error(error.option().empty() ? std::string() : typed(error.option()),
                          error.problem());
        return to_int(ExitCode::kBadUsage);
    } catch (const CudaError& error) {
        std::cerr << "error: " << error.what() << "\n";
        return to_int(ExitCode::kCudaError);
    } catch (const std::exception& error) {
        std::cerr << "internal error: " << error.what() << "\n";
        return to_int(ExitCode::kCudaError);
    }
}

}  // namespace

int guarded_main(const std::function<int()>& body) {
    return run_guarded(body, TypedNames());
}

int run_program(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
    const TypedNames typed(app, argc, argv);
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& success) {  // --help, --version
        return app.exit(success);
    } catch (const CLI::ParseError& error) {
        const auto [option, problem] = describe_parse_error(app, error, typed);
        print_usage_error(option, problem);
        return to_int(ExitCode::kBadUsage);
    } catch (const UsageError& error) {  // thrown by an option callback
        print_usage_error(error.option().empty() ? std::string() : typed(error.option()),
                          error.problem());
        return to_int(ExitCode::kBadUsage);
    }
    // --json without a FILE means standard output, which only --stage list writes to: anywhere
    // else the JSON would mix with the printed table.
    const CLI::Option* json = app.get_option_no_throw("--json");
    if (json != nullptr && json->count() > 0 &&
        (json->results().empty() || json->results().back().empty() ||
         json->results().back() == "-")) {
        const CLI::Option* stage = app.get_option_no_throw("--stage");
        const bool listing =
            stage != nullptr && stage->results().size() == 1 && stage->results().front() == "list";
        if (!listing) {
            print_usage_error("--json", "needs a FILE (only " + typed("--stage") +
                                            " list --json prints JSON to standard output)");
            return to_int(ExitCode::kBadUsage);
        }
    }
    return run_guarded(body, typed);
}

}  // namespace cudatutorial
