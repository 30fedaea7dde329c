// Launch planning and the Reducer (host code; the kernels, each with its row of the stage list, are
// in stages/).
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
#include "reduction.hpp"
#include "stages/reduction_launchers.hpp"
#include "stages/vector_split.hpp"
#include "stages/vectorized_candidates.hpp"
#include "stages/vectorized_choice.hpp"

namespace reduction {
namespace {

using detail::KernelArgs;

const StageInfo& row_for(const std::string& id) {
    for (const StageInfo& impl : stages()) {
        if (impl.id == id) {
            return impl;
        }
    }
    std::string known;
    for (const StageInfo& impl : stages()) {
        known += (known.empty() ? "" : ", ") + impl.id;
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
    return rows::stage_list();
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
    const StageInfo& s = row_for(id);
    if (n < 1) {
        throw std::invalid_argument("the number of elements must be at least 1");
    }
    if (s.combine == Combine::kCub) {
        return;  // CUB chooses its own launch configuration
    }
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
    const StageInfo& impl = row_for(stage_id);
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
    switch (row_for(stage_id).combine) {
        case Combine::kCub:
            return "cub";
        case Combine::kAtomic:
            return std::to_string(passes.size()) + " + memset";
        default:
            return std::to_string(passes.size());
    }
}

std::string describe_grid(const std::string& stage_id, const std::vector<Pass>& passes) {
    if (row_for(stage_id).combine == Combine::kCub || passes.empty()) {
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
    const StageInfo* stage = nullptr;
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
    r.stage = &row_for(stage_id);
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
    return config::describe_launches(impl_->stage->id, impl_->passes);
}

std::string Reducer::describe_grid() const {
    return config::describe_grid(impl_->stage->id, impl_->passes);
}

const StageInfo& Reducer::stage() const {
    return *impl_->stage;
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
