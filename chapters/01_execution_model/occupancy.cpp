// Which resource limits how many blocks fit on an SM: the arithmetic behind the occupancy API,
// CPU only (the matrix-sum kernel's own figures come from matrix_sum.cu).
#include <algorithm>
#include <limits>

#include "cudatutorial/check.hpp"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

namespace {
constexpr int kUnlimited = std::numeric_limits<int>::max();
}  // namespace

OccupancyLimits occupancy_limits(const BlockShape& block, const KernelResources& resources,
                                 const ct::DeviceInfo& device) {
    const WarpCount warps = warps_per_block(block, device.warp_size);
    OccupancyLimits limits;
    limits.by_warps = warps.warps > 0 ? static_cast<int>(device.max_warps_per_sm / warps.warps) : 0;
    limits.by_blocks = device.max_blocks_per_sm;
    // Registers are allocated per warp, for all 32 lanes: idle lanes of the last warp cost too.
    const long long registers_per_block =
        static_cast<long long>(resources.registers_per_thread) * warps.slots;
    limits.by_registers = registers_per_block > 0
                              ? static_cast<int>(device.registers_per_sm / registers_per_block)
                              : kUnlimited;
    const std::size_t shared_per_block =
        resources.static_shared_bytes + resources.reserved_shared_bytes;
    limits.by_shared_memory = shared_per_block > 0
                                  ? static_cast<int>(device.shared_mem_per_sm / shared_per_block)
                                  : kUnlimited;
    return limits;
}

std::string limiting_resource(const OccupancyLimits& limits, int active_blocks) {
    std::string names;
    const auto add = [&](int limit, const char* name) {
        if (limit == active_blocks) {
            names += (names.empty() ? "" : " & ") + std::string(name);
        }
    };
    add(limits.by_warps, "warps");
    add(limits.by_blocks, "blocks");
    add(limits.by_registers, "registers");
    add(limits.by_shared_memory, "shared memory");
    if (names.empty()) {
        const int simple_min = std::min(
            {limits.by_warps, limits.by_blocks, limits.by_registers, limits.by_shared_memory});
        names = active_blocks < simple_min
                    ? "registers or shared memory (allocation granularity)"
                    : "unknown (the runtime allows more than the simple limits)";
    }
    return names;
}

std::string block_shape_problem(const BlockShape& block, const ct::DeviceInfo& device,
                                int kernel_max_threads) {
    const int extents[3] = {block.x, block.y, block.z};
    const char* axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
        if (extents[i] > device.max_block_dim[i]) {
            return std::string(axis[i]) + " = " + std::to_string(extents[i]) +
                   " is over this device's per-dimension limit " +
                   std::to_string(device.max_block_dim[i]);
        }
    }
    if (block.threads() > device.max_threads_per_block) {
        return std::to_string(block.threads()) + " threads is over this device's limit of " +
               std::to_string(device.max_threads_per_block) + " per block";
    }
    if (kernel_max_threads > 0 && block.threads() > kernel_max_threads) {
        return std::to_string(block.threads()) + " threads is over this kernel's limit of " +
               std::to_string(kernel_max_threads) + " per block (its register use)";
    }
    return {};
}

std::vector<BlockShape> textbook_block_shapes() {
    return {{32, 32}, {32, 16}, {16, 32}, {16, 16}, {64, 2},  {64, 4},  {64, 8}, {128, 1},
            {128, 2}, {128, 4}, {128, 8}, {256, 1}, {256, 2}, {256, 4}, {256, 8}};
}

std::vector<BlockShape> parse_block_list(const std::vector<std::string>& items) {
    std::vector<BlockShape> shapes;
    for (const auto& item : items) {
        // The items are separated by commas, so "--blocks 32,32" arrives here as "32" and "32":
        // without this check it would silently become two 32 x 1 shapes.
        if (item.find_first_of("xX") == std::string::npos) {
            throw ct::UsageError("--blocks '" + item +
                                 "': write every shape as XxY with an 'x' (e.g. 32x32 or 256x1); "
                                 "commas separate shapes, so '32,32' would be two shapes");
        }
        const BlockShape shape = parse_block_shape(item, "--blocks");
        if (shape.z != 1) {
            throw ct::UsageError("--blocks '" + item +
                                 "': the matrix sum uses 2D blocks, write XxY (e.g. 128x2)");
        }
        shapes.push_back(shape);
    }
    if (shapes.empty()) {
        throw ct::UsageError("--blocks: give at least one block shape, e.g. 32x32,128x2");
    }
    return shapes;
}

}  // namespace execution_model
