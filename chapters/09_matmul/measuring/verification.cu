// The FP64 reference product on the GPU and the element-by-element comparison with it
// (verification.hpp says why and how).
#include "verification.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"

namespace matmul {
namespace {

/// One thread per element, threadIdx.x along a row of C (coalesced reads of B): the product
/// and the scale of its tolerance, in FP64.
__global__ void reference_product_fp64(const float* a, const float* b, double* value, double* scale,
                                       std::uint64_t m, std::uint64_t n, std::uint64_t k) {
    const std::uint64_t col = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
    const std::uint64_t row = blockIdx.y * std::uint64_t{blockDim.y} + threadIdx.y;
    if (row >= m || col >= n) {
        return;
    }
    double sum = 0.0;
    double squares = 0.0;
    for (std::uint64_t i = 0; i < k; ++i) {
        const double product = static_cast<double>(a[row * k + i]) * b[i * n + col];
        sum += product;
        squares += product * product;
    }
    value[row * n + col] = sum;
    scale[row * n + col] = sqrt(squares);
}

struct CompareResult {
    unsigned long long mismatches;
    unsigned long long first;
    unsigned long long worst_ratio_bits;  // a non-negative double's bits order like the double
};

__host__ __device__ double as_double(float x) {
    return x;
}
__host__ __device__ double as_double(__nv_bfloat16 x) {
    return __bfloat162float(x);
}

/// An output of type T (float or BF16) against the FP64 reference. A BF16 output is compared
/// with the reference rounded to BF16 (through FP32: exact for the integer inputs, whose sums are
/// integers below 2^24) when exact, and is allowed BF16's rounding, 2^-8 of the value, on top of
/// the tolerance otherwise.
template <class T>
__global__ void compare_with_reference(const T* c, const double* value, const double* scale,
                                       std::uint64_t count, bool exact, double tolerance,
                                       CompareResult* result) {
    constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
    const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
    double worst = 0.0;
    for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
         i += stride) {
        const double got = as_double(c[i]);
        const double error = fabs(got - value[i]);
        const double want =
            kBf16 ? as_double(__float2bfloat16_rn(static_cast<float>(value[i]))) : value[i];
        const double allowed = tolerance * scale[i] + (kBf16 ? ldexp(fabs(value[i]), -8) : 0.0);
        // Written so that a NaN (a poisoned element nobody wrote) is a mismatch too.
        const bool ok = exact ? got == want : error <= allowed;
        if (scale[i] > 0.0 && error == error) {
            worst = fmax(worst, error / scale[i]);
        } else if (!ok) {
            worst = INFINITY;
        }
        if (!ok) {
            atomicAdd(&result->mismatches, 1ull);
            atomicMin(&result->first, static_cast<unsigned long long>(i));
        }
    }
    atomicMax(&result->worst_ratio_bits,
              static_cast<unsigned long long>(__double_as_longlong(worst)));
}

double element_on_host(const double* device, std::uint64_t index) {
    double value = 0;
    CT_CHECK(cudaMemcpy(&value, device + index, sizeof value, cudaMemcpyDeviceToHost));
    return value;
}

}  // namespace

double fp32_tolerance(std::uint64_t k) {
    return 16.0 * std::ldexp(1.0, -24) * (std::sqrt(static_cast<double>(k)) + 8.0);
}

double tf32_tolerance(std::uint64_t k) {
    return std::ldexp(1.0, -7) + fp32_tolerance(k);
}

double tolerance_for(Precision precision, std::uint64_t k) {
    return precision == Precision::kTf32 ? tf32_tolerance(k) : fp32_tolerance(k);
}

std::string Comparison::describe(const Shape& shape, bool exact) const {
    if (passed()) {
        return "";
    }
    std::ostringstream out;
    out << mismatches << " of " << checked << " elements differ; first at (" << first / shape.n
        << ", " << first % shape.n << "): got " << got << ", expected " << want;
    if (!exact) {
        out << "; worst error " << worst_ratio << " x scale";
    }
    return out.str();
}

DeviceReference::DeviceReference(const float* d_a, const float* d_b, const Shape& shape)
    : shape_(shape) {
    const std::size_t count = shape.m * shape.n;
    CT_CHECK(cudaMalloc(&value_, count * sizeof(double)));
    CT_CHECK(cudaMalloc(&scale_, count * sizeof(double)));
    CT_CHECK(cudaMalloc(&result_, sizeof(CompareResult)));
    const dim3 block(32, 8);
    const dim3 grid(static_cast<unsigned>((shape.n + 31) / 32),
                    static_cast<unsigned>((shape.m + 7) / 8));
    reference_product_fp64<<<grid, block>>>(d_a, d_b, value_, scale_, shape.m, shape.n, shape.k);
    CT_CHECK_LAUNCH();
    CT_CHECK(cudaDeviceSynchronize());
}

DeviceReference::~DeviceReference() {
    cudaFree(value_);
    cudaFree(scale_);
    cudaFree(result_);
}

std::string DeviceReference::cpu_check_words() const {
    const double work = static_cast<double>(shape_.m) * shape_.n * shape_.k;
    return work <= static_cast<double>(kFullCpuCheckWork)
               ? std::string("every element")
               : std::to_string(kSampledElements) + " sampled elements";
}

std::string DeviceReference::check_against_cpu(const std::vector<float>& a,
                                               const std::vector<float>& b, bool exact) const {
    const std::uint64_t count = shape_.m * shape_.n;
    const double work = static_cast<double>(count) * shape_.k;
    std::vector<std::uint64_t> indices;
    if (work <= static_cast<double>(kFullCpuCheckWork)) {
        indices.resize(count);
        for (std::uint64_t i = 0; i < count; ++i) {
            indices[i] = i;
        }
    } else {
        indices = sampled_elements(shape_, kSampledElements);
    }
    std::vector<double> gpu(count <= indices.size() ? count : 0);
    if (!gpu.empty()) {
        CT_CHECK(cudaMemcpy(gpu.data(), value_, count * sizeof(double), cudaMemcpyDeviceToHost));
    }
    for (const std::uint64_t index : indices) {
        const ReferenceElement want =
            reference_element(a.data(), b.data(), shape_, index / shape_.n, index % shape_.n);
        const double got = gpu.empty() ? element_on_host(value_, index) : gpu[index];
        const bool ok =
            exact ? got == want.value : std::fabs(got - want.value) <= 1e-9 * want.scale;
        if (!ok) {
            std::ostringstream out;
            out << "the GPU's FP64 reference differs from the CPU at (" << index / shape_.n << ", "
                << index % shape_.n << "): " << got << " against " << want.value;
            return out.str();
        }
    }
    return "";
}

Comparison DeviceReference::compare(const float* d_c, bool exact, double tolerance) const {
    return compare_output(d_c, exact, tolerance);
}

Comparison DeviceReference::compare(const Bf16* d_c, bool exact, double tolerance) const {
    return compare_output(d_c, exact, tolerance);
}

template <class T>
Comparison DeviceReference::compare_output(const T* d_c, bool exact, double tolerance) const {
    const std::uint64_t count = shape_.m * shape_.n;
    const CompareResult start{0, ~0ull, 0};
    CT_CHECK(cudaMemcpy(result_, &start, sizeof start, cudaMemcpyHostToDevice));
    const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>((count + 255) / 256, 4096));
    compare_with_reference<<<grid, 256>>>(d_c, value_, scale_, count, exact, tolerance,
                                          static_cast<CompareResult*>(result_));
    CT_CHECK_LAUNCH();
    CompareResult found{};
    CT_CHECK(cudaMemcpy(&found, result_, sizeof found, cudaMemcpyDeviceToHost));
    Comparison comparison;
    comparison.checked = count;
    comparison.mismatches = found.mismatches;
    std::memcpy(&comparison.worst_ratio, &found.worst_ratio_bits, sizeof(double));
    if (found.mismatches > 0) {
        comparison.first = found.first;
        T got{};
        CT_CHECK(cudaMemcpy(&got, d_c + found.first, sizeof got, cudaMemcpyDeviceToHost));
        comparison.got = as_double(got);
        comparison.want = element_on_host(value_, found.first);
    }
    return comparison;
}

std::vector<std::uint64_t> sampled_elements(const Shape& shape, std::size_t count) {
    const std::uint64_t m = shape.m, n = shape.n, total = m * n;
    std::vector<std::uint64_t> picks = {0,           n - 1,
                                        (m - 1) * n, total - 1,
                                        (m / 2) * n, (m / 2) * n + n - 1,
                                        n / 2,       (m - 1) * n + n / 2};
    for (std::uint64_t i = 0; picks.size() < count; ++i) {
        picks.push_back(cudatutorial::hash64(0x5eed, i) % total);
    }
    picks.resize(count);
    return picks;
}

}  // namespace matmul
