#include "cudatutorial/cli.hpp"

#include <cctype>
#include <fstream>
#include <iostream>
#include <limits>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_info.hpp"

namespace cudatutorial {

BenchmarkConfig CommonOptions::benchmark_config() const {
    BenchmarkConfig config;
    config.warmup = warmup;
    config.repetitions = repetitions;
    config.flush_l2 = flush_l2;
    return config;
}

std::string CommonOptions::timing_description() const {
    return "median of " + std::to_string(repetitions) + " after " + std::to_string(warmup) +
           " warm-up runs" + (flush_l2 ? ", L2 flushed" : "");
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
    app.add_flag("--flush-l2", options.flush_l2,
                 "overwrite the L2 cache before every timed run (cold-cache timing)")
        ->group(l2_flush == L2FlushOption::kOffered ? group : std::string());  // "": not listed
    app.add_option("--csv", options.csv_path, "also write the results table as CSV to FILE")
        ->check(writable_file_validator())
        ->group(group);
    app.add_option("--json", options.json_path, "also write the results table as JSON to FILE")
        ->check(writable_file_validator())
        ->group(group);
    app.add_option("--device", options.device, "CUDA device ordinal")
        ->check(CLI::Range(0, 1023))
        ->capture_default_str()
        ->group(group);
}

namespace {

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

// Digits only, no sign: parses into a uint64 with overflow detection.
bool parse_unsigned(const std::string& text, std::uint64_t& value) {
    if (text.empty() || text.size() > 20) {
        return false;
    }
    value = 0;
    for (const char ch : text) {
        if (!std::isdigit(static_cast<unsigned char>(ch))) {
            return false;
        }
        const std::uint64_t digit = static_cast<std::uint64_t>(ch - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
            return false;
        }
        value = value * 10 + digit;
    }
    return true;
}

}  // namespace

std::uint64_t parse_size(const std::string& raw) {
    const std::string text = trim(raw);
    const auto bad = [&](const std::string& why) {
        return UsageError("invalid size '" + raw + "': " + why +
                          " (write e.g. 33554432, 2^25, 1<<25 or 32Mi)");
    };
    std::uint64_t base = 0;
    std::uint64_t exponent = 0;
    for (const std::string separator : {"^", "<<"}) {
        const auto at = text.find(separator);
        if (at == std::string::npos) {
            continue;
        }
        if (!parse_unsigned(trim(text.substr(0, at)), base) ||
            !parse_unsigned(trim(text.substr(at + separator.size())), exponent)) {
            throw bad("not a number");
        }
        if (separator == "^" && base != 2) {
            throw bad("only powers of 2 are accepted");
        }
        if (separator == "<<" && base == 0) {
            return 0;
        }
        const std::uint64_t multiplier = separator == "^" ? 1 : base;
        if (exponent >= 63 ||
            multiplier > (std::numeric_limits<std::uint64_t>::max() >> exponent)) {
            throw bad("too large");
        }
        return multiplier << exponent;
    }
    std::string digits = text;
    std::uint64_t scale = 1;
    const struct {
        const char* suffix;
        std::uint64_t scale;
    } suffixes[] = {{"Gi", 1ull << 30}, {"Mi", 1ull << 20}, {"Ki", 1ull << 10},
                    {"G", 1ull << 30},  {"M", 1ull << 20},  {"K", 1ull << 10}};
    for (const auto& s : suffixes) {
        const std::string suffix = s.suffix;
        if (digits.size() > suffix.size() &&
            digits.compare(digits.size() - suffix.size(), suffix.size(), suffix) == 0) {
            digits = digits.substr(0, digits.size() - suffix.size());
            scale = s.scale;
            break;
        }
    }
    std::uint64_t value = 0;
    if (!parse_unsigned(trim(digits), value)) {
        throw bad(text.empty() ? "empty" : (text[0] == '-' ? "negative" : "not a number"));
    }
    if (value > std::numeric_limits<std::uint64_t>::max() / scale) {
        throw bad("too large");
    }
    return value * scale;
}

std::string describe_size(std::uint64_t n) {
    std::string text = std::to_string(n);
    if (n < 1024) {
        return text;
    }
    int log2 = 63;
    while (log2 > 0 && !((n >> log2) & 1)) {
        --log2;
    }
    const std::uint64_t below = std::uint64_t{1} << log2;
    const std::uint64_t offset = n - below;
    if (offset == 0) {
        return text + " (2^" + std::to_string(log2) + ")";
    }
    if (offset < 1024) {
        return text + " (2^" + std::to_string(log2) + " + " + std::to_string(offset) + ")";
    }
    if (log2 < 63 && (below << 1) - n < 1024) {
        return text + " (2^" + std::to_string(log2 + 1) + " - " + std::to_string((below << 1) - n) +
               ")";
    }
    return text;
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
            if (!parse_unsigned(trim(text), value) || !is_power_of_two(value)) {
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

void require_range(std::uint64_t value, std::uint64_t min, std::uint64_t max,
                   const std::string& option) {
    if (value < min || value > max) {
        throw UsageError(option + " " + std::to_string(value) +
                         " is out of range: it must be from " + std::to_string(min) + " to " +
                         std::to_string(max));
    }
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
    return guarded_main(body);
}

}  // namespace cudatutorial
