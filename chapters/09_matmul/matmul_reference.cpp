// The CPU side of chapter 9: shapes, input patterns and the FP64 reference product.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudatutorial/data.hpp"
#include "cudatutorial/detail/parallel_for.hpp"
#include "matmul.hpp"

namespace matmul {

double Shape::flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

std::string Shape::text() const {
    return std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k);
}

namespace {
const cudatutorial::NameTable<Pattern>& patterns() {
    static const cudatutorial::NameTable<Pattern> table = {{Pattern::kNormal, "normal"},
                                                           {Pattern::kIntegers, "integers"},
                                                           {Pattern::kSparse, "sparse"},
                                                           {Pattern::kZeros, "zeros"}};
    return table;
}
const cudatutorial::NameTable<Operands>& operand_kinds() {
    static const cudatutorial::NameTable<Operands> table = {{Operands::kFp32, "fp32"},
                                                            {Operands::kBf16, "bf16"}};
    return table;
}
}  // namespace

const char* pattern_name(Pattern pattern) {
    return patterns().name(pattern);
}

Pattern parse_pattern(const std::string& name) {
    return patterns().parse(name, "data pattern");
}

const char* operands_name(Operands operands) {
    return operand_kinds().name(operands);
}

Operands parse_operands(const std::string& name) {
    return operand_kinds().parse(name, "precision");
}

std::vector<float> make_matrix(Pattern pattern, std::size_t count, std::uint64_t seed,
                               std::uint64_t stream, std::uint64_t row_length) {
    std::vector<float> values(count);
    const std::uint64_t key = cudatutorial::hash64(seed, stream);
    // kSparse: a row's nonzeros every `spacing` columns, offset by the row: at most 256 a row.
    const std::uint64_t spacing = row_length > 0 ? (row_length + 255) / 256 : 1;
    cudatutorial::parallel_for_ranges(count, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const std::uint64_t bits = cudatutorial::hash64(key, i);
            if (pattern == Pattern::kZeros) {
                values[i] = 0.0f;
                continue;
            }
            if (pattern == Pattern::kIntegers) {
                values[i] =
                    static_cast<float>(static_cast<int>(cudatutorial::bounded(bits, 9)) - 4);
                continue;
            }
            if (pattern == Pattern::kSparse) {
                const bool may_be_nonzero =
                    row_length == 0 || (i % row_length) % spacing == (i / row_length) % spacing;
                values[i] =
                    may_be_nonzero
                        ? static_cast<float>(static_cast<int>(cudatutorial::bounded(bits, 3)) - 1)
                        : 0.0f;
                continue;
            }
            // Box-Muller from two 32-bit uniforms of one hash: (0, 1] and [0, 1).
            const double u1 = (static_cast<double>(bits >> 32) + 1.0) / 4294967296.0;
            const double u2 = static_cast<double>(bits & 0xFFFFFFFFu) / 4294967296.0;
            values[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) *
                                           std::cos(6.283185307179586 * u2));
        }
    });
    return values;
}

std::vector<float> round_to_bf16(const std::vector<float>& values) {
    std::vector<float> rounded(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        rounded[i] = __bfloat162float(__float2bfloat16_rn(values[i]));
    }
    return rounded;
}

ReferenceElement reference_element(const float* a, const float* b, const Shape& shape,
                                   std::uint64_t row, std::uint64_t col) {
    double sum = 0.0;
    double squares = 0.0;
    for (std::uint64_t i = 0; i < shape.k; ++i) {
        const double product =
            static_cast<double>(a[row * shape.k + i]) * static_cast<double>(b[i * shape.n + col]);
        sum += product;
        squares += product * product;
    }
    return {sum, std::sqrt(squares)};
}

void reference_product(const float* a, const float* b, const Shape& shape,
                       std::vector<double>& value, std::vector<double>& scale) {
    const std::size_t count = static_cast<std::size_t>(shape.m * shape.n);
    value.assign(count, 0.0);
    scale.assign(count, 0.0);
    cudatutorial::parallel_for_ranges(count, [&](std::size_t begin, std::size_t end) {
        for (std::size_t e = begin; e < end; ++e) {
            const ReferenceElement element =
                reference_element(a, b, shape, e / shape.n, e % shape.n);
            value[e] = element.value;
            scale[e] = element.scale;
        }
    });
}

void validate_shape(const Shape& shape) {
    const auto check = [](std::uint64_t value, const char* name) {
        if (value < 1 || value > kMaxDimension) {
            throw std::invalid_argument(std::string(name) + " must be between 1 and 2^20; got " +
                                        std::to_string(value));
        }
    };
    check(shape.m, "m");
    check(shape.n, "n");
    check(shape.k, "k");
}

}  // namespace matmul
