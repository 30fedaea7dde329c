// The block-shape sweep of the 2D matrix sum, and its CPU check: one result row per shape.
#include <algorithm>
#include <limits>
#include <mutex>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/table_run.hpp"
#include "execution_model.hpp"

namespace execution_model {

namespace ct = cudatutorial;

ct::Verification verify_matrix_sum(const float* a, const float* b, const float* c, int nx, int ny) {
    const std::size_t n = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
    std::size_t first_bad = std::numeric_limits<std::size_t>::max();
    std::size_t bad_count = 0;
    std::mutex mutex;
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        std::size_t local_first = std::numeric_limits<std::size_t>::max();
        std::size_t local_count = 0;
        for (std::size_t i = begin; i < end; ++i) {
            // Exact comparison: one IEEE float addition rounds identically on CPU and GPU, and
            // a NaN (the poison an unwritten element keeps) never compares equal.
            if (!(c[i] == a[i] + b[i])) {
                local_first = std::min(local_first, i);
                ++local_count;
            }
        }
        const std::lock_guard<std::mutex> lock(mutex);
        first_bad = std::min(first_bad, local_first);
        bad_count += local_count;
    });
    if (bad_count == 0) {
        return ct::Verification::pass();
    }
    const std::size_t ix = first_bad % static_cast<std::size_t>(nx);
    const std::size_t iy = first_bad / static_cast<std::size_t>(nx);
    return ct::Verification::fail(std::to_string(bad_count) + " of " + std::to_string(n) +
                                  " elements wrong; first at (ix " + std::to_string(ix) + ", iy " +
                                  std::to_string(iy) + "): got " + std::to_string(c[first_bad]) +
                                  ", expected " + std::to_string(a[first_bad] + b[first_bad]));
}

namespace {

std::string shape_name(const BlockShape& shape) {
    return "(" + std::to_string(shape.x) + "," + std::to_string(shape.y) + ")";
}

// A grid over the device's grid limits is rejected too (e.g. ny / block.y > 65535).
std::string grid_problem(const BlockShape& grid, const ct::DeviceInfo& device) {
    if (grid.x > device.max_grid_dim[0] || grid.y > device.max_grid_dim[1]) {
        return "grid " + std::to_string(grid.x) + " x " + std::to_string(grid.y) +
               " is over this device's grid limits " + std::to_string(device.max_grid_dim[0]) +
               " x " + std::to_string(device.max_grid_dim[1]);
    }
    return {};
}

}  // namespace

void require_matrix_sum_memory(int nx, int ny) {
    ct::require_device_memory(matrix_sum_device_bytes(nx, ny), "the three " + std::to_string(nx) +
                                                                   " x " + std::to_string(ny) +
                                                                   " float matrices of the sweep");
}

void run_matrix_sum_sweep(ct::TableRun& table, int nx, int ny,
                          const std::vector<BlockShape>& shapes, const ct::DeviceInfo& device,
                          std::uint64_t seed) {
    const std::size_t n = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
    require_matrix_sum_memory(nx, ny);
    const std::vector<float> a = ct::random_floats(n, seed, -1.0f, 1.0f);
    const std::vector<float> b = ct::random_floats(n, seed + 1, -1.0f, 1.0f);
    ct::DeviceBuffer<float> d_a(a), d_b(b), d_c(n);
    ct::PinnedBuffer<float> result(n);  // pinned: the 2 x 15 result copies are the slow part

    ct::StageHooks hooks;
    hooks.poison = [&] { d_c.fill_bytes(0xff); };  // NaN everywhere: a skipped element fails
    hooks.verify = [&] {
        d_c.copy_to_host(result.data(), n);
        return verify_matrix_sum(a.data(), b.data(), result.data(), nx, ny);
    };
    hooks.bytes = ct::MemoryTraffic().reads<float>(2 * n).writes<float>(n);

    for (std::size_t s = 0; s < shapes.size(); ++s) {
        const BlockShape& shape = shapes[s];
        const BlockShape grid = grid_for(nx, ny, shape);
        const Occupancy occupancy = matrix_sum_occupancy(shape, device);
        std::string predicted = occupancy.why_not;
        if (predicted.empty()) {
            predicted = grid_problem(grid, device);
        }
        const ct::StageDescriptor stage{std::to_string(s + 1), "block " + shape_name(shape), ""};
        hooks.extras = [&](ct::ResultRow& row) {
            row.with("grid", std::to_string(grid.x) + " x " + std::to_string(grid.y));
            row.with("warps/block",
                     std::to_string(warps_per_block(shape, device.warp_size).warps));
            row.with("theor. occ.",
                     occupancy.launchable ? ct::format_fixed(occupancy.percent, 0) + "%" : "-");
            row.with("limited by", occupancy.launchable ? occupancy.limited_by : "not launchable");
        };
        hooks.launch = [&](cudaStream_t stream) {
            sum_matrix_2d(d_a.data(), d_b.data(), d_c.data(), nx, ny, shape, stream);
        };
        try {
            // The first run is validated before any timing: a rejected launch throws there.
            table.run(stage, hooks);
        } catch (const ct::CudaError& error) {
            // A rejected launch configuration is not sticky: the context stays usable, so the
            // sweep reports the error in this row and goes on. Any other error is fatal.
            if (error.code() != cudaErrorInvalidConfiguration &&
                error.code() != cudaErrorInvalidValue) {
                throw;
            }
            const std::string rejected = std::string("launch rejected: ") +
                                         cudaGetErrorName(error.code()) + " (" +
                                         cudaGetErrorString(error.code()) + ")";
            if (predicted.empty()) {
                table.could_not_run(stage, rejected + ", which this program did not predict",
                                    hooks.extras);
            } else {
                table.skip(stage, rejected + ": " + predicted, hooks.extras);
            }
        }
    }
}

}  // namespace execution_model
