/// @file sizes.hpp
/// @brief Problem sizes as users write them ("2^25", "1<<25", "32Mi") and as tables show them
/// (host only: no CUDA or CLI11 headers).
#pragma once

#include <cstdint>
#include <string>

namespace cudatutorial {

/// Parses a size written as a plain integer ("33554432"), a power of two ("2^25"), a shift
/// ("1<<25") or with a binary suffix ("32Mi", "1Gi", "64K" = 64 * 1024). Throws UsageError on
/// anything else, on overflow, and on negative values.
std::uint64_t parse_size(const std::string& text);

/// Parses a plain decimal integer (surrounding spaces allowed) into `value`; false on anything
/// else or on overflow.
bool parse_plain_unsigned(const std::string& text, std::uint64_t& value);

/// "33554432 (2^25)" for powers of two, "33554445 (2^25 + 13)" near one, else the plain number.
std::string describe_size(std::uint64_t n);

/// True for 1, 2, 4, 8, ...
constexpr bool is_power_of_two(std::uint64_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}

/// True for a power of two from `min` to `max`, as a block size must be for kernels instantiated
/// for 32, 64, ..., 1024 threads. The one test behind require_power_of_two_block() and
/// require_block_size() (cli.hpp), and for code that words a refusal its own way (chapter 3's
/// per-stage range, thrown as std::invalid_argument).
constexpr bool is_power_of_two_in(int value, int min, int max) {
    return value > 0 && value >= min && value <= max &&
           is_power_of_two(static_cast<std::uint64_t>(value));
}

}  // namespace cudatutorial
