#include "cudatutorial/sizes.hpp"

#include <cctype>
#include <limits>
#include <string>

#include "cudatutorial/errors.hpp"

namespace cudatutorial {

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

bool parse_plain_unsigned(const std::string& text, std::uint64_t& value) {
    return parse_unsigned(trim(text), value);
}

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

}  // namespace cudatutorial
