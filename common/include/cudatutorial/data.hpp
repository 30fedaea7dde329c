/// @file data.hpp
/// @brief Seeded input generators shared by the chapters and the tests.
///
/// Every generator is counter-based (value i depends only on the seed and i), so the same seed
/// gives the same data on every machine, compiler and standard library (std::uniform_int_
/// distribution does not promise that), and large inputs are generated on several host threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudatutorial {

/// The default seed of every chapter (--seed).
inline constexpr std::uint64_t kDefaultSeed = 20261122;

/// A well-mixed 64-bit value from (seed, index): the SplitMix64 finalizer over seed + index * phi.
constexpr std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// A value in [0, range) from 64 random bits (multiply-shift; bias below 2^-32 for range < 2^32).
constexpr std::uint32_t bounded(std::uint64_t random_bits, std::uint32_t range) {
    return static_cast<std::uint32_t>(((random_bits >> 32) * range) >> 32);
}

/// Calls `fill(begin, end)` over [0, n) split across hardware threads (one thread for small n).
template <typename RangeFill>
void parallel_for_ranges(std::size_t n, RangeFill&& fill);

/// n integers uniform in [lo, hi] (inclusive).
std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi);

/// n floats uniform in [lo, hi).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi);

/// n bytes uniform in [0, 255].
std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed);

/// n bytes uniform over 'a'..'z'.
std::vector<unsigned char> random_lowercase(std::size_t n, std::uint64_t seed);

/// The value of `values` whose name_of(value) is `name`: the parser behind every `--dist` and
/// `--data` option. Throws std::invalid_argument naming `what` and every known name, e.g.
/// "unknown distribution 'x' (uniform, skewed, runs)".
template <typename Value, typename NameOf>
Value parse_named(const std::vector<Value>& values, NameOf name_of, const std::string& name,
                  const std::string& what) {
    std::string known;
    for (const Value& value : values) {
        if (name_of(value) == name) {
            return value;
        }
        known += (known.empty() ? "" : ", ") + std::string(name_of(value));
    }
    throw std::invalid_argument("unknown " + what + " '" + name + "' (" + known + ")");
}

/// The values of an option's enum and their names, each written once: the table names a value
/// (`--data`'s "ones"), parses a name (through parse_named, so the error lists every name) and
/// lists the values in order (the tests iterate over them).
///
/// @code
///   const NameTable<Pattern> kPatterns = {{Pattern::kRandom, "random"}, {Pattern::kOnes, "ones"}};
///   kPatterns.name(Pattern::kOnes);          // "ones"
///   kPatterns.parse("ones", "data pattern"); // Pattern::kOnes; "x" throws, naming both
/// @endcode
template <typename Value>
class NameTable {
  public:
    /// One row: a value and its name.
    struct Row {
        Value value;       ///< the enum's value
        const char* name;  ///< what the option calls it
    };
    /// The table, in the order values() lists and an error message names them.
    NameTable(std::initializer_list<Row> rows) : rows_(rows) {}

    /// The name of `value`, or "?" for a value the table does not list.
    const char* name(Value value) const {
        for (const Row& row : rows_) {
            if (row.value == value) {
                return row.name;
            }
        }
        return "?";
    }
    /// The value named `name`; throws std::invalid_argument naming `what` and every known name.
    Value parse(const std::string& name, const std::string& what) const {
        return parse_named(
            values(), [this](Value value) { return this->name(value); }, name, what);
    }
    /// Every value, in the table's order.
    std::vector<Value> values() const {
        std::vector<Value> all;
        for (const Row& row : rows_) {
            all.push_back(row.value);
        }
        return all;
    }

  private:
    std::vector<Row> rows_;
};

}  // namespace cudatutorial

#include "cudatutorial/detail/parallel_for.hpp"
