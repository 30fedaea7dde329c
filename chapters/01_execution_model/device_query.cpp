#include "device_query.hpp"

#include "cudatutorial/report.hpp"

namespace execution_model {

namespace ct = cudatutorial;

std::vector<QueryLine> device_query_lines(const ct::DeviceInfo& d) {
    const auto bytes = [](double b) { return ct::format_bytes(b); };
    const auto number = [](long long v) { return std::to_string(v); };
    const auto dims = [](const int(&v)[3]) {
        return std::to_string(v[0]) + " x " + std::to_string(v[1]) + " x " + std::to_string(v[2]);
    };
    const auto known = [](int v, const std::string& text) { return v > 0 ? text : "unknown"; };
    return {
        {"name", d.name, ""},
        {"compute capability", d.compute_capability(), ""},
        {"streaming multiprocessors (SMs)", number(d.sm_count), ""},
        {"warp size", number(d.warp_size), "threads"},
        {"max threads per block", number(d.max_threads_per_block), ""},
        {"max block dimensions", dims(d.max_block_dim), "x, y, z"},
        {"max grid dimensions", dims(d.max_grid_dim), "x, y, z"},
        {"max threads per SM", number(d.max_threads_per_sm), ""},
        {"max warps per SM", number(d.max_warps_per_sm), "threads per SM / warp size"},
        {"max blocks per SM", number(d.max_blocks_per_sm), ""},
        {"FP32 cores per SM", "unknown",
         "the runtime does not report it; the latency section measures FMAs per cycle instead"},
        {"shared memory per block", bytes(static_cast<double>(d.shared_mem_per_block)),
         "default limit"},
        {"shared memory per block (opt-in)",
         bytes(static_cast<double>(d.shared_mem_per_block_optin)),
         "with cudaFuncAttributeMaxDynamicSharedMemorySize"},
        {"shared memory per SM", bytes(static_cast<double>(d.shared_mem_per_sm)), ""},
        {"registers per block", number(d.registers_per_block), "32-bit"},
        {"registers per SM", number(d.registers_per_sm), "32-bit"},
        {"constant memory", bytes(static_cast<double>(d.constant_memory)), ""},
        {"global memory", bytes(static_cast<double>(d.global_memory)), ""},
        {"L2 cache", bytes(d.l2_cache_bytes), ""},
        {"SM clock", known(d.sm_clock_khz, ct::format_fixed(d.sm_clock_khz / 1e3, 0) + " MHz"),
         "cudaDevAttrClockRate (removed from cudaDeviceProp in CUDA 13)"},
        {"memory clock",
         known(d.memory_clock_khz, ct::format_fixed(d.memory_clock_khz / 1e3, 0) + " MHz"),
         "cudaDevAttrMemoryClockRate"},
        {"memory bus width",
         known(d.memory_bus_width_bits, number(d.memory_bus_width_bits) + " bit"),
         "cudaDevAttrGlobalMemoryBusWidth"},
        {"theoretical DRAM bandwidth",
         known(d.memory_clock_khz * d.memory_bus_width_bits > 0 ? 1 : 0,
               ct::format_fixed(d.theoretical_bandwidth_gbs(), 0) + " GB/s"),
         "2 x memory clock x bus width / 8"},
        {"concurrent kernels", d.concurrent_kernels ? "yes" : "no", ""},
        {"copy engines", number(d.async_engine_count), "copies that overlap kernels"},
        {"CUDA runtime", ct::cuda_version_string(d.runtime_version), ""},
        {"CUDA driver", ct::cuda_version_string(d.driver_version), "highest version supported"},
    };
}

}  // namespace execution_model
