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
        ShortKernel(
            "0", "warmup",
            "the warp-aligned branch run first, so that module loading and clock ramp-up fall on "
            "no kernel that is compared")
            .with_launcher(launch_warmup)
            .with(&KernelNeeds::branch, kWarpParity)
            .with(&KernelNeeds::condition, Condition::kWarpAligned)
            .with(&KernelNeeds::recorded, Recorded::kWarpAligned),
        ShortKernel(
            "1", "even_odd_divergent",
            "even and odd lanes of every warp take different paths: divergence in every warp")
            .with_launcher(launch_even_odd_divergent)
            .with(&KernelNeeds::branch, kLaneParity)
            .with(&KernelNeeds::condition, Condition::kEvenOdd)
            .with(&KernelNeeds::recorded, Recorded::kEvenOdd),
        ShortKernel("2", "warp_aligned",
                    "whole warps take one path each: the same work, no divergence")
            .with_launcher(launch_warp_aligned)
            .with(&KernelNeeds::branch, kWarpParity)
            .with(&KernelNeeds::condition, Condition::kWarpAligned)
            .with(&KernelNeeds::recorded, Recorded::kWarpAligned),
        ShortKernel("3", "predicated_ipred",
                    "the condition kept in a variable, as the textbook's mathKernel3: both values "
                    "computed, one selected")
            .with_launcher(launch_predicated_ipred)
            .with(&KernelNeeds::branch, kIpred)
            .with(&KernelNeeds::condition, Condition::kEvenOdd)
            .with(&KernelNeeds::recorded, Recorded::kPredicated),
        ShortKernel("4", "warp_bitmask_fixed",
                    "the textbook's warp test written as (itid & 0x01) == 0, as it meant to be")
            .with_launcher(launch_warp_bitmask_fixed)
            .with(&KernelNeeds::branch, kFixedMask)
            .with(&KernelNeeds::condition, Condition::kWarpAligned)
            .with(&KernelNeeds::recorded, Recorded::kFixedBitmask),
        ShortKernel(
            "4t", "warp_bitmask_textbook (bug)",
            "the textbook's itid & 0x01 == 0 parses as itid & (0x01 == 0) = itid & 0, never "
            "true, so every thread writes the else value")
            .with_launcher(launch_warp_bitmask_textbook)
            .with_role(cudatutorial::StageRole::kExpectedFailure)
            .with(&KernelNeeds::branch, kTextbookMask)
            .with(&KernelNeeds::condition, Condition::kWarpAligned)
            .with(&KernelNeeds::recorded, Recorded::kTextbookBitmask),
    };
    return kernels;
}

const std::vector<LongKernel>& long_kernels() {
    static const std::vector<LongKernel> kernels = {
        LongKernel(
            "5a", "long_even_odd_divergent",
            "long branch bodies, lanes of every warp split between them: each warp runs both")
            .with_launcher(launch_long_even_odd_divergent)
            .with(&KernelNeeds::branch, "tid % 2 == 0")
            .with(&KernelNeeds::condition, Condition::kEvenOdd)
            .with(&KernelNeeds::recorded, Recorded::kEvenOdd),
        LongKernel("5b", "long_warp_aligned",
                   "the same long bodies split between whole warps: each warp runs one of them")
            .with_launcher(launch_long_warp_aligned)
            .with(&KernelNeeds::branch, "(tid / warpSize) % 2 == 0")
            .with(&KernelNeeds::condition, Condition::kWarpAligned)
            .with(&KernelNeeds::recorded, Recorded::kWarpAligned),
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
