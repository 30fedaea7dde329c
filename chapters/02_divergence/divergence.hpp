/// @file divergence.hpp
/// @brief Chapter 2, warp divergence: the textbook's branch kernels, a pair of kernels whose
/// branches are long enough for divergence to cost time, and a recorder that makes the paths
/// each warp took visible without a profiler. Plain host functions; kernels live in stages/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"

namespace divergence {

/// What the if-path writes (the textbook's `ia = 100.0f`).
inline constexpr float kIfValue = 100.0f;
/// What the else-path writes (the textbook's `ib = 200.0f`).
inline constexpr float kElseValue = 200.0f;

/// Which threads take the if-path, as the CPU reference sees it.
enum class Condition {
    kEvenOdd,      ///< tid % 2 == 0: neighbouring lanes disagree, every warp holds both paths
    kWarpAligned,  ///< (tid / warpSize) % 2 == 0: whole warps agree, no warp holds both paths
    kNever,        ///< nobody: what the textbook's `itid & 0x01 == 0` really computes
};

/// Which branch code the recorder instruments.
enum class Recorded {
    kEvenOdd,          ///< mathKernel1's branch
    kWarpAligned,      ///< mathKernel2's (and the warm-up's)
    kPredicated,       ///< mathKernel3's two separate ifs on ipred
    kFixedBitmask,     ///< mathKernel4 with the precedence fixed
    kTextbookBitmask,  ///< mathKernel4 as printed
};

/// Every Recorded value, in the textbook's order.
inline constexpr Recorded kAllRecorded[] = {Recorded::kEvenOdd, Recorded::kWarpAligned,
                                            Recorded::kPredicated, Recorded::kFixedBitmask,
                                            Recorded::kTextbookBitmask};

/// True when thread `tid` takes the if-path under `condition` (warps of `warp_size` lanes).
bool takes_if_path(Condition condition, std::uint64_t tid, int warp_size = 32);

/// The value c[tid] must hold after a short-branch kernel with `condition`.
inline float expected_value(Condition condition, std::uint64_t tid, int warp_size = 32) {
    return takes_if_path(condition, tid, warp_size) ? kIfValue : kElseValue;
}

/// Compares c[0..n) with expected_value(condition, i), element by element and exactly.
cudatutorial::Verification verify_short_branch(const std::vector<float>& c, Condition condition,
                                               int warp_size = 32);

/// Launches one short-branch kernel: c[tid] = (branch ? 100 : 200) for tid < n, 1D blocks of
/// `block` threads. Throws cudatutorial::CudaError if the launch fails.
using ShortLaunch = void (*)(float* c, int n, int block, cudaStream_t stream);

/// One of the textbook's short-branch kernels: ids "0".."4", and "4t", the textbook's
/// operator-precedence bug kept as a labelled demonstration (role kExpectedFailure).
struct KernelNeeds {
    std::string branch;  ///< the branch condition as written in the kernel
    /// The result it must produce (for "4t": what it was meant to do); for the long pair, which
    /// lanes take the first branch.
    Condition condition = Condition::kWarpAligned;
    Recorded recorded = Recorded::kWarpAligned;  ///< its instrumented copy in record_paths()
};
using ShortKernel = cudatutorial::StageRow<KernelNeeds, ShortLaunch>;

/// Launches one long-branch kernel (see long_reference): `work` loop steps per branch.
using LongLaunch = void (*)(std::uint32_t* out, int n, int work, int block, cudaStream_t stream);

/// One of the long-branch pair ("5a", "5b"), which the table compares with each other.
using LongKernel = cudatutorial::StageRow<KernelNeeds, LongLaunch>;

/// The short-branch kernels in the textbook's order: warm-up, mathKernel1..3, mathKernel4 with
/// the precedence bug fixed, and mathKernel4 as printed (the bug demonstration, last).
const std::vector<ShortKernel>& short_kernels();

/// The long-branch pair: divergent within warps ("5a", the pair's baseline) and warp-aligned.
const std::vector<LongKernel>& long_kernels();

void launch_warmup(float* c, int n, int block, cudaStream_t stream);
void launch_even_odd_divergent(float* c, int n, int block, cudaStream_t stream);
void launch_warp_aligned(float* c, int n, int block, cudaStream_t stream);
void launch_predicated_ipred(float* c, int n, int block, cudaStream_t stream);
void launch_warp_bitmask_fixed(float* c, int n, int block, cudaStream_t stream);
/// The textbook's mathKernel4 exactly as printed: `if (itid & 0x01 == 0)` is
/// `itid & (0x01 == 0)` = `itid & 0` = 0, so every thread takes the else-path (writes 200).
void launch_warp_bitmask_textbook(float* c, int n, int block, cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// Long branch bodies: divergence that costs time
// ---------------------------------------------------------------------------------------------

/// Independent states per thread in the long-branch kernels.
inline constexpr int kLongStates = 4;
/// Start value number `i` (state k of thread tid is long_input(kLongStates * tid + k)).
std::uint32_t long_input(std::uint32_t i);
/// One xorshift32 step with the shift triple (a, b, c): x ^= x << a; x ^= x >> b; x ^= x << c.
std::uint32_t xorshift_step(std::uint32_t x, int a, int b, int c);
/// The if-path of thread `tid`: `work` xorshift (13, 17, 5) steps on each of its kLongStates
/// states, then their sum.
std::uint32_t long_path_a(std::uint32_t tid, int work);
/// The else-path: the same with the shift triple (5, 17, 13) - the same cost, a different result.
std::uint32_t long_path_b(std::uint32_t tid, int work);

/// out[tid] = (branch ? long_path_a : long_path_b)(tid, work) for tid < n, with the branch on
/// tid % 2 (every warp issues both loops, each for half its lanes).
void launch_long_even_odd_divergent(std::uint32_t* out, int n, int work, int block,
                                    cudaStream_t stream);
/// The same work with the branch on (tid / warpSize) % 2: each warp runs one loop.
void launch_long_warp_aligned(std::uint32_t* out, int n, int work, int block, cudaStream_t stream);

/// Expected outputs of both long kernels, computed once (on all host cores).
struct LongReference {
    std::vector<std::uint32_t> path_a;  ///< long_path_a(i, work)
    std::vector<std::uint32_t> path_b;  ///< long_path_b(i, work)
};
LongReference long_reference(int n, int work);

/// Compares out[0..n) with the reference under `condition`, element by element.
cudatutorial::Verification verify_long_branch(const std::vector<std::uint32_t>& out,
                                              const LongReference& reference, Condition condition,
                                              int warp_size = 32);

// ---------------------------------------------------------------------------------------------
// Divergence made visible: which lanes ran each path, recorded by the GPU itself
// ---------------------------------------------------------------------------------------------

/// Per warp: the lanes that executed each path (OR of __activemask() taken inside the path) and
/// in how many separate passes (groups of lanes executing it together) it was executed.
struct PathRecord {
    int warp_size = 32;
    std::vector<std::uint32_t> if_lanes;
    std::vector<std::uint32_t> else_lanes;
    std::vector<std::uint32_t> if_passes;
    std::vector<std::uint32_t> else_passes;
    /// Groups of lanes that executed the first statement after the if/else separately: 1 when
    /// the warp reconverged at the join (which the compiler arranges, the model does not promise).
    std::vector<std::uint32_t> join_passes;
    std::vector<float> c;  ///< the kernel's ordinary output, to be checked like the others
};

/// Runs the instrumented copy of `which` over n threads in blocks of `block` (a multiple of the
/// warp size) and returns what it recorded.
PathRecord record_paths(Recorded which, int n, int block);

/// The Condition a recorded kernel must follow (kPredicated follows kEvenOdd).
Condition condition_of(Recorded which);
/// The kernel name the recorded branch comes from, e.g. "even_odd_divergent".
std::string recorded_name(Recorded which);
/// The branch condition as written in that kernel.
std::string recorded_branch(Recorded which);

/// Counts over all warps of a PathRecord.
struct PathSummary {
    long long warps = 0;
    long long warps_on_both_paths = 0;  ///< warps whose lanes split between the paths
    long long passes = 0;               ///< path executions, over all warps
    double lanes_per_pass = 0;          ///< active lanes per path execution, on average
    long long join_passes = 0;          ///< groups arriving at the join, over all warps
};
PathSummary summarize(const PathRecord& record);

/// Checks a PathRecord against `condition`: each warp's if/else lanes must be exactly the lanes
/// (below n) that take each path, and its output c must match expected_value.
cudatutorial::Verification verify_record(const PathRecord& record, Condition condition, int n);

/// "0x55555555 (16)" or "-" for an empty mask.
std::string mask_text(std::uint32_t mask);

/// The ncu commands for this chapter (printed by --profile-help).
std::string profiling_help(const std::string& program);

}  // namespace divergence
