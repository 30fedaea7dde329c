// The scaling section's table as `execution_model --section scaling` shows it: run_sm_scaling()
// with what was run in its header, and Little's law read off its rows as the table's notes. The
// executable prints it and writes its files (cudatutorial::TableRun, in the cli layer, which
// this kernel library does not link).
#include <ostream>
#include <utility>

#include "cudatutorial/report.hpp"
#include "sm_scaling.hpp"

namespace execution_model {

namespace ct = cudatutorial;

std::optional<ScalingTable> sm_scaling_table(std::ostream& out, const ct::DeviceInfo& device,
                                             const ct::BenchmarkConfig& timing,
                                             const std::string& timing_text) {
    const ScalingConfig config;
    const ScalingResult result = run_sm_scaling(config, device, timing);
    if (!result.skipped.empty()) {
        out << "== Transparent scalability: skipped, no green context could be made on this "
               "device ==\n"
            << result.skipped << "\n";
        return std::nullopt;
    }
    ct::RunInfo run =
        ct::make_run_info("execution_model",
                          "transparent scalability: the same two grids on partitions of the SMs "
                          "(green contexts)",
                          device);
    run.set("partitions", "green contexts; minimum " + std::to_string(result.sm.min_partition) +
                              " SMs, alignment " + std::to_string(result.sm.alignment) +
                              " (from the driver)");
    const BlockShape grid = grid_for(config.nx, config.ny, config.block);
    run.set("sum_matrix_2d",
            std::to_string(config.nx) + " x " + std::to_string(config.ny) + " floats, block " +
                config.block.to_string() + ", grid " + grid.to_string() + ", " +
                ct::format_bytes(matrix_sum_bytes(config.nx, config.ny)) + " per run");
    const double fma_per_thread =
        static_cast<double>(kScalingFmaChains) * kScalingFmaUnroll * config.fma_trips;
    run.set("fma_chains", std::to_string(config.fma_waves) + " waves of the full GPU x " +
                              std::to_string(config.fma_threads) + " threads, " +
                              ct::format_fixed(fma_per_thread, 0) + " FMAs per thread (" +
                              std::to_string(kScalingFmaChains) + " independent chains)");
    run.set("SMs seen",
            "distinct %smid recorded by the blocks (sum_matrix_2d: a census kernel "
            "with its grid, on the same stream)");
    run.set("timing", timing_text);
    return ScalingTable{std::move(run), result.rows, sm_scaling_notes(result)};
}

}  // namespace execution_model
