// The CPU reference every stage is checked against: inclusive and exclusive, wrapping modulo
// 2^32, one value, chunk by chunk; the input patterns; the comparison's message; the names.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "scan.hpp"

using scan::Kind;
using scan::Pattern;
using scan::Value;

TEST(ScanReference, InclusiveAndExclusive) {
    const std::vector<Value> in = {3, 1, 4, 1, 5, 9, 2, 6};
    EXPECT_EQ(scan::reference_scan(in, Kind::kInclusive),
              (std::vector<Value>{3, 4, 8, 9, 14, 23, 25, 31}));
    EXPECT_EQ(scan::reference_scan(in, Kind::kExclusive),
              (std::vector<Value>{0, 3, 4, 8, 9, 14, 23, 25}));
}

TEST(ScanReference, OneValue) {
    EXPECT_EQ(scan::reference_scan(std::vector<Value>{42}, Kind::kInclusive),
              std::vector<Value>{42});
    EXPECT_EQ(scan::reference_scan(std::vector<Value>{42}, Kind::kExclusive),
              std::vector<Value>{0});
}

TEST(ScanReference, SumsWrapModulo2To32) {
    const std::vector<Value> in(5, 0xFFFFFFFFu);
    EXPECT_EQ(
        scan::reference_scan(in, Kind::kInclusive),
        (std::vector<Value>{0xFFFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFFDu, 0xFFFFFFFCu, 0xFFFFFFFBu}));
    EXPECT_EQ(scan::reference_scan(in, Kind::kExclusive),
              (std::vector<Value>{0, 0xFFFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFFDu, 0xFFFFFFFCu}));
    // exclusive[i] = inclusive[i] - in[i] holds exactly, wrapped or not.
    const std::vector<Value> random = scan::make_input(Pattern::kRandom, 1000, 7);
    const std::vector<Value> inclusive = scan::reference_scan(random, Kind::kInclusive);
    const std::vector<Value> exclusive = scan::reference_scan(random, Kind::kExclusive);
    for (std::size_t i = 0; i < random.size(); ++i) {
        ASSERT_EQ(exclusive[i], inclusive[i] - random[i]) << i;
    }
}

TEST(ScanReference, ChunkByChunkEqualsWholeAndInPlaceWorks) {
    const std::vector<Value> in = scan::make_input(Pattern::kRandom, 10007, 3);
    for (Kind kind : {Kind::kInclusive, Kind::kExclusive}) {
        const std::vector<Value> whole = scan::reference_scan(in, kind);
        std::vector<Value> chunked(in.size());
        Value carry = 0;
        for (std::size_t begin = 0; begin < in.size(); begin += 1000) {
            const std::size_t count = std::min<std::size_t>(1000, in.size() - begin);
            carry =
                scan::reference_scan(in.data() + begin, chunked.data() + begin, count, kind, carry);
        }
        EXPECT_EQ(chunked, whole) << scan::kind_name(kind);
        EXPECT_EQ(carry, scan::reference_scan(std::vector<Value>(in), Kind::kInclusive).back());
        std::vector<Value> in_place = in;
        scan::reference_scan(in_place.data(), in_place.data(), in_place.size(), kind);
        EXPECT_EQ(in_place, whole) << scan::kind_name(kind);
    }
}

TEST(ScanReference, Patterns) {
    for (Value v : scan::make_input(Pattern::kOnes, 100, 1)) {
        ASSERT_EQ(v, 1u);
    }
    for (Value v : scan::make_input(Pattern::kMax, 100, 1)) {
        ASSERT_EQ(v, 0xFFFFFFFFu);
    }
    const std::vector<Value> alternating = scan::make_input(Pattern::kAlternating, 1000, 5);
    const std::vector<Value> sums = scan::reference_scan(alternating, Kind::kInclusive);
    for (std::size_t i = 0; i < sums.size(); ++i) {
        ASSERT_EQ(sums[i] == 0, i % 2 == 1) << i;  // each pair cancels, and k >= 1
    }
    const std::vector<Value> a = scan::make_input(Pattern::kRandom, 1000, 1);
    EXPECT_EQ(a, scan::make_input(Pattern::kRandom, 1000, 1));  // deterministic
    EXPECT_NE(a, scan::make_input(Pattern::kRandom, 1000, 2));
    std::size_t high = 0;
    for (Value v : a) {
        high += v >= 0x80000000u;
    }
    EXPECT_GT(high, 400u);  // the whole 32-bit range, not small numbers
    EXPECT_LT(high, 600u);
}

TEST(ScanReference, NamesAndMismatchMessages) {
    EXPECT_EQ(scan::parse_kind("exclusive"), Kind::kExclusive);
    EXPECT_EQ(scan::parse_pattern("max"), Pattern::kMax);
    try {
        scan::parse_kind("both");
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("inclusive, exclusive"), std::string::npos);
    }
    EXPECT_THROW(scan::parse_pattern("zeros"), std::invalid_argument);

    const std::vector<Value> want = {1, 2, 3, 4, 5};
    std::vector<Value> got = want;
    EXPECT_EQ(scan::describe_mismatch(got.data(), want.data(), got.size()), "");
    got[3] = 40;
    got[4] = 50;
    const std::string why = scan::describe_mismatch(got.data(), want.data(), got.size());
    EXPECT_NE(why.find("2 of 5"), std::string::npos) << why;
    EXPECT_NE(why.find("first at 3: got 40, expected 4"), std::string::npos) << why;

    EXPECT_EQ(scan::poison_byte(0xFFFFFFFFu), 0xfe);
    EXPECT_EQ(scan::poison_byte(7), 0xff);
}
