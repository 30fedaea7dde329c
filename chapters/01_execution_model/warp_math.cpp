// Warps per block, the linearization of 2D/3D blocks, and parsing of block shapes: CPU only.
#include <algorithm>
#include <cctype>
#include <limits>

#include "cudatutorial/check.hpp"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

std::string BlockShape::to_string() const {
    if (z != 1) {
        return std::to_string(x) + " x " + std::to_string(y) + " x " + std::to_string(z);
    }
    if (y != 1) {
        return std::to_string(x) + " x " + std::to_string(y);
    }
    return std::to_string(x);
}

namespace {

// Splits "40,2" / "40x2" into its parts; empty parts are kept so that "40,,2" is rejected.
std::vector<std::string> split_extents(const std::string& text) {
    std::vector<std::string> parts(1);
    for (const char ch : text) {
        if (ch == ',' || ch == 'x' || ch == 'X') {
            parts.emplace_back();
        } else if (ch != ' ') {
            parts.back() += ch;
        }
    }
    return parts;
}

}  // namespace

BlockShape parse_block_shape(const std::string& text, const std::string& option) {
    const auto bad = [&](const std::string& why) {
        return ct::UsageError(
            option, "'" + text + "': " + why +
                        " (write X,Y,Z or XxY with positive integers, e.g. 40,2 or 8x8x4)");
    };
    const auto parts = split_extents(text);
    if (parts.size() > 3) {
        throw bad("at most three extents (x, y, z)");
    }
    int extents[3] = {1, 1, 1};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        if (part.empty() || part.size() > 9 || !std::all_of(part.begin(), part.end(), [](char ch) {
                return std::isdigit(static_cast<unsigned char>(ch));
            })) {
            throw bad("'" + part + "' is not a positive integer");
        }
        extents[i] = std::stoi(part);
        if (extents[i] < 1) {
            throw bad("every extent must be at least 1");
        }
    }
    return BlockShape{extents[0], extents[1], extents[2]};
}

WarpCount warps_per_block(const BlockShape& block, int warp_size) {
    WarpCount count;
    count.threads = block.threads();
    count.warps = (count.threads + warp_size - 1) / warp_size;
    count.slots = count.warps * warp_size;
    count.idle_lanes = count.slots - count.threads;
    return count;
}

std::vector<std::vector<WarpSegment>> warp_map(const BlockShape& block, int warp_size) {
    const WarpCount count = warps_per_block(block, warp_size);
    std::vector<std::vector<WarpSegment>> warps(static_cast<std::size_t>(count.warps));
    // Walk the threads in linear order; a new segment starts at each new warp or new row.
    for (long long linear = 0; linear < count.threads; ++linear) {
        const int x = static_cast<int>(linear % block.x);
        const int y = static_cast<int>((linear / block.x) % block.y);
        const int z = static_cast<int>(linear / (static_cast<long long>(block.x) * block.y));
        auto& segments = warps[static_cast<std::size_t>(linear / warp_size)];
        if (segments.empty() || segments.back().y != y || segments.back().z != z ||
            segments.back().x_end != x) {
            segments.push_back(WarpSegment{x, x + 1, y, z});
        } else {
            ++segments.back().x_end;
        }
    }
    return warps;
}

bool lanes_match_linearization(const BlockShape& block, const std::vector<LaneRecord>& records,
                               int warp_size, std::string* mismatch) {
    if (static_cast<long long>(records.size()) != block.threads()) {
        if (mismatch) {
            *mismatch = "expected " + std::to_string(block.threads()) + " records, got " +
                        std::to_string(records.size());
        }
        return false;
    }
    for (int z = 0; z < block.z; ++z) {
        for (int y = 0; y < block.y; ++y) {
            for (int x = 0; x < block.x; ++x) {
                const long long linear = linear_thread_index(block, x, y, z);
                const LaneRecord& r = records[static_cast<std::size_t>(linear)];
                const long long lane = linear % warp_size;
                if (r.lane != lane || r.warp_leader_linear != linear - lane) {
                    if (mismatch) {
                        *mismatch = "thread (" + std::to_string(x) + "," + std::to_string(y) + "," +
                                    std::to_string(z) + ") linear " + std::to_string(linear) +
                                    ": %laneid " + std::to_string(r.lane) + " (expected " +
                                    std::to_string(lane) + "), lane 0 of its warp is linear " +
                                    std::to_string(r.warp_leader_linear) + " (expected " +
                                    std::to_string(linear - lane) + ")";
                    }
                    return false;
                }
            }
        }
    }
    return true;
}

ArithmeticParallelism arithmetic_parallelism(double latency_cycles, double ops_per_cycle_per_sm,
                                             int warp_size) {
    ArithmeticParallelism p;
    p.operations_in_flight = required_parallelism(latency_cycles, ops_per_cycle_per_sm);
    p.warps_per_sm = p.operations_in_flight / warp_size;
    return p;
}

MemoryParallelism memory_parallelism(double latency_ns, double bandwidth_gbs,
                                     double bytes_per_thread, int sm_count, int warp_size) {
    MemoryParallelism p;
    // GB/s = 10^9 bytes per 10^9 ns = bytes per ns: ns x GB/s is bytes.
    p.bytes_in_flight = required_parallelism(latency_ns, bandwidth_gbs);
    p.threads = bytes_per_thread > 0 ? p.bytes_in_flight / bytes_per_thread : 0.0;
    p.warps = p.threads / warp_size;
    p.warps_per_sm = sm_count > 0 ? p.warps / sm_count : 0.0;
    return p;
}

}  // namespace execution_model
