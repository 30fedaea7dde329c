#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <set>
#include <stdexcept>
#include <vector>

#include "cudatutorial/data.hpp"

namespace ct = cudatutorial;

TEST(Generators, SameSeedSameDataDifferentSeedDifferentData) {
    EXPECT_EQ(ct::random_ints(1000, 1, -5, 5), ct::random_ints(1000, 1, -5, 5));
    EXPECT_NE(ct::random_ints(1000, 1, -5, 5), ct::random_ints(1000, 2, -5, 5));
    EXPECT_EQ(ct::random_bytes(777, 9), ct::random_bytes(777, 9));
}

TEST(Generators, ValueIDependsOnlyOnSeedAndI) {
    // Prefixes agree, so a large input generated on many threads equals the same input
    // generated on one, and the tests can regenerate any slice of a benchmark's input.
    const auto small = ct::random_ints(100, 42, 0, 1000);
    const auto large = ct::random_ints(3 << 20, 42, 0, 1000);  // several threads
    EXPECT_TRUE(std::equal(small.begin(), small.end(), large.begin()));
}

TEST(Generators, IntsStayInRangeAndCoverIt) {
    const auto values = ct::random_ints(100000, 3, -3, 3);
    const std::set<int> seen(values.begin(), values.end());
    EXPECT_EQ(seen, (std::set<int>{-3, -2, -1, 0, 1, 2, 3}));
    const auto full = ct::random_ints(1000, 3, INT_MIN, INT_MAX);
    EXPECT_TRUE(std::any_of(full.begin(), full.end(), [](int v) { return v < -1000000; }));
    EXPECT_TRUE(std::any_of(full.begin(), full.end(), [](int v) { return v > 1000000; }));
    EXPECT_THROW(ct::random_ints(1, 0, 5, 4), std::invalid_argument);
}

TEST(Generators, NeverAllZero) {
    const auto ints = ct::random_ints(4096, ct::kDefaultSeed, 0, 9);
    EXPECT_TRUE(std::any_of(ints.begin(), ints.end(), [](int v) { return v != 0; }));
    const auto floats = ct::random_floats(4096, ct::kDefaultSeed, 0.0f, 1.0f);
    EXPECT_TRUE(
        std::all_of(floats.begin(), floats.end(), [](float v) { return v >= 0.0f && v < 1.0f; }));
    EXPECT_GT(*std::max_element(floats.begin(), floats.end()), 0.9f);
}

TEST(Generators, BytesAndLettersAreRoughlyUniform) {
    const auto bytes = ct::random_bytes(1 << 20, 5);
    std::vector<int> counts(256, 0);
    for (auto b : bytes) {
        ++counts[b];
    }
    const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
    EXPECT_GT(*lo, 3600);  // expected 4096 each
    EXPECT_LT(*hi, 4600);
    const auto letters = ct::random_lowercase(1 << 16, 5);
    EXPECT_TRUE(std::all_of(letters.begin(), letters.end(),
                            [](unsigned char c) { return c >= 'a' && c <= 'z'; }));
    EXPECT_EQ(std::set<unsigned char>(letters.begin(), letters.end()).size(), 26u);
}

TEST(NameTable, NamesParsesAndListsEachValueOnce) {
    enum class Colour { kRed, kGreen, kBlue };
    const ct::NameTable<Colour> colours = {{Colour::kRed, "red"}, {Colour::kGreen, "green"}};
    EXPECT_STREQ(colours.name(Colour::kGreen), "green");
    EXPECT_STREQ(colours.name(Colour::kBlue), "?");  // not in the table
    EXPECT_EQ(colours.parse("red", "colour"), Colour::kRed);
    EXPECT_EQ(colours.values(), (std::vector<Colour>{Colour::kRed, Colour::kGreen}));
    try {
        colours.parse("blue", "colour");
        FAIL() << "an unknown name parsed";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "unknown colour 'blue' (red, green)");
    }
}
