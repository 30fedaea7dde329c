/// @file scan.hpp
/// @brief Chapter 8's host API: the CPU reference, the input patterns, the stage list, the
/// launch arithmetic, and Scanner, which runs any stage (or CUB, or the copy ceiling) over device
/// data with its workspace allocated once, outside the timed call.
///
/// @code
///   #include "scan.hpp"
///   std::vector<scan::Value> want = scan::reference_scan(host, scan::Kind::kInclusive);
///   scan::Scanner scanner("7", n, 256, scan::Kind::kInclusive);  // stage 7, block 256
///   scanner.run(d_in, d_out, stream);                            // d_out[i] = in[0] + ... + in[i]
///   std::string why = scanner.device_error();                    // "" unless a wait timed out
/// @endcode
///
/// Arithmetic: the values are uint32 and every sum wraps modulo 2^32. Addition modulo 2^32 is
/// associative, so every stage, whatever order it adds in, produces exactly the bits of the CPU's
/// left-to-right sum, and exclusive[i] = inclusive[i] - in[i] holds exactly too.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

namespace scan {

namespace detail {
struct LaunchArgs;  // stages/scan_launchers.hpp
}  // namespace detail

/// The element type of every stage: sums wrap modulo 2^32 (see the file comment).
using Value = std::uint32_t;

/// Inclusive: out[i] = in[0] + ... + in[i]. Exclusive: out[i] = in[0] + ... + in[i-1], out[0] = 0.
enum class Kind { kInclusive, kExclusive };

/// "inclusive", "exclusive".
const char* kind_name(Kind kind);

/// The kind named `name`; throws std::invalid_argument for an unknown name.
Kind parse_kind(const std::string& name);

// ---------------------------------------------------------------------------------------------
// The CPU reference and the inputs (scan_reference.cpp)

/// Scans in[0..n) into out[0..n) starting from `carry` (the sum of everything before in[0]) and
/// returns carry + in[0] + ... + in[n-1], the carry of the next chunk: scanning a long input
/// chunk by chunk gives the same bits as scanning it whole. `out` may be `in`.
Value reference_scan(const Value* in, Value* out, std::size_t n, Kind kind, Value carry = 0);

/// The whole scan of `in`, as a new vector.
std::vector<Value> reference_scan(const std::vector<Value>& in, Kind kind);

/// Input patterns used by the executable (--data) and the tests.
enum class Pattern {
    kRandom,       ///< uniform over all 32-bit values: the sums wrap around many times
    kOnes,         ///< all 1: inclusive[i] = i + 1, easy to check by eye
    kMax,          ///< all 0xFFFFFFFF: every add overflows, inclusive[i] = -(i + 1) mod 2^32
    kAlternating,  ///< +k, -k (mod 2^32) in pairs, k in [1, 1000]: inclusive sums k, 0, k', 0...
};

/// "random", "ones", "max", "alternating".
const char* pattern_name(Pattern pattern);

/// The pattern named `name`; throws std::invalid_argument for an unknown name.
Pattern parse_pattern(const std::string& name);

/// n values of `pattern`, deterministic for a given seed (counter-based, multithreaded).
std::vector<Value> make_input(Pattern pattern, std::size_t n, std::uint64_t seed);

/// "" when got[0..n) equals want[0..n); otherwise how many elements differ and the first of them
/// ("3 of 1000 values differ; first at 517: got 12, expected 13").
std::string describe_mismatch(const Value* got, const Value* want, std::size_t n);

/// The byte an output is poisoned with before a run: 0xff, or 0xfe when the first expected value
/// is 0xFFFFFFFF, so that an output the stage left untouched can never match.
unsigned char poison_byte(Value first_expected);

// ---------------------------------------------------------------------------------------------
// The stages (scan_stages.cpp)

/// Id of CUB's cub::DeviceScan::InclusiveSum / ExclusiveSum, the baseline.
inline constexpr const char* kCubStageId = "cub";
/// Id of the copy ceiling: a device-to-device copy of the same n values.
inline constexpr const char* kCopyStageId = "copy";

/// How a stage covers an input of any length.
enum class Method {
    kScanThenPropagate,  ///< stages 1-4: scan tiles, scan their totals, add the carries (3 kernels)
    kReduceThenScan,     ///< stage 5: reduce tiles, scan the totals, scan tiles from their carry
    kSinglePass,         ///< stages 6, 6x, 7: one kernel, each tile's prefix from the look-back
    kCub,                ///< CUB decides
    kCopy,               ///< not a scan: cudaMemcpyAsync of the input, the bandwidth ceiling
};

/// What a stage's launches need, each field defaulting to stages 1-4's choice: the
/// scan-then-propagate frame, blocks of 32 to 1024 threads, 2 values per thread.
struct StageNeeds {
    Method method = Method::kScanThenPropagate;  ///< how it covers an input of any length
    int min_block = 32;                          ///< smallest supported block size (a power of two)
    int max_block = 1024;                        ///< largest supported block size (a power of two)
    int items_per_thread = 2;  ///< tile = block x items_per_thread values (0: CUB, copy)
    /// When set, the items per thread at each block size (stage 7's tuned shape), instead of
    /// items_per_thread.
    int (*items_per_thread_at)(int block) = nullptr;
};

/// One row of the stage list, at the end of its stage's file (cudatutorial::StageRow): the
/// executable, the tests and the lesson use the same list. Its launcher is the stage file's
/// (stages/scan_launchers.hpp's LaunchArgs); null for CUB, which the Scanner calls itself. A
/// stage with uses_tuner runs the candidate of stages/lookback_candidates.hpp that a tuning pass
/// chose (stage 7; measuring/adaptive_lookback.hpp), handed to its Scanner.
using StageInfo = cudatutorial::StageRow<StageNeeds, void (*)(const detail::LaunchArgs&)>;

/// Every stage, in table order: 1-5, 6, 6x (the labelled wrong stage), 7, CUB, the copy; the rows
/// of stages/stage[0-9]*.cu in file-name order, then the baselines', collected by the build.
const std::vector<StageInfo>& stages();

/// The stage with this id, or nullptr.
const StageInfo* find_stage(const std::string& id);

/// Throws std::invalid_argument with a readable message unless `id` names a stage, n >= 1, the
/// block size is a power of two within the stage's range (CUB and the copy ignore it), and the
/// stage's grids fit in a launch.
void validate_configuration(const std::string& id, std::size_t n, int block_size);

/// The look-back's time limit for one wait (stages 6, 6x, 7): a correct stage waits microseconds
/// at most, so a wait this long means a predecessor that cannot run (see stage 6x).
inline constexpr std::uint64_t kDefaultWaitLimitNs = 1'000'000'000;

/// Launch arithmetic (pure CPU, tested without a GPU).
namespace config {

/// ceil(a / b) for b > 0.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return (a + b - 1) / b;
}

/// Values one block scans at a time: block x the stage's items per thread (0 for CUB, copy).
std::uint64_t tile_items(const StageInfo& stage, int block);

/// Tiles that cover n values (at least 1).
std::uint64_t tiles(std::uint64_t n, std::uint64_t tile_items);

/// The tile totals of the scan-then-propagate frame (and stage 5), one buffer per level: level 0
/// holds the totals of n's tiles, level 1 those of level 0's tiles, ... down to a level that fits
/// in one tile (no buffer for n of one tile). 2^28 values, tile 512: {524288, 1024, 2}.
std::vector<std::uint64_t> level_sizes(std::uint64_t n, std::uint64_t tile_items);

/// One kernel launch (or library call) of a stage's run, in order.
struct Launch {
    std::string kernel;       ///< "scan_tiles", "add_carries", "decoupled_lookback", "cub", ...
    std::uint64_t grid = 0;   ///< blocks (0 for CUB and the copy: theirs)
    int block = 0;            ///< threads per block
    std::uint64_t count = 0;  ///< values this launch scans, reduces or adds to
};

/// The launches Scanner makes for `stage_id` over n values with `block` threads. Throws like
/// validate_configuration().
std::vector<Launch> plan_launches(const std::string& stage_id, std::uint64_t n, int block);

/// `blocks` as a grid size; throws std::invalid_argument naming the stage when it is over the
/// launch limit, 2^31 - 1 blocks.
unsigned int checked_grid(std::uint64_t blocks, const std::string& stage_id);

}  // namespace config

/// Runs one stage (or CUB, or the copy) over n values already on the device. The constructor
/// does all the setup: it validates (std::invalid_argument), plans the launches and allocates
/// every workspace buffer (tile totals, tile status words, the tile counter, the error flag,
/// CUB's temporary storage). run() then only launches, so that it can be timed. Not copyable.
class Scanner {
  public:
    /// `block_size` is ignored by CUB and the copy. `wait_limit_ns` bounds every look-back wait.
    /// `candidate`: for a stage that uses_tuner (stage 7), the candidate to run, an index into
    /// detail::kLookbackCandidates (its own block size replaces `block_size`), as the tuning pass
    /// chose it; -1 runs the stage's derived shape at `block_size`. Any other stage takes -1 only.
    Scanner(const std::string& stage_id, std::size_t n, int block_size, Kind kind,
            std::uint64_t wait_limit_ns = kDefaultWaitLimitNs, int candidate = -1);
    ~Scanner();
    Scanner(const Scanner&) = delete;
    Scanner& operator=(const Scanner&) = delete;
    Scanner(Scanner&&) noexcept;
    Scanner& operator=(Scanner&&) noexcept;

    /// The whole scan of d_in[0..n) into d_out[0..n), every launch on `stream`, asynchronous.
    /// Both 16-byte aligned (cudaMalloc's are). d_out may not overlap d_in.
    void run(const Value* d_in, Value* d_out, cudaStream_t stream) const;

    /// "" or why a look-back wait gave up, in any run since construction (the device's error flag
    /// is sticky; synchronizes with the device to read it). Always "" for stages without waits.
    std::string device_error() const;

    const StageInfo& stage() const;
    std::size_t n() const;
    int block_size() const;
    /// The candidate it runs, or -1.
    int candidate() const;
    Kind kind() const;
    /// The launches run() makes (config::plan_launches).
    const std::vector<config::Launch>& launches() const;
    /// Bytes of device workspace this Scanner owns.
    std::size_t workspace_bytes() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace scan
