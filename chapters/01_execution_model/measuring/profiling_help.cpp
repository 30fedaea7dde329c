// --profile-help: the Nsight Compute commands that replace the textbook's nvprof metrics.
#include <sstream>

#include "execution_model.hpp"

namespace execution_model {

std::string profiling_help(const std::string& program) {
    const std::string sweep = program + " --section sweep --reps 1 --warmup 0";
    std::ostringstream out;
    out << "Profiling the matrix sum with Nsight Compute (ncu)\n"
        << "\n"
        << "nvprof, which the textbook uses, does not support compute capability 7.5 and later.\n"
        << "Its metrics have these Nsight Compute names (checked with ncu --query-metrics on an "
           "H100):\n"
        << "\n"
        << "  nvprof metric        ncu metric\n"
        << "  achieved_occupancy   sm__warps_active.avg.pct_of_peak_sustained_active\n"
        << "  gld_throughput       l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second\n"
        << "  gld_efficiency       smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct\n"
        << "  gld_transactions_per_request\n"
        << "                       "
           "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio\n"
        << "  dram_utilization     dram__throughput.avg.pct_of_peak_sustained_elapsed\n"
        << "  (kernel time)        gpu__time_duration.sum\n"
        << "\n"
        << "Latency hiding, per warp scheduler (4 per SM): warps it holds, warps eligible to "
           "issue in a cycle, and the share of cycles in which it issued:\n"
        << "  smsp__warps_active.avg.per_cycle_active\n"
        << "  smsp__warps_eligible.avg.per_cycle_active\n"
        << "  smsp__issue_active.avg.pct_of_peak_sustained_active\n"
        << "\n"
        << "--reps 1 --warmup 0 keeps the number of profiled launches small (each shape is still\n"
        << "launched twice: once to validate, once timed). --clock-control none leaves the GPU at\n"
        << "its normal clocks, so ncu's durations compare with this program's CUDA-event times\n"
        << "(by default ncu locks the clocks to base). -k regex:sum_matrix skips the other "
           "kernels.\n"
        << "\n"
        << "Achieved occupancy, one block shape (the textbook's nvprof --metrics "
           "achieved_occupancy):\n"
        << "  ncu --clock-control none -k regex:sum_matrix \\\n"
        << "      --metrics sm__warps_active.avg.pct_of_peak_sustained_active \\\n"
        << "      " << sweep << " --blocks 32x32\n"
        << "\n"
        << "Theoretical and achieved occupancy with the limit of each resource (registers,\n"
        << "shared memory, warps, blocks per SM), the ncu view of this program's occupancy "
           "section:\n"
        << "  ncu --clock-control none -k regex:sum_matrix --section Occupancy \\\n"
        << "      " << sweep << " --blocks 32x32,16x16\n"
        << "\n"
        << "Global load throughput and efficiency (gld_throughput, gld_efficiency):\n"
        << "  ncu --clock-control none -k regex:sum_matrix \\\n"
        << "      --metrics "
           "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,"
           "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,"
           "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio \\\n"
        << "      " << sweep << " --blocks 32x16,16x16\n"
        << "\n"
        << "Everything for the whole sweep, as CSV (what the chapter's deep dive's profile table was\n"
        << "made from):\n"
        << "  ncu --clock-control none -k regex:sum_matrix --csv --section Occupancy \\\n"
        << "      --metrics "
           "gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,"
           "sm__warps_active.avg.pct_of_peak_sustained_active,"
           "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,"
           "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct \\\n"
        << "      " << sweep << " > execution_model_ncu.csv\n"
        << "\n"
        << "Nsight Systems (nsys) shows the timeline of launches, not these counters.\n";
    return out.str();
}

}  // namespace execution_model
