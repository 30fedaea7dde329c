#include "cudatutorial/cli.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <limits>

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

CLI::Validator writable_file_validator() {
    return CLI::Validator(
        [](std::string& path) -> std::string {
            if (path == "-") {  // standard output (--stage list --json -)
                return {};
            }
            // Opened for appending, so an existing file is not truncated before the run.
            std::ofstream probe(path, std::ios::app);
            if (!probe) {
                return "cannot write '" + path + "' (does its folder exist?)";
            }
            return {};
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

void require_block_size(int block, const DeviceInfo& device, int min_block,
                        const std::string& option) {
    if (block < min_block || !is_power_of_two(static_cast<std::uint64_t>(block)) ||
        block > device.max_threads_per_block) {
        throw UsageError(option + " " + std::to_string(block) +
                         " is not supported: it must be a power of two from " +
                         std::to_string(min_block) + " to " +
                         std::to_string(device.max_threads_per_block) + " (this device's limit)");
    }
}

void require_power_of_two_block(int block, int min_block, int max_block,
                                const std::string& option) {
    if (block < min_block || block > max_block ||
        !is_power_of_two(static_cast<std::uint64_t>(block))) {
        throw UsageError(option + " must be a power of two from " + std::to_string(min_block) +
                         " to " + std::to_string(max_block) + "; got " + std::to_string(block));
    }
}

void require_range(std::uint64_t value, std::uint64_t min, std::uint64_t max,
                   const std::string& option) {
    if (value < min || value > max) {
        throw UsageError(option + " " + std::to_string(value) +
                         " is out of range: it must be from " + std::to_string(min) + " to " +
                         std::to_string(max));
    }
}

int finish_table(ResultTable& table, const CommonOptions& options, bool other_checks_passed) {
    if (options.batch > 1) {  // every sample of this table is a batch: the header says so
        table.info().set("calls per sample",
                         std::to_string(options.batch) + " back to back, the sample divided by them");
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
            throw UsageError("cannot write '" + options.json_path + "'");
        }
    }
    return to_int(ExitCode::kSuccess);
}

int guarded_main(const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& error) {
        std::cerr << "error: " << error.what() << "\n";
        return to_int(ExitCode::kBadUsage);
    } catch (const CudaError& error) {
        std::cerr << "error: " << error.what() << "\n";
        return to_int(ExitCode::kCudaError);
    } catch (const std::exception& error) {
        std::cerr << "internal error: " << error.what() << "\n";
        return to_int(ExitCode::kCudaError);
    }
}

int run_program(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& success) {  // --help, --version
        return app.exit(success);
    } catch (const CLI::ParseError& error) {
        app.exit(error);  // prints the message and "Run with --help for more information."
        return to_int(ExitCode::kBadUsage);
    } catch (const UsageError& error) {  // thrown by an option callback
        std::cerr << "error: " << error.what() << "\n";
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
            std::cerr << "error: --json needs a FILE (only --stage list --json prints JSON to "
                         "standard output)\n";
            return to_int(ExitCode::kBadUsage);
        }
    }
    return guarded_main(body);
}

}  // namespace cudatutorial
