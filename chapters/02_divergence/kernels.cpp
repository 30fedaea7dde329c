// The list of short-branch kernels (one row each in the table), and the names of the recorded
// branches. The same list drives the executable and the tests.
#include "divergence.hpp"

namespace divergence {

namespace {
const char* const kWarpParity = "(tid / warpSize) % 2 == 0";
const char* const kLaneParity = "tid % 2 == 0";
const char* const kIpred = "ipred = (tid % 2 == 0); if (ipred) ..; if (!ipred) ..";
const char* const kFixedMask = "((tid >> 5) & 0x01) == 0";
const char* const kTextbookMask = "(tid >> 5) & 0x01 == 0";
}  // namespace

const std::vector<ShortKernel>& short_kernels() {
    static const std::vector<ShortKernel> kernels = {
        {{"0", "warmup",
          "the warp-aligned branch run first, so that module loading and clock ramp-up fall on "
          "no kernel that is compared"},
         kWarpParity,
         Condition::kWarpAligned,
         Recorded::kWarpAligned,
         launch_warmup},
        {{"1", "even_odd_divergent",
          "even and odd lanes of every warp take different paths: divergence in every warp"},
         kLaneParity,
         Condition::kEvenOdd,
         Recorded::kEvenOdd,
         launch_even_odd_divergent},
        {{"2", "warp_aligned", "whole warps take one path each: the same work, no divergence"},
         kWarpParity,
         Condition::kWarpAligned,
         Recorded::kWarpAligned,
         launch_warp_aligned},
        {{"3", "predicated_ipred",
          "the condition kept in a variable, as the textbook's mathKernel3: both values "
          "computed, one selected"},
         kIpred,
         Condition::kEvenOdd,
         Recorded::kPredicated,
         launch_predicated_ipred},
        {{"4", "warp_bitmask_fixed",
          "the textbook's warp test written as (itid & 0x01) == 0, as it meant to be"},
         kFixedMask,
         Condition::kWarpAligned,
         Recorded::kFixedBitmask,
         launch_warp_bitmask_fixed},
        {{"4t", "warp_bitmask_textbook (bug)",
          "the textbook's itid & 0x01 == 0 parses as itid & (0x01 == 0) = itid & 0, never "
          "true, so every thread writes the else value",
          cudatutorial::StageRole::kExpectedFailure},
         kTextbookMask,
         Condition::kWarpAligned,
         Recorded::kTextbookBitmask,
         launch_warp_bitmask_textbook},
    };
    return kernels;
}

const std::vector<LongKernel>& long_kernels() {
    static const std::vector<LongKernel> kernels = {
        {{"5a", "long_even_odd_divergent",
          "long branch bodies, lanes of every warp split between them: each warp runs both"},
         "tid % 2 == 0",
         Condition::kEvenOdd,
         Recorded::kEvenOdd,
         launch_long_even_odd_divergent},
        {{"5b", "long_warp_aligned",
          "the same long bodies split between whole warps: each warp runs one of them"},
         "(tid / warpSize) % 2 == 0",
         Condition::kWarpAligned,
         Recorded::kWarpAligned,
         launch_long_warp_aligned},
    };
    return kernels;
}

std::string recorded_name(Recorded which) {
    switch (which) {
        case Recorded::kEvenOdd:
            return "even_odd_divergent";
        case Recorded::kWarpAligned:
            return "warp_aligned (and warmup)";
        case Recorded::kPredicated:
            return "predicated_ipred";
        case Recorded::kFixedBitmask:
            return "warp_bitmask_fixed";
        case Recorded::kTextbookBitmask:
            return "warp_bitmask_textbook (bug)";
    }
    return {};
}

std::string recorded_branch(Recorded which) {
    switch (which) {
        case Recorded::kEvenOdd:
            return kLaneParity;
        case Recorded::kWarpAligned:
            return kWarpParity;
        case Recorded::kPredicated:
            return kIpred;
        case Recorded::kFixedBitmask:
            return kFixedMask;
        case Recorded::kTextbookBitmask:
            return kTextbookMask;
    }
    return {};
}

std::string profiling_help(const std::string& program) {
    const std::string run = program + " --section timing --reps 1 --warmup 0";
    return "Profiling warp divergence with Nsight Compute (ncu)\n"
           "\n"
           "nvprof's branch_efficiency and warp_execution_efficiency (the textbook's metrics) "
           "are,\n"
           "in ncu (checked with ncu --query-metrics on an H100):\n"
           "\n"
           "  branch_efficiency          smsp__sass_average_branch_targets_threads_uniform.pct\n"
           "                             (% of executed branches whose active threads all went\n"
           "                             the same way)\n"
           "  divergent branches         smsp__sass_branch_targets_threads_divergent.sum\n"
           "  warp_execution_efficiency  smsp__thread_inst_executed_per_inst_executed.ratio\n"
           "                             (active threads per executed instruction, 0-32; as a\n"
           "                             percentage: ratio / 32)\n"
           "  (kernel time)              gpu__time_duration.sum\n"
           "\n"
           "Every kernel of the timing table, once validated and once timed (--reps 1 --warmup "
           "0);\n"
           "--section timing leaves out the instrumented recorder kernels; --clock-control none\n"
           "keeps the normal clocks so that durations compare with the table's:\n"
           "  ncu --clock-control none --metrics "
           "smsp__sass_average_branch_targets_threads_uniform.pct,"
           "smsp__sass_branch_targets_threads_divergent.sum,"
           "smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \\\n"
           "      " +
           run +
           "\n"
           "\n"
           "One kernel only (-k takes a regular expression over kernel names):\n"
           "  ncu --clock-control none -k regex:long_even_odd --metrics "
           "smsp__thread_inst_executed_per_inst_executed.ratio " +
           run +
           "\n"
           "\n"
           "The compiled code itself (is there a branch at all, or a select?):\n"
           "  cuobjdump -sass build/chapters/02_divergence/libdivergence_kernels.a | c++filt\n"
           "  (look for BRA between the condition and the store, or for a SEL/FSEL choosing\n"
           "  between 100 and 200)\n";
}

}  // namespace divergence
