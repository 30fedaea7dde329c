// The stage list, launch planning and the Reducer (host code; the kernels are in stages/).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/sizes.hpp"
#include "stages/vectorized_choice.hpp"
#include "reduction.hpp"
#include "stages/reduction_launchers.hpp"
#include "stages/vector_split.hpp"
#include "stages/vectorized_candidates.hpp"

namespace reduction {
namespace {

using detail::KernelArgs;

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

/// How the Reducer runs a stage, beside what the table shows of it (StageInfo).
struct StageImpl {
    StageInfo info;
    void (*launch)(const KernelArgs&) = nullptr;
    int (*blocks_per_sm)(int block) = nullptr;  ///< grid-stride stages
    int elements_per_thread = 1;                ///< per thread per block-sized step of the grid
    Combine combine = Combine::kRepeatPasses;
    Shared shared = Shared::kTree;
    /// Stages 10-12: resident blocks per SM of candidate `variant` (vectorized_candidates.hpp);
    /// the Reducer asks adaptive::vectorized_choice() which candidate to run, with the tuning
    /// result it was given.
    int (*variant_blocks_per_sm)(int block, int variant) = nullptr;
};

/// One row of the stage list, written field by field with each field named (C++17 has no
/// designated initializers): `stage("3", "sequential_addressing").idea(...).launcher(...)`.
/// A field left out keeps the textbook stages' default: blocks of 32 to 1024 threads, one
/// element per thread, the kernel repeated on its partial sums, a shared-memory tree.
class StageRow {
  public:
    StageRow(std::string id, std::string name) {
        impl_.info.id = std::move(id);
        impl_.info.name = std::move(name);
        impl_.info.min_block = detail::kMinBlock;
        impl_.info.max_block = detail::kMaxBlock;
    }
    /// What changed from the previous stage, in one line (the table and --stage list show it).
    StageRow& idea(std::string text) {
        impl_.info.idea = std::move(text);
        return *this;
    }
    /// The host function in the stage's file that launches its kernel (reduction_launchers.hpp).
    StageRow& launcher(void (*launch)(const KernelArgs&)) {
        impl_.launch = launch;
        return *this;
    }
    /// The smallest block size its kernel has (a power of two; the largest is kMaxBlock).
    StageRow& min_block(int block) {
        impl_.info.min_block = block;
        return *this;
    }
    /// Elements each thread adds per block-sized step of the grid, which sizes the grid.
    StageRow& elements_per_thread(int count) {
        impl_.elements_per_thread = count;
        return *this;
    }
    /// How the blocks' partial sums become one number.
    StageRow& combine(Combine how) {
        impl_.combine = how;
        return *this;
    }
    /// What shared memory each block uses.
    StageRow& shared(Shared what) {
        impl_.shared = what;
        return *this;
    }
    /// A grid-stride stage: its grid is the SMs x the blocks of this kernel that stay resident
    /// per SM (the occupancy calculator, asked by `blocks_per_sm`).
    StageRow& grid_from_occupancy(int (*blocks_per_sm)(int block)) {
        impl_.blocks_per_sm = blocks_per_sm;
        return *this;
    }
    /// Stages 10-12: runs the compiled candidate chosen for the GPU (the tuning pass, else the
    /// derivation), its grid sized by that candidate's occupancy, `blocks_per_sm`.
    StageRow& tuned_candidates(int (*blocks_per_sm)(int block, int variant)) {
        impl_.variant_blocks_per_sm = blocks_per_sm;
        impl_.info.uses_tuner = true;
        return *this;
    }
    /// Its role in the table (a progression step unless said otherwise).
    StageRow& role(cudatutorial::StageRole role) {
        impl_.info.role = role;
        return *this;
    }
    /// Left out of `--stage all` (run only when named).
    StageRow& only_when_named() {
        impl_.info.by_default = false;
        return *this;
    }
    operator StageImpl() const { return impl_; }  // NOLINT(google-explicit-constructor)

  private:
    StageImpl impl_;
};

StageRow stage(std::string id, std::string name) {
    return StageRow(std::move(id), std::move(name));
}

const std::vector<StageImpl>& stage_impls() {
    using cudatutorial::StageRole;
    using namespace detail;
    // Stages 10-12 plan their grid as if each thread took 16 ints (four int4 loads) per step; the
    // candidate actually run may take 8 to 32, which only moves where the grid stops growing for
    // small n (every candidate is correct with any grid).
    constexpr int kVectorElements = 16;
    static const std::vector<StageImpl> impls = {
        stage("1", "interleaved_divergent")
            .idea("tid % (2s) == 0 adds: divergent warps, modulo")
            .launcher(launch_interleaved_divergent),
        stage("2", "interleaved_strided_index")
            .idea("index = 2*s*tid: no divergence, bank conflicts")
            .launcher(launch_interleaved_strided_index),
        stage("3", "sequential_addressing")
            .idea("tid < s adds tid + s: conflict-free shared memory")
            .launcher(launch_sequential_addressing),
        stage("4", "first_add_during_load")
            .idea("two loads added per thread: half the blocks")
            .launcher(launch_first_add_during_load)
            .elements_per_thread(2),
        stage("5", "unrolled_last_warp")
            .idea("last warp without __syncthreads, ordered by __syncwarp()")
            .launcher(launch_unrolled_last_warp)
            .min_block(kCompleteUnrollMinBlock)
            .elements_per_thread(2),
        stage("5v", "volatile_last_warp_HISTORICAL")
            .idea("the textbook's volatile warp-synchronous last warp: a data race since Volta")
            .launcher(launch_volatile_last_warp)
            .min_block(kCompleteUnrollMinBlock)
            .elements_per_thread(2)
            .role(StageRole::kExpectedFailure)
            .only_when_named(),
        stage("6", "complete_unroll")
            .idea("block size as a template parameter: the tree fully unrolled")
            .launcher(launch_complete_unroll)
            .min_block(kCompleteUnrollMinBlock)
            .elements_per_thread(2),
        stage("7", "grid_stride_occupancy")
            .idea("grid-stride loop, grid = SMs x resident blocks per SM")
            .launcher(launch_grid_stride)
            .min_block(kCompleteUnrollMinBlock)
            .elements_per_thread(2)
            .grid_from_occupancy(grid_stride_blocks_per_sm)
            .combine(Combine::kOneBlockPass),
        stage("8", "cooperative_groups_tile")
            .idea("last warp as a thread_block_tile<32>, tile.sync()")
            .launcher(launch_cooperative_groups_tile)
            .min_block(kCompleteUnrollMinBlock)
            .elements_per_thread(2)
            .grid_from_occupancy(cooperative_groups_tile_blocks_per_sm)
            .combine(Combine::kOneBlockPass),
        stage("9", "warp_shuffle")
            .idea("last warp in registers: tile.shfl_down")
            .launcher(launch_warp_shuffle)
            .elements_per_thread(2)
            .grid_from_occupancy(warp_shuffle_blocks_per_sm)
            .combine(Combine::kOneBlockPass),
        stage("10", "vectorized_loads")
            .idea("int4 loads, 2-8 in flight per thread (chosen for this GPU), warp reductions")
            .launcher(launch_vectorized_loads)
            .elements_per_thread(kVectorElements)
            .tuned_candidates(vectorized_loads_blocks_per_sm)
            .combine(Combine::kOneBlockPass)
            .shared(Shared::kWarpSums),
        stage("11", "single_pass_last_block")
            .idea("stage 10 in one launch: the last block sums the partials")
            .launcher(launch_single_pass_last_block)
            .elements_per_thread(kVectorElements)
            .tuned_candidates(single_pass_last_block_blocks_per_sm)
            .combine(Combine::kLastBlock)
            .shared(Shared::kWarpSums),
        stage("12", "single_pass_atomic")
            .idea("stage 10 in one kernel: memset + one atomicAdd per block")
            .launcher(launch_single_pass_atomic)
            .elements_per_thread(kVectorElements)
            .tuned_candidates(single_pass_atomic_blocks_per_sm)
            .combine(Combine::kAtomic)
            .shared(Shared::kWarpSums),
        stage(kCubStageId, "cub_device_reduce_sum")
            .idea("cub::DeviceReduce::Sum (the baseline)")
            .combine(Combine::kCub)
            .shared(Shared::kNone)
            .role(StageRole::kBaseline),
    };
    return impls;
}

const StageImpl& impl_for(const std::string& id) {
    for (const StageImpl& impl : stage_impls()) {
        if (impl.info.id == id) {
            return impl;
        }
    }
    std::string known;
    for (const StageImpl& impl : stage_impls()) {
        known += (known.empty() ? "" : ", ") + impl.info.id;
    }
    throw std::invalid_argument("unknown stage '" + id + "' (known: " + known + ")");
}

std::size_t shared_bytes_of(Shared shared, int block) {
    switch (shared) {
        case Shared::kTree:
            return config::tree_shared_bytes(block);
        case Shared::kWarpSums:
            return block > 32 ? config::warp_sums_shared_bytes(block) : 0;
        case Shared::kNone:
            return 0;
    }
    return 0;
}

unsigned int checked_grid(std::size_t blocks, const std::string& stage) {
    if (blocks > static_cast<std::size_t>(INT_MAX)) {
        throw std::invalid_argument("stage " + stage + " would need " + std::to_string(blocks) +
                                    " blocks, more than a grid allows (2^31 - 1): use a larger "
                                    "block size or a grid-stride stage (7 and later)");
    }
    return static_cast<unsigned int>(blocks);
}

}  // namespace

void detail::unsupported_block_size(const char* stage, int block) {
    throw std::invalid_argument(std::string("stage ") + stage + " has no kernel for block size " +
                                std::to_string(block));
}

std::string detail::describe_variant(int variant) {
    if (variant < 0 || variant >= kVectorizedVariantCount) {
        return "unknown candidate " + std::to_string(variant);
    }
    const VectorizedVariant& v = kVectorizedVariants[variant];
    return std::to_string(v.loads) + " x int4 " +
           (v.policy == LoadPolicy::kPrefetchL2 ? "L2::256B" : "plain") + " " +
           (v.layout == Layout::kBlockTiles      ? "tiles"
            : v.layout == Layout::kBlockSegments ? "segments"
                                                 : "one-shot");
}

void detail::unsupported_variant(const char* stage, int variant) {
    throw std::invalid_argument(
        std::string("stage ") + stage + " has no candidate " + std::to_string(variant) +
        (is_one_shot(variant) ? " (" + describe_variant(variant) + ": single_pass_atomic only)"
                              : " (0 to " + std::to_string(kVectorizedVariantCount - 1) + ")"));
}

// ---------------------------------------------------------------------------------------------
// Stage list and validation

const std::vector<StageInfo>& stages() {
    static const std::vector<StageInfo> list = [] {
        std::vector<StageInfo> v;
        for (const StageImpl& impl : stage_impls()) {
            v.push_back(impl.info);
        }
        return v;
    }();
    return list;
}

const StageInfo* find_stage(const std::string& id) {
    for (const StageInfo& s : stages()) {
        if (s.id == id) {
            return &s;
        }
    }
    return nullptr;
}

void validate_configuration(const std::string& id, std::size_t n, int block_size) {
    const StageImpl& impl = impl_for(id);
    if (n < 1) {
        throw std::invalid_argument("the number of elements must be at least 1");
    }
    if (impl.combine == Combine::kCub) {
        return;  // CUB chooses its own launch configuration
    }
    const StageInfo& s = impl.info;
    if (!cudatutorial::is_power_of_two_in(block_size, s.min_block, s.max_block)) {
        throw std::invalid_argument(
            "stage " + s.id + " (" + s.name +
            ") supports block sizes that are powers of two from " + std::to_string(s.min_block) +
            " to " + std::to_string(s.max_block) + "; got " + std::to_string(block_size));
    }
}

// ---------------------------------------------------------------------------------------------
// Launch configuration

namespace config {

std::size_t blocks_to_cover(std::size_t n, int block, int elements_per_thread) {
    const std::size_t per_block =
        static_cast<std::size_t>(block) * static_cast<std::size_t>(elements_per_thread);
    return std::max<std::size_t>(1, ceil_div(n, per_block));
}

std::size_t tree_shared_bytes(int block) {
    return static_cast<std::size_t>(block) * sizeof(int);
}

std::size_t warp_sums_shared_bytes(int block, int warp_size) {
    return ceil_div(static_cast<std::size_t>(block), static_cast<std::size_t>(warp_size)) *
           sizeof(int);
}

std::size_t grid_stride_blocks(std::size_t n, int block, int elements_per_thread, int sm_count,
                               int blocks_per_sm) {
    const std::size_t resident = static_cast<std::size_t>(std::max(1, sm_count)) *
                                 static_cast<std::size_t>(std::max(1, blocks_per_sm));
    return std::min(resident, blocks_to_cover(n, block, elements_per_thread));
}

std::size_t one_shot_blocks(std::size_t n, int block, int loads) {
    return blocks_to_cover(n, block, 4 * loads);  // 4 ints per int4
}

VectorSplit split_for_vectors(std::uintptr_t address, std::size_t n) {
    const detail::VectorSplitParts p = detail::split_vectors(address, n);
    return {p.head, p.vectors, p.tail};
}

std::vector<Pass> plan_passes(const std::string& stage_id, std::size_t n, int block, int sm_count,
                              int blocks_per_sm) {
    validate_configuration(stage_id, n, block);
    const StageImpl& impl = impl_for(stage_id);
    const std::size_t shared = shared_bytes_of(impl.shared, block);
    std::vector<Pass> passes;
    switch (impl.combine) {
        case Combine::kCub:
            passes.push_back({n, 0, 0, 0});
            break;
        case Combine::kRepeatPasses: {
            std::size_t count = n;
            do {
                const unsigned int grid =
                    checked_grid(blocks_to_cover(count, block, impl.elements_per_thread), stage_id);
                passes.push_back({count, grid, block, shared});
                count = grid;
            } while (count > 1);
            break;
        }
        case Combine::kOneBlockPass:
        case Combine::kLastBlock:
        case Combine::kAtomic: {
            const unsigned int grid = checked_grid(
                grid_stride_blocks(n, block, impl.elements_per_thread, sm_count, blocks_per_sm),
                stage_id);
            passes.push_back({n, grid, block, shared});
            if (impl.combine == Combine::kOneBlockPass && grid > 1) {
                passes.push_back({grid, 1, block, shared});  // one block, grid-stride
            }
            break;
        }
    }
    return passes;
}

std::string describe_launches(const std::string& stage_id, const std::vector<Pass>& passes) {
    switch (impl_for(stage_id).combine) {
        case Combine::kCub:
            return "cub";
        case Combine::kAtomic:
            return std::to_string(passes.size()) + " + memset";
        default:
            return std::to_string(passes.size());
    }
}

std::string describe_grid(const std::string& stage_id, const std::vector<Pass>& passes) {
    if (impl_for(stage_id).combine == Combine::kCub || passes.empty()) {
        return "cub";
    }
    return std::to_string(passes[0].grid);
}

}  // namespace config

// ---------------------------------------------------------------------------------------------
// Input patterns

namespace {
const cudatutorial::NameTable<Pattern>& patterns() {
    static const cudatutorial::NameTable<Pattern> table = {{Pattern::kRandom, "random"},
                                                           {Pattern::kOnes, "ones"},
                                                           {Pattern::kAlternating, "alternating"},
                                                           {Pattern::kExtremes, "extremes"}};
    return table;
}
}  // namespace

const char* pattern_name(Pattern pattern) {
    return patterns().name(pattern);
}

Pattern parse_pattern(const std::string& name) {
    return patterns().parse(name, "data pattern");
}

std::vector<int> make_input(Pattern pattern, std::size_t n, std::uint64_t seed) {
    namespace ct = cudatutorial;
    if (pattern == Pattern::kRandom) {
        return ct::random_ints(n, seed, INT_MIN, INT_MAX);
    }
    std::vector<int> v(n);
    ct::parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const std::uint64_t bits = ct::hash64(seed, i);
            switch (pattern) {
                case Pattern::kOnes:
                    v[i] = 1;
                    break;
                case Pattern::kAlternating: {
                    const int k = 1 + static_cast<int>(ct::bounded(bits, 1000));
                    v[i] = (i % 2 == 0) ? k : -k;
                    break;
                }
                case Pattern::kExtremes: {
                    const int d = static_cast<int>(ct::bounded(bits, 8));
                    v[i] = (bits & 1) ? INT_MAX - d : INT_MIN + d;
                    break;
                }
                case Pattern::kRandom:
                    break;
            }
        }
    });
    return v;
}

// ---------------------------------------------------------------------------------------------
// Reducer

struct Reducer::Impl {
    const StageImpl* stage = nullptr;
    std::size_t n = 0;
    int block = 0;
    int variant = 0;  ///< stages 10-12: the candidate chosen for this device, n and block
    std::vector<Pass> passes;
    // Workspace: written by every run(), which is const because it changes no configuration.
    mutable cudatutorial::DeviceBuffer<int> partials[2];
    mutable cudatutorial::DeviceBuffer<unsigned int> counter;
    mutable cudatutorial::DeviceBuffer<unsigned char> cub_temp;

    void launch_pass(std::size_t k, const int* d_in, int* d_sum, bool last,
                     cudaStream_t stream) const {
        KernelArgs args;
        args.in = k == 0 ? d_in : partials[(k - 1) % 2].data();
        args.out = last ? d_sum : partials[k % 2].data();
        args.n = passes[k].count;
        args.grid = passes[k].grid;
        args.block = passes[k].block;
        args.stream = stream;
        args.partials = partials[0].data();
        args.counter = counter.data();
        args.variant = variant;
        stage->launch(args);
    }
};

Reducer::Reducer(const std::string& stage_id, std::size_t n, int block_size,
                 const adaptive::TuningResult* tuning)
    : impl_(std::make_unique<Impl>()) {
    validate_configuration(stage_id, n, block_size);
    Impl& r = *impl_;
    r.stage = &impl_for(stage_id);
    r.n = n;
    r.block = r.stage->combine == Combine::kCub ? 0 : block_size;
    int device = 0;
    int sm_count = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    int blocks_per_sm = r.stage->blocks_per_sm ? r.stage->blocks_per_sm(block_size) : 0;
    if (r.stage->variant_blocks_per_sm) {
        const adaptive::VectorizedChoice choice = adaptive::vectorized_choice(
            tuning, n, block_size, r.stage->combine == Combine::kAtomic);
        r.variant = choice.variant;
        const int resident = r.stage->variant_blocks_per_sm(block_size, choice.variant);
        blocks_per_sm = resident >= 1 ? std::max(1, resident / choice.occupancy_divisor) : 0;
    }
    if ((r.stage->blocks_per_sm || r.stage->variant_blocks_per_sm) && blocks_per_sm < 1) {
        throw cudatutorial::CudaError(cudaErrorInvalidConfiguration,
                                      "stage " + stage_id + " cannot keep a block of " +
                                          std::to_string(block_size) + " threads resident");
    }
    r.passes = config::plan_passes(stage_id, n, block_size, sm_count, blocks_per_sm);
    if (detail::is_one_shot(r.variant)) {  // stage 12 only: one block per tile, no loop
        r.passes[0].grid = checked_grid(
            config::one_shot_blocks(n, block_size, detail::kVectorizedVariants[r.variant].loads),
            stage_id);
    }

    switch (r.stage->combine) {
        case Combine::kCub:
            r.cub_temp = cudatutorial::DeviceBuffer<unsigned char>(
                std::max<std::size_t>(1, detail::cub_temp_storage_bytes(n)));
            break;
        case Combine::kLastBlock:
            r.partials[0] = cudatutorial::DeviceBuffer<int>(r.passes[0].grid);
            r.counter = cudatutorial::DeviceBuffer<unsigned int>(1);
            r.counter.fill_bytes(0);  // the kernel leaves it at 0 after every launch
            break;
        default: {
            std::size_t sizes[2] = {0, 0};
            for (std::size_t k = 0; k + 1 < r.passes.size(); ++k) {
                sizes[k % 2] = std::max<std::size_t>(sizes[k % 2], r.passes[k].grid);
            }
            for (int b = 0; b < 2; ++b) {
                r.partials[b] = cudatutorial::DeviceBuffer<int>(sizes[b]);
            }
            break;
        }
    }
}

Reducer::~Reducer() = default;
Reducer::Reducer(Reducer&&) noexcept = default;
Reducer& Reducer::operator=(Reducer&&) noexcept = default;

void Reducer::run(const int* d_in, int* d_sum, cudaStream_t stream) const {
    const Impl& r = *impl_;
    if (r.stage->combine == Combine::kCub) {
        detail::launch_cub_sum(r.cub_temp.data(), r.cub_temp.size(), d_in, d_sum, r.n, stream);
        return;
    }
    for (std::size_t k = 0; k < r.passes.size(); ++k) {
        r.launch_pass(k, d_in, d_sum, k + 1 == r.passes.size(), stream);
    }
}

void Reducer::run_first_pass(const int* d_in, int* d_sum, cudaStream_t stream) const {
    const Impl& r = *impl_;
    if (r.stage->combine == Combine::kCub) {
        run(d_in, d_sum, stream);
        return;
    }
    r.launch_pass(0, d_in, d_sum, r.passes.size() == 1, stream);
}

std::vector<int> Reducer::first_pass_output(const int* d_sum) const {
    const Impl& r = *impl_;
    const bool whole_sum = r.stage->combine == Combine::kCub || r.passes.size() == 1;
    std::vector<int> output(whole_sum ? 1 : r.passes[0].grid);
    cudatutorial::detail::copy_device_to_host(
        output.data(), whole_sum ? d_sum : r.partials[0].data(), output.size() * sizeof(int));
    return output;
}

void Reducer::poison_first_pass_output(int* d_sum) const {
    const Impl& r = *impl_;
    if (r.stage->combine == Combine::kCub || r.passes.size() == 1) {
        cudatutorial::detail::fill_device_bytes(d_sum, 0xff, sizeof(int));
    } else {
        r.partials[0].fill_bytes(0xff);
    }
}

std::string Reducer::describe_launches() const {
    return config::describe_launches(impl_->stage->info.id, impl_->passes);
}

std::string Reducer::describe_grid() const {
    return config::describe_grid(impl_->stage->info.id, impl_->passes);
}

const StageInfo& Reducer::stage() const {
    return impl_->stage->info;
}
std::size_t Reducer::n() const {
    return impl_->n;
}
int Reducer::block_size() const {
    return impl_->block;
}
const std::vector<Pass>& Reducer::passes() const {
    return impl_->passes;
}

std::size_t Reducer::workspace_bytes() const {
    const Impl& r = *impl_;
    return r.partials[0].bytes() + r.partials[1].bytes() + r.counter.bytes() + r.cub_temp.bytes();
}

}  // namespace reduction
