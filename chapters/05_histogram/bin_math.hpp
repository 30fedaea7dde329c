/// @file bin_math.hpp
/// @brief The letter-to-bin arithmetic, shared word for word by the CPU and the GPU.
///
/// A letter's bin is (c - 'a') / width. The width is only known at run time, and an integer
/// division by a run-time value costs about twenty instructions on a GPU (there is no divide
/// instruction), more than everything else a fast kernel does per byte. For the 26 letter
/// positions a multiply and a shift give exactly the same quotient: with r = ceil(2^16 / width),
/// (p * r) >> 16 == p / width for every p in 0..25 and width in 1..26, because the rounding error
/// p * (r - 2^16 / width) / 2^16 < 26 / 2^16 stays below the 1 / width gap to the next integer.
/// bin_math_test checks all 26 x 26 cases.
#pragma once

#if defined(__CUDACC__)
#define HISTOGRAM_HD __host__ __device__
#else
#define HISTOGRAM_HD
#endif

namespace histogram {

/// Number of lowercase letters.
inline constexpr unsigned kLetters = 26;

/// ceil(2^16 / width): the multiplier that replaces a division by `width` (1..26).
HISTOGRAM_HD constexpr unsigned letter_reciprocal(unsigned width) {
    return (65536u + width - 1u) / width;
}

/// True when byte `c` is a lowercase letter. One unsigned compare: c - 'a' wraps around to a
/// large number for bytes below 'a'.
HISTOGRAM_HD constexpr bool is_letter(unsigned c) {
    return c - 'a' < kLetters;
}

/// The bin of lowercase letter `c` for the width whose letter_reciprocal is `reciprocal`.
HISTOGRAM_HD constexpr unsigned letter_bin(unsigned c, unsigned reciprocal) {
    return ((c - 'a') * reciprocal) >> 16;
}

}  // namespace histogram
