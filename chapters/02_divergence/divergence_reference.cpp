// The CPU reference of every kernel in this chapter, written independently of the kernels, and
// the checks that compare the GPU's output with it element by element.
#include <algorithm>
#include <bitset>
#include <cstdio>
#include <limits>
#include <mutex>

#include "cudatutorial/data.hpp"
#include "divergence.hpp"

namespace divergence {

namespace ct = cudatutorial;

bool takes_if_path(Condition condition, std::uint64_t tid, int warp_size) {
    switch (condition) {
        case Condition::kEvenOdd:
            return tid % 2 == 0;
        case Condition::kWarpAligned:
            return (tid / static_cast<std::uint64_t>(warp_size)) % 2 == 0;
        case Condition::kNever:
            return false;
    }
    return false;
}

namespace {

// Finds the first index in [0, n) where `bad(i)` holds, on all host cores; n if none.
template <typename Bad>
std::size_t first_mismatch(std::size_t n, Bad bad, std::size_t* count) {
    std::size_t first = n;
    std::size_t total = 0;
    std::mutex mutex;
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        std::size_t local_first = n;
        std::size_t local_count = 0;
        for (std::size_t i = begin; i < end; ++i) {
            if (bad(i)) {
                local_first = std::min(local_first, i);
                ++local_count;
            }
        }
        const std::lock_guard<std::mutex> lock(mutex);
        first = std::min(first, local_first);
        total += local_count;
    });
    if (count) {
        *count = total;
    }
    return first;
}

}  // namespace

ct::Verification verify_short_branch(const std::vector<float>& c, Condition condition,
                                     int warp_size) {
    std::size_t count = 0;
    const std::size_t first = first_mismatch(
        c.size(), [&](std::size_t i) { return !(c[i] == expected_value(condition, i, warp_size)); },
        &count);
    if (first == c.size()) {
        return ct::Verification::pass();
    }
    return ct::Verification::fail(std::to_string(count) + " of " + std::to_string(c.size()) +
                                  " elements wrong; first c[" + std::to_string(first) +
                                  "] = " + std::to_string(c[first]) + ", expected " +
                                  std::to_string(expected_value(condition, first, warp_size)));
}

std::uint32_t long_input(std::uint32_t i) {
    return i * 2654435761u + 0x9E3779B9u;
}

std::uint32_t xorshift_step(std::uint32_t x, int a, int b, int c) {
    x ^= x << a;
    x ^= x >> b;
    x ^= x << c;
    return x;
}

namespace {

std::uint32_t xorshift_states(std::uint32_t tid, int work, int a, int b, int c) {
    std::uint32_t sum = 0;
    for (int k = 0; k < kLongStates; ++k) {
        std::uint32_t s = long_input(tid * kLongStates + static_cast<std::uint32_t>(k));
        for (int step = 0; step < work; ++step) {
            s = xorshift_step(s, a, b, c);
        }
        sum += s;
    }
    return sum;
}

}  // namespace

std::uint32_t long_path_a(std::uint32_t tid, int work) {
    return xorshift_states(tid, work, 13, 17, 5);
}

std::uint32_t long_path_b(std::uint32_t tid, int work) {
    return xorshift_states(tid, work, 5, 17, 13);
}

LongReference long_reference(int n, int work) {
    LongReference reference;
    reference.path_a.resize(static_cast<std::size_t>(n));
    reference.path_b.resize(static_cast<std::size_t>(n));
    ct::parallel_for_ranges(static_cast<std::size_t>(n), [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            reference.path_a[i] = long_path_a(static_cast<std::uint32_t>(i), work);
            reference.path_b[i] = long_path_b(static_cast<std::uint32_t>(i), work);
        }
    });
    return reference;
}

ct::Verification verify_long_branch(const std::vector<std::uint32_t>& out,
                                    const LongReference& reference, Condition condition,
                                    int warp_size) {
    if (out.size() != reference.path_a.size()) {
        return ct::Verification::fail("output has " + std::to_string(out.size()) +
                                      " elements, the reference " +
                                      std::to_string(reference.path_a.size()));
    }
    const auto expected = [&](std::size_t i) {
        return takes_if_path(condition, i, warp_size) ? reference.path_a[i] : reference.path_b[i];
    };
    std::size_t count = 0;
    const std::size_t first = first_mismatch(
        out.size(), [&](std::size_t i) { return out[i] != expected(i); }, &count);
    if (first == out.size()) {
        return ct::Verification::pass();
    }
    return ct::Verification::fail(std::to_string(count) + " of " + std::to_string(out.size()) +
                                  " elements wrong; first out[" + std::to_string(first) +
                                  "] = " + std::to_string(out[first]) + ", expected " +
                                  std::to_string(expected(first)));
}

Condition condition_of(Recorded which) {
    switch (which) {
        case Recorded::kEvenOdd:
        case Recorded::kPredicated:
            return Condition::kEvenOdd;
        case Recorded::kWarpAligned:
        case Recorded::kFixedBitmask:
            return Condition::kWarpAligned;
        case Recorded::kTextbookBitmask:
            return Condition::kNever;
    }
    return Condition::kNever;
}

PathSummary summarize(const PathRecord& record) {
    PathSummary summary;
    summary.warps = static_cast<long long>(record.if_lanes.size());
    long long lanes = 0;
    for (std::size_t w = 0; w < record.if_lanes.size(); ++w) {
        if (record.if_lanes[w] != 0 && record.else_lanes[w] != 0) {
            ++summary.warps_on_both_paths;
        }
        summary.passes += record.if_passes[w] + record.else_passes[w];
        if (w < record.join_passes.size()) {
            summary.join_passes += record.join_passes[w];
        }
        lanes += std::bitset<32>(record.if_lanes[w]).count() +
                 std::bitset<32>(record.else_lanes[w]).count();
    }
    summary.lanes_per_pass =
        summary.passes > 0 ? static_cast<double>(lanes) / static_cast<double>(summary.passes) : 0;
    return summary;
}

ct::Verification verify_record(const PathRecord& record, Condition condition, int n) {
    const int warp_size = record.warp_size;
    const std::size_t warps = (static_cast<std::size_t>(n) + warp_size - 1) / warp_size;
    if (record.if_lanes.size() != warps || record.c.size() != static_cast<std::size_t>(n)) {
        return ct::Verification::fail("record has the wrong size");
    }
    for (std::size_t w = 0; w < warps; ++w) {
        std::uint32_t expected_if = 0;
        std::uint32_t expected_else = 0;
        for (int lane = 0; lane < warp_size; ++lane) {
            const std::uint64_t tid = w * warp_size + lane;
            if (tid >= static_cast<std::uint64_t>(n)) {
                break;
            }
            (takes_if_path(condition, tid, warp_size) ? expected_if : expected_else) |= 1u << lane;
        }
        if (record.if_lanes[w] != expected_if || record.else_lanes[w] != expected_else) {
            return ct::Verification::fail(
                "warp " + std::to_string(w) + ": if-path lanes " + mask_text(record.if_lanes[w]) +
                ", else-path lanes " + mask_text(record.else_lanes[w]) + "; expected " +
                mask_text(expected_if) + " and " + mask_text(expected_else));
        }
        if ((expected_if != 0) != (record.if_passes[w] > 0) ||
            (expected_else != 0) != (record.else_passes[w] > 0)) {
            return ct::Verification::fail("warp " + std::to_string(w) +
                                          ": a pass count disagrees with its lanes");
        }
        // Every lane passes the join, in at least one group and at most one group per lane.
        // How many groups is the hardware's and compiler's business, so it is reported, not
        // checked.
        if (w < record.join_passes.size() &&
            (record.join_passes[w] < 1 ||
             record.join_passes[w] > std::bitset<32>(expected_if | expected_else).count())) {
            return ct::Verification::fail("warp " + std::to_string(w) + ": " +
                                          std::to_string(record.join_passes[w]) +
                                          " groups at the join");
        }
    }
    return verify_short_branch(record.c, condition, warp_size);
}

std::string mask_text(std::uint32_t mask) {
    if (mask == 0) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "0x%08x (%zu)", mask, std::bitset<32>(mask).count());
    return text;
}

}  // namespace divergence
