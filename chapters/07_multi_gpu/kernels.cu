// The few kernels chapter 7 needs besides chapters 3 and 5's: element-wise sums of many sources,
// whose inputs may live on other GPUs (the add of two, stage 3's, is in its stage file). A load
// from a peer GPU's memory is an ordinary global load; the address says which GPU answers (unified
// virtual addressing), and with peer access enabled the SM's request travels over NVLink or PCIe
// instead of to local DRAM. Nothing else changes in the code.
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "elementwise_launch.hpp"
#include "multi_gpu.hpp"

namespace multi_gpu::detail {
namespace {

constexpr int kThreads = kElementwiseThreads;
constexpr int kMaxParts = 16;

template <typename T>
struct Parts {
    const T* pointer[kMaxParts];
};

__global__ void sum_words_kernel(Parts<unsigned int> sources, int parts, unsigned int* dst,
                                 std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        unsigned int sum = 0;  // unsigned: wraps modulo 2^32, the chapters' sum semantics
        for (int p = 0; p < parts; ++p) {
            sum += sources.pointer[p][i];
        }
        dst[i] = sum;
    }
}

__global__ void sum_float4_kernel(Parts<float4> sources, int parts, float4* dst,
                                  std::size_t vectors) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < vectors;
         i += std::size_t{gridDim.x} * blockDim.x) {
        float4 sum = sources.pointer[0][i];
        for (int p = 1; p < parts; ++p) {
            const float4 v = sources.pointer[p][i];
            sum = make_float4(sum.x + v.x, sum.y + v.y, sum.z + v.z, sum.w + v.w);
        }
        dst[i] = sum;
    }
}

__global__ void sum_float_kernel(Parts<float> sources, int parts, float* dst, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        float sum = sources.pointer[0][i];
        for (int p = 1; p < parts; ++p) {
            sum += sources.pointer[p][i];
        }
        dst[i] = sum;
    }
}

void require_parts(int parts) {
    if (parts < 1 || parts > kMaxParts) {
        throw std::invalid_argument("sum kernels take 1 to 16 sources");
    }
}

}  // namespace

void launch_sum_words(const unsigned int* const* sources, int parts, unsigned int* dst,
                      std::size_t count, cudaStream_t stream) {
    require_parts(parts);
    if (count == 0) {
        return;
    }
    Parts<unsigned int> p{};
    std::copy(sources, sources + parts, p.pointer);
    sum_words_kernel<<<blocks_for(count), kThreads, 0, stream>>>(p, parts, dst, count);
    CT_CHECK_LAUNCH();
}

void launch_sum_floats(const float* const* sources, int parts, float* dst, std::size_t count,
                       cudaStream_t stream) {
    require_parts(parts);
    if (count == 0) {
        return;
    }
    bool vectorizable = aligned16(dst);
    for (int p = 0; p < parts; ++p) {
        vectorizable = vectorizable && aligned16(sources[p]);
    }
    const std::size_t vectors = vectorizable ? count / 4 : 0;
    if (vectors > 0) {
        Parts<float4> p4{};
        for (int p = 0; p < parts; ++p) {
            p4.pointer[p] = reinterpret_cast<const float4*>(sources[p]);
        }
        sum_float4_kernel<<<blocks_for(vectors), kThreads, 0, stream>>>(
            p4, parts, reinterpret_cast<float4*>(dst), vectors);
        CT_CHECK_LAUNCH();
    }
    const std::size_t done = vectors * 4;
    if (done < count) {
        Parts<float> p1{};
        for (int p = 0; p < parts; ++p) {
            p1.pointer[p] = sources[p] + done;
        }
        sum_float_kernel<<<blocks_for(count - done), kThreads, 0, stream>>>(p1, parts, dst + done,
                                                                            count - done);
        CT_CHECK_LAUNCH();
    }
}

}  // namespace multi_gpu::detail
