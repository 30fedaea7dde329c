/// @file cli.hpp
/// @brief Command-line options shared by every chapter (on top of CLI11), input validation, and
/// the main() wrapper that maps errors to exit codes.
///
/// Host code only: keep this header (and CLI11) out of .cu files.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "cudatutorial/benchmark.hpp"

namespace cudatutorial {

struct DeviceInfo;

/// Options every chapter executable accepts.
struct CommonOptions {
    int repetitions = 20;   ///< --reps: timed runs per kernel
    int warmup = 3;         ///< --warmup: untimed runs before timing
    bool flush_l2 = false;  ///< --flush-l2: overwrite L2 before each timed run
    std::string csv_path;   ///< --csv FILE
    std::string json_path;  ///< --json FILE
    int device = 0;         ///< --device N

    /// The harness configuration these options ask for.
    BenchmarkConfig benchmark_config() const;
    /// "median of 20 after 3 warm-up runs" (", L2 flushed" with --flush-l2), for table headers.
    std::string timing_description() const;
};

/// Whether a chapter offers --flush-l2 (a chapter whose kernels barely touch memory does not).
enum class L2FlushOption {
    kOffered,    ///< listed in --help
    kNotListed,  ///< still parsed, so that the chapter can say why it does not apply
};

/// Registers --reps, --warmup, --flush-l2, --csv, --json and --device on `app`, in the group
/// "Common options", which --help lists after the chapter's own options whatever the order in
/// which they were added.
void add_common_options(CLI::App& app, CommonOptions& options,
                        L2FlushOption l2_flush = L2FlushOption::kOffered);

/// Parses a size written as a plain integer ("33554432"), a power of two ("2^25"), a shift
/// ("1<<25") or with a binary suffix ("32Mi", "1Gi", "64K" = 64 * 1024). Throws UsageError on
/// anything else, on overflow, and on negative values.
std::uint64_t parse_size(const std::string& text);

/// "33554432 (2^25)" for powers of two, "33554445 (2^25 + 13)" near one, else the plain number.
std::string describe_size(std::uint64_t n);

/// A CLI11 validator accepting what parse_size accepts.
CLI::Validator size_validator();

/// A CLI11 validator accepting a file path that can be opened for writing, so that a typo in
/// --csv/--json is reported (exit 2) before any GPU work rather than after a long run.
CLI::Validator writable_file_validator();

/// A CLI11 validator accepting positive powers of two.
CLI::Validator power_of_two_validator();

/// Adds a size option (see parse_size) that writes the parsed value to `target` and shows
/// `target`'s initial value as the default in --help.
CLI::Option* add_size_option(CLI::App& app, const std::string& name, std::uint64_t& target,
                             const std::string& description);

/// True for 1, 2, 4, 8, ...
constexpr bool is_power_of_two(std::uint64_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}

/// Throws UsageError unless `block` is a power of two within [min_block, the device's limit].
void require_block_size(int block, const DeviceInfo& device, int min_block = 32,
                        const std::string& option = "--block");

/// Throws UsageError unless min <= value <= max, naming the option.
void require_range(std::uint64_t value, std::uint64_t min, std::uint64_t max,
                   const std::string& option);

/// Runs `body`, turning exceptions into a message on stderr and the documented exit code:
/// UsageError -> 2, CudaError/NoDeviceError -> 3, anything else -> 3 ("internal error").
int guarded_main(const std::function<int()>& body);

/// Parses the command line (help -> exit 0; a parse error -> its message, exit 2) and then runs
/// `body` under guarded_main.
int run_program(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

}  // namespace cudatutorial
