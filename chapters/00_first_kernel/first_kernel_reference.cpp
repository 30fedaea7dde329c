// Chapter 0's CPU side: the references every stage is checked against, the canary check, and
// the launch arithmetic (host only).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "cudatutorial/data.hpp"
#include "cudatutorial/errors.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace ct = cudatutorial;

unsigned blocks_for(std::size_t n, int block) {
    const std::size_t blocks = (n + static_cast<std::size_t>(block) - 1) / block;
    // gridDim.x may be up to 2^31 - 1 on every GPU CUDA 13 supports.
    if (blocks > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        throw ct::UsageError("n = " + std::to_string(n) + " needs " + std::to_string(blocks) +
                             " blocks of " + std::to_string(block) +
                             " threads: more than a grid may have (2^31 - 1)");
    }
    return static_cast<unsigned>(std::max<std::size_t>(blocks, 1));
}

int grid_stride_default_grid(std::size_t n, int block, int sm_count, int max_threads_per_sm) {
    const long long resident =
        static_cast<long long>(sm_count) * std::max(1, max_threads_per_sm / std::max(1, block));
    return static_cast<int>(
        std::max<long long>(1, std::min<long long>(resident, blocks_for(n, block))));
}

namespace {

template <typename T>
bool is_poison(const T& value) {
    unsigned char poison[sizeof(T)];
    std::memset(poison, 0xff, sizeof poison);
    return std::memcmp(&value, poison, sizeof poison) == 0;
}

template <typename T>
std::size_t first_touched(const std::vector<T>& host, std::size_t n) {
    for (std::size_t i = n; i < host.size(); ++i) {
        if (!is_poison(host[i])) {
            return i;
        }
    }
    return host.size();
}

template <typename T>
ct::Verification canary_verdict(const std::vector<T>& out, std::size_t n) {
    const std::size_t touched = first_touched(out, n);
    if (touched == out.size()) {
        return ct::Verification::pass();
    }
    const auto written = std::count_if(out.begin() + static_cast<std::ptrdiff_t>(n), out.end(),
                                       [](const T& value) { return !is_poison(value); });
    return ct::Verification::fail("wrote past the end of the array: " + std::to_string(written) +
                                  " of the " + std::to_string(out.size() - n) +
                                  " canary elements behind element n - 1 changed, the "
                                  "first at index " +
                                  std::to_string(touched) + " (n = " + std::to_string(n) + ")");
}

}  // namespace

std::size_t first_touched_canary(const std::vector<float>& host, std::size_t n) {
    return first_touched(host, n);
}

std::size_t first_touched_canary(const std::vector<int>& host, std::size_t n) {
    return first_touched(host, n);
}

ct::Verification verify_vector_add(const std::vector<float>& a, const std::vector<float>& b,
                                   const std::vector<float>& c, std::size_t n) {
    if (a.size() < n || b.size() < n || c.size() < n) {
        return ct::Verification::fail("arrays shorter than n");
    }
    for (std::size_t i = 0; i < n; ++i) {
        // One IEEE single-precision add, rounded to nearest on the CPU as on the GPU: the sums
        // must agree bit for bit (a NaN left by an element never written cannot compare equal).
        const float expected = a[i] + b[i];
        if (std::memcmp(&expected, &c[i], sizeof(float)) != 0) {
            return ct::Verification::fail("c[" + std::to_string(i) + "] = " + std::to_string(c[i]) +
                                          ", expected " + std::to_string(expected) +
                                          " (a[i] + b[i])");
        }
    }
    return canary_verdict(c, n);
}

std::vector<int> make_stencil_input(std::size_t n, std::uint64_t seed) {
    return ct::random_ints(n, seed, -1000, 1000);
}

std::vector<int> stencil_reference(const std::vector<int>& in, int radius) {
    const long long n = static_cast<long long>(in.size());
    std::vector<int> out(in.size());
    // A running window sum: O(n) however large the radius.
    long long window = 0;
    for (long long k = 0; k <= std::min<long long>(radius, n - 1); ++k) {
        window += in[static_cast<std::size_t>(k)];
    }
    for (long long i = 0; i < n; ++i) {
        out[static_cast<std::size_t>(i)] = static_cast<int>(window);
        const long long entering = i + radius + 1;
        const long long leaving = i - radius;
        if (entering < n) {
            window += in[static_cast<std::size_t>(entering)];
        }
        if (leaving >= 0) {
            window -= in[static_cast<std::size_t>(leaving)];
        }
    }
    return out;
}

ct::Verification verify_stencil(const std::vector<int>& expected, const std::vector<int>& out) {
    const std::size_t n = expected.size();
    if (out.size() < n) {
        return ct::Verification::fail("output shorter than n");
    }
    std::size_t wrong = 0;
    std::size_t first = n;
    for (std::size_t i = 0; i < n; ++i) {
        if (out[i] != expected[i]) {
            wrong += 1;
            first = std::min(first, i);
        }
    }
    if (wrong > 0) {
        return ct::Verification::fail(std::to_string(wrong) + " of " + std::to_string(n) +
                                      " outputs wrong; the first: out[" + std::to_string(first) +
                                      "] = " + std::to_string(out[first]) + ", expected " +
                                      std::to_string(expected[first]));
    }
    return canary_verdict(out, n);
}

ct::Verification verify_index_map(const std::vector<ThreadRecord>& records,
                                  const std::vector<int>& out, int grid, int block, int n) {
    if (records.size() != static_cast<std::size_t>(grid) * block ||
        out.size() != static_cast<std::size_t>(n)) {
        return ct::Verification::fail("wrong number of records");
    }
    for (int b = 0; b < grid; ++b) {
        for (int t = 0; t < block; ++t) {
            const ThreadRecord& r = records[static_cast<std::size_t>(b) * block + t];
            const unsigned long long i = static_cast<unsigned long long>(b) * block + t;
            if (r.block != static_cast<unsigned>(b) || r.thread != static_cast<unsigned>(t) ||
                r.block_dim != static_cast<unsigned>(block) || r.i != i ||
                r.wrote != (i < static_cast<unsigned long long>(n))) {
                return ct::Verification::fail("record of block " + std::to_string(b) + ", thread " +
                                              std::to_string(t) +
                                              " does not match blockIdx.x * blockDim.x + "
                                              "threadIdx.x and the guard");
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        if (out[static_cast<std::size_t>(i)] != i) {
            return ct::Verification::fail("out[" + std::to_string(i) + "] = " +
                                          std::to_string(out[static_cast<std::size_t>(i)]) +
                                          ", expected " + std::to_string(i));
        }
    }
    return ct::Verification::pass();
}

}  // namespace first_kernel
