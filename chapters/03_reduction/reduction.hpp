/// @file reduction.hpp
/// @brief Chapter 3's host API: the CPU reference, the stage list, and Reducer, which runs any
/// stage (or CUB) over device data with its workspace allocated once, outside the timed call.
///
/// Other chapters (Chapter 4, nested reduction) use this header and the `reduction_kernels`
/// library instead of copying code:
/// @code
///   #include "reduction.hpp"
///   int expected = reduction::reference_sum(host.data(), host.size());
///   reduction::Reducer flat("9", n, 256);            // stage 9: shuffle, grid from occupancy
///   reduction::Reducer cub(reduction::kCubStageId, n); // CUB DeviceReduce::Sum
///   flat.run(d_in, d_sum, stream);                    // whole sum -> *d_sum, all on the GPU
/// @endcode
///
/// Overflow semantics: the sum is the 32-bit two's-complement sum, i.e. the mathematical sum
/// modulo 2^32 read back as int. The GPU's 32-bit integer add wraps (there is no trap), and
/// addition modulo 2^32 is associative and commutative, so every stage, whatever order it adds
/// in, produces exactly the same bits; reference_sum() reproduces them by accumulating in
/// uint32_t (signed overflow would be undefined behaviour in C++).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

namespace reduction {

namespace adaptive {
struct TuningResult;  // stages/vectorized_choice.hpp: what stages 10-12's tuning pass chose
}  // namespace adaptive

/// The CPU reference: the sum of `data[0..n)` modulo 2^32 (see the file comment). n = 0 gives 0.
int reference_sum(const int* data, std::size_t n);

/// reference_sum over a whole vector.
inline int reference_sum(const std::vector<int>& data) {
    return reference_sum(data.data(), data.size());
}

/// Input patterns used by the executable (--data) and the tests.
enum class Pattern {
    kRandom,       ///< uniform over the whole int range: the sum wraps around many times
    kOnes,         ///< all 1: the sum is n (mod 2^32), easy to check by eye
    kAlternating,  ///< +k, -k, +k, ... with k in [1, 1000]: partial sums cancel
    kExtremes,     ///< values within 8 of INT_MAX or INT_MIN: every add overflows
};

/// "random", "ones", "alternating", "extremes".
const char* pattern_name(Pattern pattern);

/// The pattern named `name`; throws std::invalid_argument for an unknown name.
Pattern parse_pattern(const std::string& name);

/// n values of `pattern`, deterministic for a given seed (counter-based, multithreaded).
std::vector<int> make_input(Pattern pattern, std::size_t n, std::uint64_t seed);

/// Id of the CUB `cub::DeviceReduce::Sum` baseline in Reducer and find_stage().
inline constexpr const char* kCubStageId = "cub";

namespace detail {
struct KernelArgs;  // stages/reduction_launchers.hpp: what one launch of a stage kernel needs
}  // namespace detail

/// How a stage turns its first pass into one number.
enum class Combine {
    kRepeatPasses,  ///< run the same kernel on the partial sums until one is left
    kOneBlockPass,  ///< grid-stride kernel: a second launch of one block sums the partials
    kLastBlock,     ///< single pass, the last block to finish sums the partials
    kAtomic,        ///< single pass, blocks atomicAdd into the (cleared) output
    kCub,           ///< CUB decides
};

/// What shared memory a stage uses per block.
enum class Shared { kTree, kWarpSums, kNone };

/// What a stage's launches need, each field defaulting to the textbook stages' choice: blocks of
/// 32 to 1024 threads, one element per thread, the kernel repeated on its partial sums, a
/// shared-memory tree.
struct StageNeeds {
    int min_block = 32;           ///< smallest supported block size (a power of two)
    int max_block = 1024;         ///< largest supported block size (a power of two)
    int elements_per_thread = 1;  ///< per thread per block-sized step of the grid (sizes it)
    Combine combine = Combine::kRepeatPasses;  ///< how the partial sums become one number
    Shared shared = Shared::kTree;             ///< what shared memory each block uses
    /// A grid-stride stage: its grid is the SMs x the blocks of this kernel that stay resident
    /// per SM at this block size (the occupancy calculator); null for the others.
    int (*blocks_per_sm)(int block) = nullptr;
    /// Stages 10-12 (with uses_tuner): resident blocks per SM of compiled candidate `variant`
    /// (stages/vectorized_candidates.hpp); the Reducer runs the candidate chosen for the GPU.
    int (*variant_blocks_per_sm)(int block, int variant) = nullptr;
};

/// One row of the stage list, at the end of its stage's file (cudatutorial::StageRow): the
/// executable, the tests and the lesson use the same list. Ids "1" ... "9", "5v" (the historical
/// volatile form: an expected failure), "10"..., "cub" (the baseline).
using StageInfo = cudatutorial::StageRow<StageNeeds, void (*)(const detail::KernelArgs&)>;

/// Every stage, in table order (stages 1-9, the historical 5v after 5, beyond-the-book stages,
/// then CUB): the rows of stages/stage[0-9]*.cu in file-name order, then CUB's, collected by the
/// build.
const std::vector<StageInfo>& stages();

/// The stage with this id, or nullptr.
const StageInfo* find_stage(const std::string& id);

/// Throws std::invalid_argument with a readable message unless `id` names a stage and
/// `block_size` is a power of two in [min_block, max_block] of that stage (CUB ignores the block
/// size) and n >= 1.
void validate_configuration(const std::string& id, std::size_t n, int block_size);

/// One kernel launch of a stage's plan (CPU-side description, no device work).
struct Pass {
    std::size_t count = 0;         ///< elements this pass reads
    unsigned int grid = 0;         ///< blocks launched
    int block = 0;                 ///< threads per block
    std::size_t shared_bytes = 0;  ///< shared memory per block (static or dynamic)
};

/// Launch-configuration helpers (pure CPU arithmetic, tested without a GPU).
namespace config {

/// ceil(a / b) for b > 0.
constexpr std::size_t ceil_div(std::size_t a, std::size_t b) {
    return (a + b - 1) / b;
}

/// Blocks needed so that `block` threads each reading `elements_per_thread` elements cover n
/// (at least 1).
std::size_t blocks_to_cover(std::size_t n, int block, int elements_per_thread);

/// Dynamic shared memory of the shared-memory tree stages: one int per thread.
std::size_t tree_shared_bytes(int block);

/// Shared memory of the shuffle stages: one int per warp.
std::size_t warp_sums_shared_bytes(int block, int warp_size = 32);

/// Grid for a grid-stride stage: min(blocks needed to give every thread work, SMs x resident
/// blocks per SM). Never 0.
std::size_t grid_stride_blocks(std::size_t n, int block, int elements_per_thread, int sm_count,
                               int blocks_per_sm);

/// Grid of stage 12's one-shot candidates (stages/vectorized_candidates.hpp): one block per tile of
/// `loads` int4 per thread, enough to cover n ints without a loop (at least 1). Covers the int4
/// body of n ints at any alignment (the scalar head and tail take no tile).
std::size_t one_shot_blocks(std::size_t n, int block, int loads);

/// The launches Reducer makes for stage `stage_id` over n elements with `block` threads, on a
/// GPU with `sm_count` SMs where the stage's kernel keeps `blocks_per_sm` blocks resident (used
/// by the grid-stride stages only). Pure arithmetic: no device is touched. Throws like
/// validate_configuration(), and when a grid would exceed 2^31 - 1 blocks.
///  - stages 1-6: one block per block-sized (stages 4-6: 2x block-sized) chunk; repeated on the
///    partial sums until one value is left (2^25 ints, block 256, stage 1: 131072 -> 512 -> 2 ->
///    1);
///  - stages 7-10: grid = grid_stride_blocks(); a second pass of one block sums the partials;
///  - stages 11-12: one pass (the Reducer replaces stage 12's grid with one_shot_blocks() when
///    it runs a one-shot candidate); CUB: one entry with grid 0 (its launches are its own).
std::vector<Pass> plan_passes(const std::string& stage_id, std::size_t n, int block, int sm_count,
                              int blocks_per_sm);

/// What the table's "launches" column says of stage `stage_id` running `passes` (its plan):
/// the kernel launches ("4"), "1 + memset" for stage 12 (the cudaMemsetAsync that clears the
/// output before its blocks atomicAdd into it is one more operation on the stream, which a bare
/// count would hide), "cub" for CUB (its launches are its own).
std::string describe_launches(const std::string& stage_id, const std::vector<Pass>& passes);

/// What the table's "grid" column says: the first launch's blocks, or "cub".
std::string describe_grid(const std::string& stage_id, const std::vector<Pass>& passes);

/// For 16-byte loads from `address`: how many leading ints to handle one by one until the
/// address is 16-byte aligned (0..3, capped by n), how many int4 vectors follow, and how many
/// ints remain after the last whole vector (0..3).
struct VectorSplit {
    std::size_t head = 0;     ///< scalar elements before the first aligned int4
    std::size_t vectors = 0;  ///< whole int4 vectors
    std::size_t tail = 0;     ///< scalar elements after the last vector
};
VectorSplit split_for_vectors(std::uintptr_t address, std::size_t n);

}  // namespace config

/// Runs one stage (or CUB) over `n` ints already on the device. The constructor does all the
/// setup: it validates (std::invalid_argument), reads the device's SM count and the kernel's
/// occupancy, plans the passes and allocates every workspace buffer (partial sums, CUB's temp
/// storage, the last-block counter). run() then only launches kernels, so it can be timed.
/// Not copyable; one Reducer per (stage, n, block size). Uses the current device.
class Reducer {
  public:
    /// `stage_id` from stages(); `block_size` is ignored by CUB. `tuning`: for stages 10-12 (the
    /// stages with uses_tuner), the result of adaptive::tune_vectorized() for this device, n and
    /// block size, whose choice they run; nullptr: they run the choice derived from the device's
    /// figures. The other stages ignore it; nothing keeps the pointer.
    Reducer(const std::string& stage_id, std::size_t n, int block_size = 256,
            const adaptive::TuningResult* tuning = nullptr);
    ~Reducer();
    Reducer(const Reducer&) = delete;
    Reducer& operator=(const Reducer&) = delete;
    Reducer(Reducer&&) noexcept;
    Reducer& operator=(Reducer&&) noexcept;

    /// The whole sum of d_in[0..n) into *d_sum (device memory), every pass on the GPU, all
    /// launches on `stream`, asynchronous. d_in needs only int alignment.
    void run(const int* d_in, int* d_sum, cudaStream_t stream) const;

    /// Only the first launch (the pass over the n inputs, into the partial-sum buffer): the
    /// figure comparable to the seed article, which finished on the CPU. For single-pass stages
    /// and CUB this is the same as run() and writes *d_sum too.
    void run_first_pass(const int* d_in, int* d_sum, cudaStream_t stream) const;

    /// What run_first_pass() wrote, copied to the host (synchronizes): *d_sum when the first
    /// pass is the whole sum (one launch, CUB), else the first launch's partial sums, one per
    /// block. Their sum (reference_sum) is the whole sum when the first pass is right.
    std::vector<int> first_pass_output(const int* d_sum) const;
    /// Overwrites what run_first_pass() writes (*d_sum or the partial sums) with 0xff bytes, so
    /// that a first pass that writes nothing cannot pass on what an earlier run() left there.
    void poison_first_pass_output(int* d_sum) const;

    /// The table's "launches" column for this plan (config::describe_launches).
    std::string describe_launches() const;
    /// The table's "grid" column for this plan (config::describe_grid).
    std::string describe_grid() const;

    const StageInfo& stage() const;
    std::size_t n() const;
    int block_size() const;
    /// The launches run() makes, in order (for CUB: one entry with grid 0, the launches are
    /// CUB's own).
    const std::vector<Pass>& passes() const;
    /// Bytes of device workspace this Reducer owns.
    std::size_t workspace_bytes() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Convenience: a Reducer for CUB's `DeviceReduce::Sum`.
inline Reducer make_cub_reducer(std::size_t n) {
    return Reducer(kCubStageId, n);
}

}  // namespace reduction
