// Which resource limits how many blocks fit on an SM: the arithmetic behind the occupancy API,
// in the units the hardware allocates, CPU only (the kernels' own figures and the runtime's
// answer come from matrix_sum.cu).
#include <algorithm>
#include <limits>

#include "cudatutorial/check.hpp"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

namespace {
constexpr int kUnlimited = std::numeric_limits<int>::max();

constexpr long long round_up(long long value, long long unit) {
    return unit > 0 ? (value + unit - 1) / unit * unit : value;
}
}  // namespace

AllocationUnits allocation_units(int cc_major) {
    // The runtime reports none of these. Source: the CUDA Occupancy Calculator and the toolkit's
    // cuda_occupancy.h, which hold them per compute capability; the values below are theirs for
    // cc 7.x to 12.x (registers: 256 per warp from cc 3.x on).
    AllocationUnits units;
    units.shared_memory_unit = cc_major >= 8 ? 128 : 256;
    return units;
}

int OccupancyLimits::modeled_blocks() const {
    return std::min({by_warps, by_blocks, by_registers, by_shared_memory});
}

OccupancyLimits occupancy_limits(const BlockShape& block, const KernelResources& resources,
                                 const ct::DeviceInfo& device) {
    const AllocationUnits units = allocation_units(device.cc_major);
    const WarpCount warps = warps_per_block(block, device.warp_size);
    OccupancyLimits limits;
    limits.by_warps = warps.warps > 0 ? static_cast<int>(device.max_warps_per_sm / warps.warps) : 0;
    limits.by_blocks = device.max_blocks_per_sm;

    if (resources.registers_per_thread <= 0) {
        limits.by_registers = kUnlimited;
    } else {
        // A warp's registers are allocated for all its lanes (idle lanes of a partial warp too),
        // in whole units: 12 registers x 32 lanes = 384 become 512.
        const long long per_warp =
            round_up(static_cast<long long>(resources.registers_per_thread) * device.warp_size,
                     units.registers_per_warp_unit);
        limits.registers_per_warp = static_cast<int>(per_warp);
        // Each scheduler (SM sub-partition) has its own quarter of the register file and holds
        // whole warps: what does not divide evenly is lost four times over.
        const long long per_scheduler = device.registers_per_sm / units.schedulers_per_sm;
        limits.warps_per_sm_by_registers =
            static_cast<int>(per_scheduler / per_warp) * units.schedulers_per_sm;
        // The launch check assumes a block's warps are spread over all schedulers, so it rounds
        // them up to a multiple of 4 against the per-block register limit.
        const long long assumed_per_block =
            per_warp * round_up(warps.warps, units.schedulers_per_sm);
        const bool block_fits = resources.registers_per_thread <= units.max_registers_per_thread &&
                                assumed_per_block <= device.registers_per_block &&
                                per_warp * warps.warps <= device.registers_per_block;
        limits.by_registers = block_fits && warps.warps > 0
                                  ? static_cast<int>(limits.warps_per_sm_by_registers / warps.warps)
                                  : 0;
    }

    const std::size_t shared_per_block = static_cast<std::size_t>(round_up(
        static_cast<long long>(resources.static_shared_bytes + resources.reserved_shared_bytes),
        units.shared_memory_unit));
    limits.by_shared_memory = shared_per_block > 0
                                  ? static_cast<int>(device.shared_mem_per_sm / shared_per_block)
                                  : kUnlimited;
    return limits;
}

int blocks_by_registers_without_units(const BlockShape& block, int registers_per_thread,
                                      const ct::DeviceInfo& device) {
    const long long per_block = static_cast<long long>(registers_per_thread) * block.threads();
    return per_block > 0 ? static_cast<int>(device.registers_per_sm / per_block) : kUnlimited;
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
        names = "none: the model disagrees with the runtime";
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
            throw ct::UsageError(
                "--blocks", "'" + item +
                                "': write every shape as XxY with an 'x' (e.g. 32x32 or 256x1); "
                                "commas separate shapes, so '32,32' would be two shapes");
        }
        const BlockShape shape = parse_block_shape(item, "--blocks");
        if (shape.z != 1) {
            throw ct::UsageError(
                "--blocks",
                "'" + item + "': the matrix sum uses 2D blocks, write XxY (e.g. 128x2)");
        }
        shapes.push_back(shape);
    }
    if (shapes.empty()) {
        throw ct::UsageError("--blocks", "give at least one block shape, e.g. 32x32,128x2");
    }
    return shapes;
}

}  // namespace execution_model
