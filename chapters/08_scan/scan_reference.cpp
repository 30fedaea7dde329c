// The CPU reference (one left-to-right pass, uint32 wrapping modulo 2^32), the input patterns,
// the comparison that names the first wrong value, and the names of the scan kinds.
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudatutorial/data.hpp"
#include "scan.hpp"

namespace scan {

namespace {
const cudatutorial::NameTable<Kind>& kinds() {
    static const cudatutorial::NameTable<Kind> table = {{Kind::kInclusive, "inclusive"},
                                                        {Kind::kExclusive, "exclusive"}};
    return table;
}
}  // namespace

const char* kind_name(Kind kind) {
    return kinds().name(kind);
}

Kind parse_kind(const std::string& name) {
    return kinds().parse(name, "scan kind");
}

Value reference_scan(const Value* in, Value* out, std::size_t n, Kind kind, Value carry) {
    // Unsigned arithmetic wraps modulo 2^32 by definition (signed overflow would be undefined).
    if (kind == Kind::kInclusive) {
        for (std::size_t i = 0; i < n; ++i) {
            carry += in[i];
            out[i] = carry;
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            const Value value = in[i];  // read first: out may be in
            out[i] = carry;
            carry += value;
        }
    }
    return carry;
}

std::vector<Value> reference_scan(const std::vector<Value>& in, Kind kind) {
    std::vector<Value> out(in.size());
    reference_scan(in.data(), out.data(), in.size(), kind);
    return out;
}

namespace {
const cudatutorial::NameTable<Pattern>& patterns() {
    static const cudatutorial::NameTable<Pattern> table = {{Pattern::kRandom, "random"},
                                                           {Pattern::kOnes, "ones"},
                                                           {Pattern::kMax, "max"},
                                                           {Pattern::kAlternating, "alternating"}};
    return table;
}
}  // namespace

const char* pattern_name(Pattern pattern) {
    return patterns().name(pattern);
}

Pattern parse_pattern(const std::string& name) {
    return patterns().parse(name, "data pattern");
}

std::vector<Value> make_input(Pattern pattern, std::size_t n, std::uint64_t seed) {
    namespace ct = cudatutorial;
    std::vector<Value> v(n);
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            switch (pattern) {
                case Pattern::kRandom:
                    v[i] = static_cast<Value>(ct::hash64(seed, i) >> 32);
                    break;
                case Pattern::kOnes:
                    v[i] = 1;
                    break;
                case Pattern::kMax:
                    v[i] = 0xFFFFFFFFu;
                    break;
                case Pattern::kAlternating: {
                    // One k per pair, so that each pair sums to 0 modulo 2^32.
                    const Value k = 1 + ct::bounded(ct::hash64(seed, i / 2), 1000);
                    v[i] = i % 2 == 0 ? k : 0u - k;
                    break;
                }
            }
        }
    });
    return v;
}

std::string describe_mismatch(const Value* got, const Value* want, std::size_t n) {
    if (n == 0 || std::memcmp(got, want, n * sizeof(Value)) == 0) {
        return "";
    }
    std::size_t first = n;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            first = first == n ? i : first;
            ++wrong;
        }
    }
    return std::to_string(wrong) + " of " + std::to_string(n) + " values differ; first at " +
           std::to_string(first) + ": got " + std::to_string(got[first]) + ", expected " +
           std::to_string(want[first]);
}

unsigned char poison_byte(Value first_expected) {
    return first_expected == 0xFFFFFFFFu ? 0xfe : 0xff;
}

}  // namespace scan
