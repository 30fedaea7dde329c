// The CPU reference and the input patterns: the overflow semantics are int32 wrap-around.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <vector>

#include "reduction.hpp"

TEST(ReductionReference, SmallSums) {
    EXPECT_EQ(reduction::reference_sum(nullptr, 0), 0);
    const std::vector<int> v = {1, 2, 3, -10};
    EXPECT_EQ(reduction::reference_sum(v), -4);
    EXPECT_EQ(reduction::reference_sum(v.data(), 3), 6);
}

TEST(ReductionReference, WrapsAroundModulo2To32) {
    EXPECT_EQ(reduction::reference_sum(std::vector<int>{INT_MAX, 1}), INT_MIN);
    EXPECT_EQ(reduction::reference_sum(std::vector<int>{INT_MIN, -1}), INT_MAX);
    EXPECT_EQ(reduction::reference_sum(std::vector<int>{INT_MAX, INT_MAX}), -2);
    EXPECT_EQ(reduction::reference_sum(std::vector<int>{INT_MIN, INT_MIN}), 0);
    // 2^32 ones wrap to exactly 0 - too big to build; 3 x 2^30 + 2^30 = 2^32 instead:
    EXPECT_EQ(reduction::reference_sum(std::vector<int>{1 << 30, 1 << 30, 1 << 30, 1 << 30}), 0);
}

TEST(ReductionReference, OrderDoesNotMatter) {
    // Addition modulo 2^32 is associative and commutative: any tree gives the same bits.
    std::vector<int> v = reduction::make_input(reduction::Pattern::kExtremes, 1001, 7);
    const int forward = reduction::reference_sum(v);
    std::uint32_t pairwise = 0;
    for (std::size_t i = v.size(); i-- > 0;) {  // backwards
        pairwise += static_cast<std::uint32_t>(v[i]);
    }
    EXPECT_EQ(forward, static_cast<int>(pairwise));
    // A 64-bit sum truncated to 32 bits is the same value.
    std::int64_t wide = 0;
    for (int x : v) {
        wide += x;
    }
    EXPECT_EQ(forward, static_cast<int>(static_cast<std::uint32_t>(wide)));
}

TEST(ReductionReference, Patterns) {
    using reduction::Pattern;
    EXPECT_EQ(reduction::reference_sum(reduction::make_input(Pattern::kOnes, 12345, 1)), 12345);
    const auto alternating = reduction::make_input(Pattern::kAlternating, 1000, 3);
    for (std::size_t i = 0; i < alternating.size(); ++i) {
        EXPECT_EQ(alternating[i] > 0, i % 2 == 0);
        EXPECT_LE(std::abs(alternating[i]), 1000);
    }
    const auto extremes = reduction::make_input(Pattern::kExtremes, 1000, 3);
    int high = 0;
    for (int x : extremes) {
        EXPECT_TRUE(x >= INT_MAX - 7 || x <= INT_MIN + 7) << x;
        high += x > 0;
    }
    EXPECT_GT(high, 300);
    EXPECT_LT(high, 700);
    const auto random = reduction::make_input(Pattern::kRandom, 1000, 3);
    EXPECT_EQ(random, reduction::make_input(Pattern::kRandom, 1000, 3));  // deterministic
    EXPECT_NE(random, reduction::make_input(Pattern::kRandom, 1000, 4));
    for (Pattern p :
         {Pattern::kRandom, Pattern::kOnes, Pattern::kAlternating, Pattern::kExtremes}) {
        EXPECT_EQ(reduction::parse_pattern(reduction::pattern_name(p)), p);
    }
    EXPECT_THROW(reduction::parse_pattern("zeros"), std::invalid_argument);
}
