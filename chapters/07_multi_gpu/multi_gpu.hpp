/// @file multi_gpu.hpp
/// @brief Chapter 7's host API: the arithmetic of splitting work over GPUs (shards, the ring
/// schedule, nccl-tests' bandwidth formulas), a set of GPUs with a stream each and peer access,
/// the topology probes, sharded reduction and histogram, and the all-reduce stages.
///
/// The pure arithmetic (first section) needs no GPU and is tested on CI. Everything else takes a
/// GpuSet. Kernels are reached through plain host functions; no `<<< >>>` outside the .cu files.
/// @code
///   multi_gpu::GpuSet gpus({0, 1});                           // a stream per GPU, peer access on
///   auto reducer = multi_gpu::make_all_reducer(*multi_gpu::find_allreduce_stage("3"), gpus, n);
///   reducer->run(send, recv);                                  // recv[g] = sum over GPUs of send
/// @endcode
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/stage.hpp"

namespace multi_gpu {

// ---- Pure arithmetic (no GPU) -----------------------------------------------------------------

/// A half-open index range [begin, end).
struct Range {
    std::size_t begin = 0;  ///< first index
    std::size_t end = 0;    ///< one past the last index
    /// Number of indices.
    std::size_t size() const { return end - begin; }
    /// True when the range holds no index.
    bool empty() const { return end == begin; }
};

/// Part `index` of [0, n) cut into `parts` contiguous pieces of whole `granule`s (the last piece
/// takes the remainder): sizes differ by at most one granule, earlier parts are the larger, and
/// the parts tile [0, n) in order. With n smaller than parts x granule some parts are empty.
/// A granule of 4 floats keeps every part's start 16-byte aligned for vector loads.
/// Throws std::invalid_argument when parts < 1, index is outside [0, parts) or granule is 0.
Range split_range(std::size_t n, int parts, int index, std::size_t granule = 1);

/// What a GPU does at one step of the ring all-reduce.
struct RingStep {
    bool reduce =
        true;        ///< true: reduce-scatter (add the received chunk); false: all-gather (copy)
    int sender = 0;  ///< the GPU it receives from: always its predecessor (gpu - 1 mod G)
    int chunk = 0;   ///< which of the G chunks moves
};

/// Steps of the ring all-reduce over `gpus` GPUs: G - 1 of reduce-scatter, then G - 1 of
/// all-gather (0 for one GPU).
constexpr int ring_steps(int gpus) {
    return 2 * (gpus - 1);
}

/// The ring schedule, as the receiver sees it. At step s, GPU g receives from g - 1:
///  - reduce-scatter (s < G - 1): chunk (g - 1 - s) mod G, which the sender has summed over s + 1
///    GPUs; g adds its own contribution, so after G - 1 steps g holds the complete sum of chunk
///    (g + 1) mod G;
///  - all-gather (s = G - 1 + t): chunk (g - t) mod G, complete, copied as it is.
/// Throws std::invalid_argument for a GPU or step out of range.
RingStep ring_step(int gpus, int gpu, int step);

/// The chunk GPU `gpu` holds complete after the reduce-scatter half: (gpu + 1) mod G.
constexpr int reduce_scatter_owner_chunk(int gpus, int gpu) {
    return (gpu + 1) % gpus;
}

/// Algorithm bandwidth as nccl-tests defines it: message bytes / time, GB/s (10^9 B/s).
double algorithm_bandwidth_gbs(double bytes, double ms);

/// Bus bandwidth of an all-reduce (nccl-tests): algbw x 2(G - 1) / G, the rate each GPU's link
/// would need if every byte crossed it in the optimal algorithm; comparable across G. 0 for G = 1.
double allreduce_bus_bandwidth_gbs(double algorithm_gbs, int gpus);

/// The all-reduce test input of GPU `gpu`: small integers in [-8, 8] stored as float, so that a
/// sum over up to 2^20 GPUs is exact in float whatever the order of the additions.
float allreduce_input_value(std::uint64_t seed, int gpu, std::size_t index);

/// The reference all-reduce result at `index`: the exact sum over GPUs 0..gpus-1.
float allreduce_expected_value(std::uint64_t seed, int gpus, std::size_t index);

/// n inputs of GPU `gpu` (allreduce_input_value), generated on several host threads.
std::vector<float> allreduce_input(std::uint64_t seed, int gpu, std::size_t n);

/// The n reference results for `gpus` GPUs (allreduce_expected_value).
std::vector<float> allreduce_expected(std::uint64_t seed, int gpus, std::size_t n);

// ---- A set of GPUs ----------------------------------------------------------------------------

/// Makes `device` current for the lifetime of the guard, then restores the previous device.
class DeviceGuard {
  public:
    /// cudaSetDevice(device), remembering the current one.
    explicit DeviceGuard(int device);
    /// Restores the device that was current before.
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

  private:
    int previous_ = 0;
};

namespace detail {
struct NcclComms;  // one NCCL communicator per GPU of a set (nccl_support.cpp)
}  // namespace detail

/// Several GPUs, one (blocking) stream each, with peer access enabled between every pair that
/// supports it (when asked). Not copyable. Disables the peer access it enabled when destroyed.
class GpuSet {
  public:
    /// `devices` are CUDA ordinals, each at most once. Throws UsageError for an empty list, a
    /// repeated or out-of-range ordinal.
    explicit GpuSet(std::vector<int> devices, bool enable_peer_access = true);
    ~GpuSet();
    GpuSet(const GpuSet&) = delete;
    GpuSet& operator=(const GpuSet&) = delete;

    /// Number of GPUs in the set.
    int size() const { return static_cast<int>(devices_.size()); }
    /// CUDA ordinal of the set's GPU `i`.
    int device(int i) const { return devices_[i]; }
    /// The stream of the set's GPU `i` (created on that device).
    cudaStream_t stream(int i) const { return streams_[i]; }
    /// True when GPU `reader` can load from and store to GPU `owner`'s memory directly.
    bool peer_enabled(int reader, int owner) const;
    /// True when every ordered pair has peer access.
    bool all_peers_enabled() const;
    /// Waits for every GPU's stream.
    void synchronize() const;
    /// Waits for everything on every GPU of the set (cudaDeviceSynchronize on each): after
    /// setting buffers up with cudaMemset/cudaMemcpy, which may still be running when they return.
    void synchronize_devices() const;
    /// NCCL communicators over the set (ncclCommInitAll), created at the first call: creating
    /// them takes far longer than any all-reduce, so every NCCL user of the set shares one.
    /// Throws UsageError where the build has no NCCL.
    const detail::NcclComms& nccl() const;

  private:
    std::vector<int> devices_;
    std::vector<cudaStream_t> streams_;
    std::vector<char> peer_;  // size x size, [reader * size + owner]
    std::vector<char> enabled_by_us_;
    mutable std::shared_ptr<detail::NcclComms> nccl_;
};

/// One ordering event (no timing) per GPU of a set, created on that GPU; destroyed with the owner.
class GpuEvents {
  public:
    /// cudaEventCreateWithFlags(cudaEventDisableTiming) on each GPU of `gpus`.
    explicit GpuEvents(const GpuSet& gpus);
    ~GpuEvents();
    GpuEvents(const GpuEvents&) = delete;
    GpuEvents& operator=(const GpuEvents&) = delete;
    /// The event of the set's GPU `i`.
    cudaEvent_t operator[](int i) const { return events_[i]; }

  private:
    std::vector<cudaEvent_t> events_;
};

/// Orders GPU streams across devices with events: the "fork" makes every GPU's stream wait for
/// work already queued on GPU 0's stream, the "join" makes GPU 0's stream wait for every other
/// GPU. Bracketing a multi-GPU operation this way lets CUDA events on GPU 0's stream time all of
/// it (the harness in common/ times one stream).
class ForkJoin {
  public:
    /// One ordering event per GPU of `gpus`.
    explicit ForkJoin(const GpuSet& gpus);
    ForkJoin(const ForkJoin&) = delete;
    ForkJoin& operator=(const ForkJoin&) = delete;
    /// Every stream waits for what GPU 0's stream holds so far.
    void fork() const;
    /// GPU 0's stream waits for what every other stream holds so far.
    void join() const;

  private:
    const GpuSet& gpus_;
    GpuEvents events_;
};

// ---- Topology ---------------------------------------------------------------------------------

/// What the runtime says about one ordered pair of GPUs.
struct PeerInfo {
    int from = 0;                 ///< accessing device ordinal
    int to = 0;                   ///< accessed device ordinal
    bool can_access = false;      ///< cudaDeviceCanAccessPeer
    int performance_rank = 0;     ///< cudaDevP2PAttrPerformanceRank (lower is better)
    bool native_atomics = false;  ///< cudaDevP2PAttrNativeAtomicSupported
};

/// Every ordered pair of distinct devices among `devices`.
std::vector<PeerInfo> query_peers(const std::vector<int>& devices);

/// How a copy from one GPU to another is made.
enum class CopyPath {
    kHostStaged,         ///< device -> pinned host -> device, two cudaMemcpyAsync
    kPeerNoAccess,       ///< cudaMemcpyPeerAsync with peer access disabled (the driver stages it)
    kPeerAccess,         ///< cudaMemcpyPeerAsync with peer access enabled (direct over the link)
    kPeerBidirectional,  ///< both directions at once, peer access enabled (bytes counted twice)
};

/// "host_staged", "peer_no_access", "peer_access", "peer_bidirectional".
const char* copy_path_name(CopyPath path);

// ---- Combining per-GPU partial results --------------------------------------------------------

/// How G partial results (arrays of 32-bit counters, summed modulo 2^32) become one, on GPU 0.
enum class Combine {
    kHost,  ///< each GPU copies its partial to pinned host memory; the CPU adds; one copy back
    kPeer,  ///< one kernel on GPU 0 loads every GPU's partial through peer access and adds
    kNccl,  ///< ncclAllReduce over the partials (every GPU ends with the total)
};

/// "host", "peer", "nccl".
const char* combine_name(Combine combine);

/// True when this build has NCCL (the NCCL rows and --ranks need it).
bool nccl_available();
/// NCCL's version as "2.28.3", or "not built with NCCL".
std::string nccl_version();

/// Sums G partials of `count` 32-bit words (one per GPU of `gpus`, partials[g] on GPU g) into
/// `total` on GPU 0, asynchronously on the GPUs' streams, by `combine`. Owns the pinned buffer,
/// the device scratch and the NCCL communicators it needs; everything is allocated by the
/// constructor, so combine() only enqueues work (kHost also waits for the partials on the host).
class PartialCombiner {
  public:
    /// Throws UsageError when `combine` needs what is missing (peer access, NCCL).
    PartialCombiner(const GpuSet& gpus, std::size_t count, Combine combine);
    ~PartialCombiner();
    PartialCombiner(const PartialCombiner&) = delete;
    PartialCombiner& operator=(const PartialCombiner&) = delete;
    /// total (on GPU 0) = sum over g of partials[g], modulo 2^32 per word.
    void combine(const std::vector<unsigned int*>& partials, unsigned int* total) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Device-side helpers shared by the combiners and the all-reduce stages (kernels.cu; the add
/// of two in allreduce/stage3_ring_peer_kernel.cu).
namespace detail {
/// dst[i] = sum over p < parts of sources[p][i], i < count, on the current device's `stream`.
/// The sources may live on other GPUs (peer access).
void launch_sum_words(const unsigned int* const* sources, int parts, unsigned int* dst,
                      std::size_t count, cudaStream_t stream);
/// dst[i] = a[i] + b[i] for i < count (b may be a peer GPU's memory), on the current device.
void launch_add_floats(const float* a, const float* b, float* dst, std::size_t count,
                       cudaStream_t stream);
/// dst[i] = sum over p < parts of sources[p][i] (floats; sources may be peer memory).
void launch_sum_floats(const float* const* sources, int parts, float* dst, std::size_t count,
                       cudaStream_t stream);
}  // namespace detail

// ---- The all-reduce stages --------------------------------------------------------------------

/// Runs one all-reduce algorithm over the GPUs of a set: recv[g][i] = sum over GPUs of
/// send[g][i], i < n, out of place (the inputs are never modified, so every repetition computes
/// the same result). run() starts after all work queued on GPU 0's stream and finishes before
/// anything queued there later: events on GPU 0's stream time it.
class AllReducer {
  public:
    virtual ~AllReducer() = default;
    /// `send` and `recv`: one device pointer of n floats per GPU of the set, on that GPU.
    virtual void run(const std::vector<const float*>& send,
                     const std::vector<float*>& recv) const = 0;
    /// A remark for the table's notes, or empty (see TeamAllReducer::remark).
    virtual std::string remark() const { return {}; }
};

class PeerTeam;  // the GPUs of an all-reduce as one process sees them (allreduce/peer_team.hpp)

/// An all-reduce over buffers fixed when it was made, on a team of GPUs: all of them driven from
/// this process, or this process's one GPU among several processes (--ranks). run() starts after
/// the work queued on the team's first stream and finishes before what is queued there later.
class TeamAllReducer {
  public:
    virtual ~TeamAllReducer() = default;
    /// Enqueues the all-reduce.
    virtual void run() const = 0;
    /// A remark for the table's notes (stage 7's size rule and why), or empty.
    const std::string& remark() const { return remark_; }
    /// Sets the remark.
    void set_remark(std::string remark) { remark_ = std::move(remark); }

  private:
    std::string remark_;
};

/// Makes a TeamAllReducer: `send[local]`/`recv[local]` are this process's buffers of n floats,
/// one per local GPU of `team`, each a whole cudaMalloc allocation. Collective over the ranks.
using MakeTeamAllReducer =
    std::unique_ptr<TeamAllReducer> (*)(PeerTeam& team, const std::vector<const float*>& send,
                                        const std::vector<float*>& recv, std::size_t n);

/// An all-reduce as a caller that waits for each result sees it: call() hands the request to the
/// GPUs and returns once the result is in every local GPU's output and usable by the host. For a
/// launched stage, its run() and a synchronize of every local stream; for a kernel that stays
/// resident (stage 10), a doorbell and a completion flag. Timed on the host (round-trip section).
class RoundTripAllReducer {
  public:
    virtual ~RoundTripAllReducer() = default;
    /// One all-reduce, from the request to the result.
    virtual void call() = 0;
    /// Ends what still runs on the GPUs (a resident kernel), so that the buffers may be freed.
    /// Every rank must call it (it may wait for the peers); later calls do nothing.
    virtual void finish() {}
    /// A remark for the table's notes, or empty.
    virtual std::string remark() const { return {}; }
};

/// Makes a RoundTripAllReducer over buffers of n floats, as MakeTeamAllReducer. Collective.
using MakeRoundTripAllReducer =
    std::unique_ptr<RoundTripAllReducer> (*)(PeerTeam& team, const std::vector<const float*>& send,
                                             const std::vector<float*>& recv, std::size_t n);

/// Whether a stage is a step of the progression or the library it is measured against.
using Role = cudatutorial::StageRole;

/// One all-reduce stage: one row of the table per message size.
struct AllReduceNeeds {
    bool needs_peer_access = false;  ///< true: skipped (with a note) where a pair lacks it
    /// Made on a team, so that it runs in one process per GPU (and, without `launch`, in one
    /// process too): stages 2-9 and NCCL. Stage 1 has none: gathering on GPU 0 is a
    /// one-process design.
    MakeTeamAllReducer make_team = nullptr;
    /// The largest message the stage runs (0: any); larger sizes are skipped with a note.
    std::uint64_t max_bytes = 0;
    /// Why it stops there.
    const char* why_max_bytes = "";
    /// Stage 10: a kernel that stays resident and takes its calls from a doorbell. It has no
    /// launch per call for CUDA events to bracket, so it runs only in the round-trip section,
    /// timed on the host; `launch` and `make_team` are null.
    MakeRoundTripAllReducer make_resident = nullptr;
};
/// Its `launch` makes the stage's AllReducer in one process, for n floats over the GPUs of a set
/// (stages 1-3: the workspace, staging buffers and events, ordered with CUDA events); null for a
/// stage made only on a team.
using AllReduceStage =
    cudatutorial::StageRow<AllReduceNeeds,
                           std::unique_ptr<AllReducer> (*)(const GpuSet& gpus, std::size_t n)>;

/// Stages 4 and 5 (one-shot) run up to this size: every GPU receives all G - 1 inputs whole and
/// keeps two or three staging copies of each, so past a few MiB it only costs memory and link
/// time.
inline constexpr std::uint64_t kOneShotMaxBytes = std::uint64_t{64} << 20;

/// Every stage in table order: 1 naive, 2 ring with copies, 3 ring with peer kernels, nccl (only
/// where built with NCCL).
const std::vector<AllReduceStage>& allreduce_stages();
/// The stage with this id or name, or nullptr.
const AllReduceStage* find_allreduce_stage(const std::string& id_or_name);

/// Stage 1: gather everything on GPU 0, add, broadcast
/// (allreduce/stage1_naive_gather_broadcast.cpp).
std::unique_ptr<AllReducer> make_naive_gather_broadcast(const GpuSet& gpus, std::size_t n);
/// Stage 2: the ring, every transfer a cudaMemcpyPeerAsync into a staging chunk, then an add
/// (allreduce/stage2_ring_memcpy.cpp).
std::unique_ptr<AllReducer> make_ring_memcpy(const GpuSet& gpus, std::size_t n);
/// Stage 3: the ring, each step one kernel that loads the neighbour's chunk through peer access
/// and adds in the same pass (allreduce/stage3_ring_peer_kernel.cu).
std::unique_ptr<AllReducer> make_ring_peer_kernel(const GpuSet& gpus, std::size_t n);
/// Stages 2 and 3 made on a team: the same ring with step boundaries through flags instead of
/// events, so that it runs in one process per GPU (allreduce/ring_team.cpp).
std::unique_ptr<TeamAllReducer> make_ring_memcpy_team(PeerTeam& team,
                                                      const std::vector<const float*>& send,
                                                      const std::vector<float*>& recv,
                                                      std::size_t n);
/// Stage 3's team form (see make_ring_memcpy_team).
std::unique_ptr<TeamAllReducer> make_ring_peer_kernel_team(PeerTeam& team,
                                                           const std::vector<const float*>& send,
                                                           const std::vector<float*>& recv,
                                                           std::size_t n);
/// Stage 4: one-shot, every GPU pushes its input to every peer and sums locally
/// (allreduce/stage4_one_shot.cpp).
std::unique_ptr<TeamAllReducer> make_one_shot(PeerTeam& team, const std::vector<const float*>& send,
                                              const std::vector<float*>& recv, std::size_t n);
/// Stage 5: one-shot with the data as the signal, no flags
/// (allreduce/stage5_one_shot_sentinel.cpp).
std::unique_ptr<TeamAllReducer> make_one_shot_sentinel(PeerTeam& team,
                                                       const std::vector<const float*>& send,
                                                       const std::vector<float*>& recv,
                                                       std::size_t n);
/// Stage 6: two-shot, reduce-scatter and all-gather in one kernel (allreduce/stage6_two_shot.cpp).
std::unique_ptr<TeamAllReducer> make_two_shot(PeerTeam& team, const std::vector<const float*>& send,
                                              const std::vector<float*>& recv, std::size_t n);
/// Stage 7: stage 5 or stage 6 by a size rule measured on these GPUs
/// (allreduce/stage7_size_rule.cpp).
std::unique_ptr<TeamAllReducer> make_size_rule(PeerTeam& team,
                                               const std::vector<const float*>& send,
                                               const std::vector<float*>& recv, std::size_t n);
/// Stage 8: stage 7 captured in a CUDA graph (allreduce/stage8_size_rule_graph.cpp).
std::unique_ptr<TeamAllReducer> make_size_rule_graph(PeerTeam& team,
                                                     const std::vector<const float*>& send,
                                                     const std::vector<float*>& recv,
                                                     std::size_t n);
/// Stage 9: stage 7, each kernel launched programmatically so that its launch overlaps the
/// previous call (allreduce/stage9_size_rule_pdl.cpp).
std::unique_ptr<TeamAllReducer> make_size_rule_pdl(PeerTeam& team,
                                                   const std::vector<const float*>& send,
                                                   const std::vector<float*>& recv, std::size_t n);
/// Stage 10 runs up to this size: its kernel holds its blocks, and the SMs they sit on, for as
/// long as it lives; past a few hundred KiB the launch it saves is a small part of the call.
inline constexpr std::uint64_t kPersistentMaxBytes = std::uint64_t{256} << 10;
/// Stage 10: stage 5's all-reduce in a kernel that stays resident on every GPU and takes its
/// calls from a doorbell in mapped host memory (allreduce/stage10_persistent.cu).
std::unique_ptr<RoundTripAllReducer> make_persistent(PeerTeam& team,
                                                     const std::vector<const float*>& send,
                                                     const std::vector<float*>& recv,
                                                     std::size_t n);
/// The baseline: ncclAllReduce (allreduce/nccl_allreduce.cpp); throws without NCCL.
std::unique_ptr<TeamAllReducer> make_nccl_allreduce(PeerTeam& team,
                                                    const std::vector<const float*>& send,
                                                    const std::vector<float*>& recv, std::size_t n);

/// The stage as an AllReducer over the GPUs of one process: its own make, or its make_team on a
/// team of those GPUs (made at the first run, for the buffers that run names, and again if
/// they change).
std::unique_ptr<AllReducer> make_all_reducer(const AllReduceStage& stage, const GpuSet& gpus,
                                             std::size_t n);

}  // namespace multi_gpu
