/// @file nested_reduction.hpp
/// @brief Chapter 4's host API: nested (dynamic-parallelism) reductions ported to CDP2, their
/// device-side launch counts, the pending-launch pool, and the nested "hello world".
///
/// Every version splits the input into G = ceil(N / B) chunks of B elements (B = the block size)
/// and reduces each chunk to one partial sum by a *recursion of kernel launches made on the
/// GPU*: each level halves the data, and a new grid is launched for the next level. A second,
/// host-launched kernel then adds the G partials. The versions differ only in how the next level
/// is launched, which is the whole point of the chapter:
///
/// - `sync` (the textbook's `gpuRecursiveReduce`): every block, after `__syncthreads()`,
///   launches its child fire-and-forget; G x (log2 B - 1) device launches;
/// - `nosync` (`gpuRecursiveReduceNosync`): every block, no barrier, launches its child into the
///   tail-launch stream; G x (log2 B - 1) device launches;
/// - `per_level` (`gpuRecursiveReduce2`): block 0 only tail-launches the next level's grid of G
///   blocks; log2 B - 1 device launches.
///
/// Every device-side launch is checked on the device (`cudaGetLastError()` right after it) and
/// counted in a LaunchCounters record in device memory: successes and failures separately, with
/// the first error code. A failed launch (e.g. the pending-launch pool overflowing) leaves a
/// partial sum unwritten; the host turns the counters into a clear error instead of trusting
/// whatever the output buffer held before.
///
/// Host code only: kernels stay in the .cu files of this folder.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

namespace nested_reduction {

/// The three recursive reductions of the textbook, ported to CDP2.
enum class Version {
    kPerBlockSync,  ///< one child per block; `__syncthreads()` + fire-and-forget launch
    kPerBlockTail,  ///< one child per block; no barrier, tail launch (the grid boundary)
    kPerLevelTail,  ///< one launch per level from block 0; tail launch
};

/// One entry of the version list (the executable, the tests and the README use the same list).
/// A version's id is its --version value ("sync", "nosync", "per_level"), its name the row name
/// (e.g. "per_block_sync_fire_and_forget"), its idea how the next level is launched and why it is
/// correct.
struct VersionNeeds {
    Version version = Version::kPerBlockSync;
    std::string seed_kernel;           ///< the textbook kernel it ports, e.g. "gpuRecursiveReduce"
    std::string formula;               ///< device launches in symbols, e.g. "G*(log2 B - 1)"
    bool one_child_per_block = false;  ///< true: the launch count grows with the number of blocks
};
namespace detail {
struct RunBuffers;  // nested_launchers.hpp: where one run reads and writes
}  // namespace detail
/// Its launcher starts the version's first level (the device launches the rest).
using VersionInfo =
    cudatutorial::StageRow<VersionNeeds, void (*)(const detail::RunBuffers&, cudaStream_t)>;

/// Every version, in table order: the row at the end of each stages/v[0-9]*.cu, collected by the
/// build (cudatutorial::find_stage_in finds one by id or name).
const std::vector<VersionInfo>& versions();

/// The entry of versions() for `version`.
const VersionInfo& info(Version version);

/// Smallest and largest supported block size (powers of two).
inline constexpr int kMinBlock = 32;
inline constexpr int kMaxBlock = 1024;
/// Largest supported N (the chunk indexing is 64-bit; this keeps the input below 8 GiB).
inline constexpr std::uint64_t kMaxN = std::uint64_t{1} << 31;
/// The one-child-per-block versions are limited to this many device launches per run (the
/// textbook's own configuration, 2^20 ints in blocks of 512: 2048 x 8 = 16384). Beyond it the
/// tail-launch version alone would take seconds per run: its launches run one after another.
inline constexpr std::uint64_t kMaxPerBlockLaunches = 16384;
/// The device runtime's default pending-launch pool (cudaLimitDevRuntimePendingLaunchCount).
inline constexpr std::uint64_t kDefaultPendingLaunches = 2048;

/// ceil(n / block): the number of chunks (blocks of the first level), G.
std::uint64_t chunk_count(std::uint64_t n, int block);

/// log2 of a power of two.
int log2_exact(std::uint64_t power_of_two);

/// Device-side launches one run of `version` makes (the formula; the tests check the counter
/// against it).
std::uint64_t device_launches(Version version, std::uint64_t n, int block);

/// Host-side launches one run makes: the first level and the final sum of the partials.
inline constexpr int kHostLaunches = 2;

/// "2048*(9-1) = 16384": the formula with this configuration's numbers.
std::string formula_with_numbers(Version version, std::uint64_t n, int block);

/// Pending-launch slots that guarantee no device launch of `version` can fail for lack of
/// slots: every launch it makes, and at least the default. Measured on the H100 (README,
/// "Limits, measured"), a launch keeps its slot until its grid and the grids it launched have
/// finished, so a fire-and-forget chain holds all its slots at once: only a pool as large as
/// the total launch count is safe for version 1.
std::uint64_t pending_launches_needed(Version version, std::uint64_t n, int block);

/// Throws cudatutorial::UsageError (exit code 2) unless 1 <= n <= kMaxN, block is a power of
/// two in [kMinBlock, kMaxBlock], and, for the one-child-per-block versions, the launch count
/// stays within kMaxPerBlockLaunches. Needs no GPU.
void validate(Version version, std::uint64_t n, int block);

/// Why `version` cannot run this configuration, or empty when it can (validate() without the
/// exception).
std::string unsupported_reason(Version version, std::uint64_t n, int block);

/// The device-side launch record, in device memory, shared by every grid of one run.
struct LaunchCounters {
    unsigned long long launched = 0;  ///< device launches that returned cudaSuccess
    unsigned long long failed = 0;    ///< device launches that returned an error
    int first_error = 0;              ///< the cudaError_t of the first failure (0: none)
    int reserved = 0;
};

/// "2741 device-side launches failed (first error cudaErrorLaunchPendingCountExceeded: ...)",
/// with advice when the pool (`pool_slots`, the pending-launch limit in effect) was too small;
/// empty when `counters.failed` is 0. Needs no GPU.
std::string describe_failures(const LaunchCounters& counters, std::size_t pool_slots);

/// The pending-launch pool now in effect (cudaDeviceGetLimit).
std::size_t pending_launch_pool();

/// Sets the pending-launch pool (cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount)) and
/// reads it back; throws cudatutorial::CudaError when the runtime refuses or reports another
/// value. The CUDA guide asks for limits to be set before kernels run; this is called with the
/// device idle.
void set_pending_launch_pool(std::size_t slots);

/// Runs one version over `n` ints on the device. The constructor validates (UsageError) and
/// allocates every buffer (the working copy of the first level's sums, G partials, the launch
/// counters); run() only launches, so it can be timed. Uses the current device.
class NestedReducer {
  public:
    NestedReducer(Version version, std::uint64_t n, int block);
    ~NestedReducer();
    NestedReducer(const NestedReducer&) = delete;
    NestedReducer& operator=(const NestedReducer&) = delete;
    NestedReducer(NestedReducer&&) noexcept;
    NestedReducer& operator=(NestedReducer&&) noexcept;

    /// The whole sum of d_in[0..n) into *d_sum (device memory): two host launches on `stream`,
    /// and the nested launches they make on the device. Asynchronous. d_in is only read. The
    /// launch counters accumulate over runs until reset_counters().
    void run(const int* d_in, int* d_sum, cudaStream_t stream) const;

    /// Sets the launch counters to zero (synchronous).
    void reset_counters();
    /// Reads the launch counters (synchronous: waits for the device).
    LaunchCounters counters() const;
    /// Overwrites the working buffer and the partial sums with 0xff bytes (synchronous), so
    /// that a partial sum a failed launch never wrote cannot pass for one from an earlier run.
    void poison_workspace();

    Version version() const;
    std::uint64_t n() const;
    int block() const;
    /// G, the blocks of the first level.
    std::uint64_t chunks() const;
    /// device_launches(version(), n(), block()).
    std::uint64_t expected_device_launches() const;
    /// Bytes of device memory this object owns.
    std::size_t workspace_bytes() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// --- Nested hello world ------------------------------------------------------------------------

/// The textbook's two nested "hello world" recursions.
enum class HelloVariant {
    kOneBlockChildren,  ///< nestedHelloWorld: thread 0 of *every* block launches <<<1, T/2>>>
    kSameGridChildren,  ///< nestedHelloWorld2: thread 0 of block 0 launches <<<G, T/2>>>
};

/// Largest supported --blocks and --threads for the hello world (keeps the printf output, and
/// the device's printf buffer, small).
inline constexpr int kMaxHelloBlocks = 64;
inline constexpr int kMaxHelloThreads = 64;

/// Throws cudatutorial::UsageError unless 1 <= blocks <= kMaxHelloBlocks and threads is a power
/// of two in [1, kMaxHelloThreads].
void validate_hello(int blocks, int threads);

/// Lines each recursion depth prints: depth d runs blocks x threads/2^d threads, d = 0..log2 T.
std::vector<std::uint64_t> expected_hello_lines(int blocks, int threads);

/// Device launches of a hello-world variant: blocks x log2 T (one chain per block) or log2 T.
std::uint64_t expected_hello_launches(HelloVariant variant, int blocks, int threads);

/// What run_nested_hello() counted on the device.
struct HelloResult {
    std::vector<std::uint64_t> lines_per_depth;  ///< hello lines printed at each depth
    LaunchCounters launches;                     ///< the device-side launches
};

/// Runs a nested hello world: every thread of every grid prints one line through device printf
/// ("[depth d] hello from block b, thread t"), counted per depth by an atomic counter. Waits for
/// the device, which also flushes the printf output to stdout.
HelloResult run_nested_hello(HelloVariant variant, int blocks, int threads);

}  // namespace nested_reduction
