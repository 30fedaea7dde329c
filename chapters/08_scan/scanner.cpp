// Validation, launch planning and the Scanner (host code). The kernels are in stages/, each file
// ending with its row of the stage list, which the build collects (cmake/StageList.cmake): a new
// stage is one new file. The copy ceiling's row is stages/device_copy.cpp.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/report.hpp"
#include "scan.hpp"
#include "stages/lookback_candidates.hpp"
#include "stages/scan_launchers.hpp"

namespace scan {

const std::vector<StageInfo>& stages() {
    return rows::stage_list();
}

const StageInfo* find_stage(const std::string& id) {
    return cudatutorial::find_stage_in(stages(), id);
}
namespace {

const StageInfo& stage_or_throw(const std::string& id) {
    const StageInfo* stage = find_stage(id);
    if (stage == nullptr) {
        std::string known;
        for (const StageInfo& s : stages()) {
            known += (known.empty() ? "" : ", ") + s.id;
        }
        throw std::invalid_argument("unknown stage '" + id + "' (known: " + known + ")");
    }
    return *stage;
}

bool scans_by_tiles(const StageInfo& stage) {
    return stage.method != Method::kCub && stage.method != Method::kCopy;
}

/// The launches of the scan-then-propagate frame over n values (stages 1-4; stage 5's totals).
void plan_frame(std::uint64_t n, std::uint64_t tile, int block, std::vector<config::Launch>& out) {
    const std::uint64_t tiles = config::tiles(n, tile);
    if (tiles == 1) {
        out.push_back({"scan_tiles", 1, block, n});
        return;
    }
    out.push_back({"scan_tiles", tiles, block, n});
    plan_frame(tiles, tile, block, out);  // the carries: the tile totals, scanned
    out.push_back({"add_carries", tiles - 1, block, n});
}

std::vector<config::Launch> plan(const StageInfo& stage, std::uint64_t n, int block) {
    std::vector<config::Launch> launches;
    const std::uint64_t tile = config::tile_items(stage, block);
    const std::uint64_t tiles = tile > 0 ? config::tiles(n, tile) : 0;
    switch (stage.method) {
        case Method::kScanThenPropagate:
            plan_frame(n, tile, block, launches);
            break;
        case Method::kReduceThenScan:
            if (tiles == 1) {
                launches.push_back({"scan_tiles_from_carry", 1, block, n});
                break;
            }
            launches.push_back({"reduce_tiles", tiles, block, n});
            plan_frame(tiles, tile, block, launches);
            launches.push_back({"scan_tiles_from_carry", tiles, block, n});
            break;
        case Method::kSinglePass:
            launches.push_back({stage.name, tiles, block, n});
            break;
        case Method::kCub:
            launches.push_back({"cub::DeviceScan", 0, 0, n});
            break;
        case Method::kCopy:
            launches.push_back({"cudaMemcpyAsync", 0, 0, n});
            break;
    }
    for (const config::Launch& launch : launches) {
        config::checked_grid(launch.grid, stage.id);
    }
    return launches;
}

void check_basics(const StageInfo& s, std::uint64_t n, int block_size) {
    if (n < 1) {
        throw std::invalid_argument("the number of values must be at least 1");
    }
    if (!scans_by_tiles(s)) {
        return;  // CUB and the copy choose their own launch configuration
    }
    const bool power_of_two = block_size > 0 && (block_size & (block_size - 1)) == 0;
    if (!power_of_two || block_size < s.min_block || block_size > s.max_block) {
        throw std::invalid_argument(
            "stage " + s.id + " (" + s.name +
            ") supports block sizes that are powers of two from " + std::to_string(s.min_block) +
            " to " + std::to_string(s.max_block) + "; got " + std::to_string(block_size));
    }
}

}  // namespace

void validate_configuration(const std::string& id, std::size_t n, int block_size) {
    const StageInfo& stage = stage_or_throw(id);
    check_basics(stage, n, block_size);
    plan(stage, n, block_size);  // throws when a grid would be too large
}

// ---------------------------------------------------------------------------------------------
// Launch arithmetic

namespace config {

std::uint64_t tile_items(const StageInfo& stage, int block) {
    const int items = stage.items_per_thread_at != nullptr ? stage.items_per_thread_at(block)
                                                           : stage.items_per_thread;
    return static_cast<std::uint64_t>(block) * static_cast<std::uint64_t>(items);
}

std::uint64_t tiles(std::uint64_t n, std::uint64_t tile_items) {
    return std::max<std::uint64_t>(1, ceil_div(n, tile_items));
}

std::vector<std::uint64_t> level_sizes(std::uint64_t n, std::uint64_t tile_items) {
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t count = n; tiles(count, tile_items) > 1;) {
        count = tiles(count, tile_items);
        sizes.push_back(count);
    }
    return sizes;
}

std::vector<Launch> plan_launches(const std::string& stage_id, std::uint64_t n, int block) {
    const StageInfo& stage = stage_or_throw(stage_id);
    check_basics(stage, n, block);
    return plan(stage, n, block);
}

unsigned int checked_grid(std::uint64_t blocks, const std::string& stage_id) {
    if (blocks > static_cast<std::uint64_t>(INT_MAX)) {
        throw std::invalid_argument("stage " + stage_id + " would need " + std::to_string(blocks) +
                                    " blocks, more than a grid allows (2^31 - 1): use a larger "
                                    "block size");
    }
    return static_cast<unsigned int>(blocks);
}

}  // namespace config

// ---------------------------------------------------------------------------------------------
// Scanner

struct Scanner::Impl {
    const StageInfo* stage = nullptr;
    std::size_t n = 0;
    int block = 0;
    Kind kind = Kind::kInclusive;
    std::uint64_t wait_limit_ns = 0;
    std::vector<config::Launch> launches;
    // Workspace: written by every run(), which is const because it changes no configuration.
    mutable std::vector<cudatutorial::DeviceBuffer<Value>> levels;
    std::vector<Value*> level_pointers;
    mutable cudatutorial::DeviceBuffer<unsigned long long> tile_status;
    mutable cudatutorial::DeviceBuffer<unsigned int> tile_counter;
    mutable cudatutorial::DeviceBuffer<unsigned int> error_flag;
    mutable cudatutorial::DeviceBuffer<unsigned char> cub_temp;
    /// The single-pass stages' run number, 1..2^30-1: a status word of another run reads as
    /// "not published yet", so the words need no clearing between runs.
    mutable unsigned int generation = 0;
    int candidate = -1;  ///< stage 7's tuned candidate, or -1
};

Scanner::Scanner(const std::string& stage_id, std::size_t n, int block_size, Kind kind,
                 std::uint64_t wait_limit_ns, int candidate)
    : impl_(std::make_unique<Impl>()) {
    Impl& s = *impl_;
    s.stage = &stage_or_throw(stage_id);
    if (candidate >= 0) {  // the candidate's own block size and tile
        if (!s.stage->uses_tuner) {
            throw std::invalid_argument("stage " + stage_id + " has no tuned candidates");
        }
        detail::check_candidate(candidate);
        block_size = detail::kLookbackCandidates[candidate].block;
    }
    validate_configuration(stage_id, n, block_size);
    s.n = n;
    s.block = scans_by_tiles(*s.stage) ? block_size : 0;
    s.kind = kind;
    s.wait_limit_ns = wait_limit_ns;
    s.candidate = candidate;
    s.launches = plan(*s.stage, n, block_size);
    const std::uint64_t tile = candidate >= 0 ? detail::candidate_tile_items(candidate)
                                              : config::tile_items(*s.stage, s.block);
    if (candidate >= 0) {
        s.launches = {{s.stage->name, detail::vectorized_lookback_grid(candidate, n), s.block, n}};
    }
    switch (s.stage->method) {
        case Method::kScanThenPropagate:
        case Method::kReduceThenScan:
            for (std::uint64_t size : config::level_sizes(n, tile)) {
                s.levels.emplace_back(size);
                s.level_pointers.push_back(s.levels.back().data());
            }
            break;
        case Method::kSinglePass:
            s.tile_status = cudatutorial::DeviceBuffer<unsigned long long>(config::tiles(n, tile));
            s.tile_status.fill_bytes(0);  // generation 0: no run's
            s.tile_counter = cudatutorial::DeviceBuffer<unsigned int>(1);
            s.tile_counter.fill_bytes(0);
            s.error_flag = cudatutorial::DeviceBuffer<unsigned int>(1);
            s.error_flag.fill_bytes(0);  // no generation's: runs are numbered from 1
            break;
        case Method::kCub:
            s.cub_temp = cudatutorial::DeviceBuffer<unsigned char>(std::max<std::size_t>(
                1, detail::cub_temp_storage_bytes(n, kind == Kind::kExclusive)));
            break;
        case Method::kCopy:
            break;
    }
}

Scanner::~Scanner() = default;
Scanner::Scanner(Scanner&&) noexcept = default;
Scanner& Scanner::operator=(Scanner&&) noexcept = default;

void Scanner::run(const Value* d_in, Value* d_out, cudaStream_t stream) const {
    const Impl& s = *impl_;
    const bool aligned = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(d_out) % 16 == 0;
    if (!aligned) {
        throw std::invalid_argument("Scanner::run needs 16-byte aligned input and output");
    }
    detail::LaunchArgs args;
    args.in = d_in;
    args.out = d_out;
    args.n = s.n;
    args.exclusive = s.kind == Kind::kExclusive;
    args.block = s.block;
    args.stream = stream;
    args.level_totals = s.level_pointers.data();
    switch (s.stage->method) {
        case Method::kCopy:
            s.stage->launch(args);  // stages/device_copy.cpp
            return;
        case Method::kCub:
            detail::launch_cub_scan(s.cub_temp.data(), s.cub_temp.size(), args);
            return;
        case Method::kSinglePass:
            s.generation = s.generation % ((1u << 30) - 1) + 1;
            args.tile_status = s.tile_status.data();
            args.tile_counter = s.tile_counter.data();
            args.error_flag = s.error_flag.data();
            args.generation = s.generation;
            args.wait_limit_ns = s.wait_limit_ns;
            args.candidate = s.candidate;
            if (s.candidate >= 0 && detail::kLookbackCandidates[s.candidate].resident) {
                // the grid asked of the device once, at construction: no query per run
                args.resident_grid = static_cast<unsigned int>(s.launches.front().grid);
            }
            break;
        case Method::kScanThenPropagate:
        case Method::kReduceThenScan:
            break;
    }
    s.stage->launch(args);
}

std::string Scanner::device_error() const {
    const Impl& s = *impl_;
    if (s.error_flag.empty()) {
        return "";
    }
    unsigned int flag = 0;
    s.error_flag.copy_to_host(&flag, 1);
    if (flag == 0) {  // never raised (a raised flag holds the number of the run that raised it)
        return "";
    }
    return "look-back waits timed out: a block waited " +
           cudatutorial::format_fixed(static_cast<double>(s.wait_limit_ns) / 1e9, 1) +
           " s for a tile whose status was never published (the block of that tile could not "
           "start), gave up and raised the error flag; the result is wrong";
}

const StageInfo& Scanner::stage() const {
    return *impl_->stage;
}
std::size_t Scanner::n() const {
    return impl_->n;
}
int Scanner::block_size() const {
    return impl_->block;
}
int Scanner::candidate() const {
    return impl_->candidate;
}
Kind Scanner::kind() const {
    return impl_->kind;
}
const std::vector<config::Launch>& Scanner::launches() const {
    return impl_->launches;
}

std::size_t Scanner::workspace_bytes() const {
    const Impl& s = *impl_;
    std::size_t bytes =
        s.tile_status.bytes() + s.tile_counter.bytes() + s.error_flag.bytes() + s.cub_temp.bytes();
    for (const auto& level : s.levels) {
        bytes += level.bytes();
    }
    return bytes;
}

}  // namespace scan
