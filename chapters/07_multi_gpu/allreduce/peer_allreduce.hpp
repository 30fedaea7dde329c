/// @file peer_allreduce.hpp
/// @brief The all-reduce stages that work in peer memory with no host in the loop: one-shot with
/// flags (stage 4) and without (stage 5), two-shot (stage 6), the size rule that picks between
/// stages 5 and 6 (stage 7), the same captured in a CUDA graph (stage 8) and launched
/// programmatically (stage 9). Each GPU runs one
/// kernel that reads and writes the other GPUs' memory directly and synchronises with them
/// through flags (flag_protocol.hpp) or through the data itself (stage 5).
///
/// One GPU's part (PeerAllReducePart) sees every rank's buffers through a PeerView: in one process
/// they are the other GPUs' allocations (peer access and unified addressing make them
/// addressable), in one process per GPU they are the peers' allocations mapped with CUDA IPC
/// (ranks.cpp). The kernels cannot tell the difference.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "flag_protocol.hpp"
#include "multi_gpu.hpp"
#include "peer_team.hpp"

namespace multi_gpu {

/// How a peer-memory all-reduce moves the data.
enum class PeerAlgorithm {
    kOneShot,          ///< every rank pushes its whole input to every peer, a flag barrier, a sum
    kOneShotSentinel,  ///< the same without flags: the data is the signal (Lamport's trick)
    kTwoShot,          ///< reduce-scatter (each rank sums its chunk) then all-gather, one kernel
};

/// Stage 5's "empty" marker: the bits of -0.0f. A staging slot holds it until the peer's value
/// lands; inputs of -0.0 travel as +0.0 (the sum can then differ from IEEE's only in the sign of
/// a zero that every rank contributed as -0.0).
inline constexpr std::uint32_t kEmptySlotBits = 0x80000000u;

/// How many staging buffers an algorithm rotates through: the flag one-shot two (a rank is at
/// most one call ahead, and the barrier keeps it there), the sentinel one-shot three (one being
/// written, one being read, one being emptied for the call after next).
int staging_buffers(PeerAlgorithm algorithm);

/// "one-shot", "one-shot (sentinel)", "two-shot".
const char* peer_algorithm_name(PeerAlgorithm algorithm);

/// Where one rank's workspace keeps its flag words, its per-block call counters and (one-shot
/// only) its staging area: staging_buffers() x `ranks` slots x `capacity` floats.
struct PeerWorkspaceLayout {
    std::size_t counters_offset = 0;  ///< bytes from the start
    std::size_t staging_offset = 0;   ///< bytes from the start (16-byte aligned)
    std::size_t capacity = 0;         ///< floats per staging slot (0: no staging)
    std::size_t bytes = 0;            ///< the whole workspace
};

/// The workspace of one rank for messages of up to `capacity` floats.
PeerWorkspaceLayout peer_workspace_layout(PeerAlgorithm algorithm, int ranks,
                                          std::size_t capacity);

/// Every rank's buffers as one GPU (rank `rank`) addresses them.
struct PeerView {
    int rank = 0;                       ///< this GPU's rank
    int ranks = 1;                      ///< how many take part (at most kMaxPeerRanks)
    std::vector<const float*> send;     ///< send[p]: rank p's input
    std::vector<float*> recv;           ///< recv[p]: rank p's output
    std::vector<void*> workspace;       ///< workspace[p]: rank p's workspace (zeroed when made)
    std::size_t capacity = 0;           ///< floats the workspaces were laid out for
};

/// The launch shape of a part: the same on every rank (block b pairs with block b of every peer),
/// and never more blocks than the GPU runs at once (a block that spins on a flag must not keep
/// the block it waits for from being scheduled).
struct PeerLaunch {
    unsigned blocks = 1;   ///< blocks per GPU
    unsigned threads = 1;  ///< threads per block
};

/// The launch shape for n floats over `ranks` GPUs when at most `resident_blocks` blocks of
/// `threads` threads fit on the GPU at once. One-shot covers all n; two-shot covers the largest
/// chunk (every rank uses the same shape). Pure arithmetic: CPU-tested.
PeerLaunch peer_launch_shape(PeerAlgorithm algorithm, std::size_t n, int ranks,
                             unsigned resident_blocks, unsigned threads);

/// Every rank's buffers as one GPU's kernel addresses them: what a peer-memory kernel is
/// launched with.
struct PeerArgs {
    int rank = 0;
    int ranks = 1;
    const float* send[kMaxPeerRanks] = {};
    float* recv[kMaxPeerRanks] = {};
    std::uint32_t* flags[kMaxPeerRanks] = {};  ///< each rank's flag words
    float* staging[kMaxPeerRanks] = {};        ///< each rank's staging area (one-shot)
    std::uint32_t* counters = nullptr;         ///< this rank's call counter per block
    std::size_t n = 0;                         ///< floats to all-reduce
    std::size_t capacity = 0;                  ///< floats per staging slot
    std::size_t chunk_begin = 0;               ///< two-shot: this rank's chunk [begin, end)
    std::size_t chunk_end = 0;
};

/// A peer-memory stage's kernel as the stage file that holds it publishes it (stage4_one_shot.cu,
/// stage5_one_shot_sentinel.cu, stage6_two_shot.cu): the driver launches it without knowing which
/// one it is.
struct PeerKernel {
    PeerAlgorithm algorithm = PeerAlgorithm::kOneShot;  ///< how it moves the data (its workspace)
    const void* entry = nullptr;                        ///< the __global__ function (occupancy)
    /// Launches it with `args` on `stream`, programmatically (PeerLaunchMode) or not.
    void (*launch)(unsigned blocks, unsigned threads, const PeerArgs& args, bool programmatic,
                   cudaStream_t stream) = nullptr;
};

/// Stage 4's kernel (stage4_one_shot.cu).
PeerKernel one_shot_peer_kernel();
/// Stage 5's kernel (stage5_one_shot_sentinel.cu).
PeerKernel sentinel_peer_kernel();
/// Stage 6's kernel (stage6_two_shot.cu).
PeerKernel two_shot_peer_kernel();

/// How a part's kernel is launched.
enum class PeerLaunchMode {
    kOrdinary,      ///< starts when the previous work of its stream has finished
    /// Programmatic dependent launch (stage 9), where the GPU has it (compute capability 9.0+):
    /// the kernel may be scheduled while the previous kernel of its stream still runs, and waits
    /// for it on the GPU before touching any memory; elsewhere as kOrdinary.
    kProgrammatic,
};

/// One GPU's part of a peer-memory all-reduce. Construct with the rank's GPU current; run()
/// enqueues one kernel on `stream`. Every rank must run its part the same number of times with
/// the same n: the flags pair call k of one rank with call k of the others.
class PeerAllReducePart {
  public:
    PeerAllReducePart(const PeerKernel& kernel, PeerView view,
                      PeerLaunchMode mode = PeerLaunchMode::kOrdinary);
    /// recv[rank][i] = sum over p of send[p][i], i < n (n <= the view's capacity), summed in rank
    /// order on every rank, so that all ranks hold the same bits. For the sentinel one-shot n may
    /// grow from call to call but never shrink (throws std::invalid_argument): each call empties
    /// the slots of its own n only, so a smaller call would leave a larger one's values behind,
    /// and a later larger call would take them for fresh ones.
    void run(std::size_t n, cudaStream_t stream) const;
    /// The launch shape it uses for n floats.
    PeerLaunch launch(std::size_t n) const;
    /// Its algorithm.
    PeerAlgorithm algorithm() const { return kernel_.algorithm; }
    /// Every rank's buffers as this GPU addresses them.
    const PeerView& view() const { return view_; }

  private:
    PeerKernel kernel_;
    PeerView view_;
    bool programmatic_ = false;  // kProgrammatic on a GPU that has it
    unsigned resident_blocks_ = 1;
    mutable std::size_t largest_n_ = 0;  // the sentinel one-shot's guard (see run)
};

/// How many blocks of `threads` threads of `kernel` fit on the current GPU at once.
unsigned peer_resident_blocks(const PeerKernel& kernel, unsigned threads);

/// The ring's step boundary across processes: enqueues on `stream` a one-block kernel through
/// which rank `rank` tells ranks `previous` and `next` that its work so far is done, and waits
/// until both have said the same. `workspaces[p]`: rank p's (zeroed) workspace as this GPU
/// addresses it; every rank must make the same number of calls.
void launch_neighbour_sync(const std::vector<void*>& workspaces, int rank, int previous, int next,
                           cudaStream_t stream);

/// Readies a zeroed workspace of the current GPU for `algorithm` (the sentinel one-shot marks
/// every staging slot empty), on `stream`.
void prepare_peer_workspace(PeerAlgorithm algorithm, void* workspace,
                            const PeerWorkspaceLayout& layout, cudaStream_t stream);

/// A peer-memory all-reduce over a team: a zeroed workspace per local GPU, every rank's buffers
/// shared (peer_team.hpp), one part per local GPU. Construction is collective over the ranks.
class PeerAllReduce {
  public:
    /// `send[local]`/`recv[local]`: this process's buffers for each of its GPUs, each the base of
    /// a cudaMalloc allocation of at least `capacity` floats.
    PeerAllReduce(PeerTeam& team, const PeerKernel& kernel, const std::vector<const float*>& send,
                  const std::vector<float*>& recv, std::size_t capacity,
                  PeerLaunchMode mode = PeerLaunchMode::kOrdinary);
    /// The all-reduce of the first n floats (n <= capacity): after the work queued on the team's
    /// stream_of(0) so far, and before what is queued there later.
    void run(std::size_t n) const;
    /// Its algorithm.
    PeerAlgorithm algorithm() const { return algorithm_; }
    /// The part of local GPU `local` (its view of every rank's buffers).
    const PeerAllReducePart& part(int local) const { return parts_.at(local); }

  private:
    PeerTeam& team_;
    PeerAlgorithm algorithm_;
    std::vector<cudatutorial::DeviceBuffer<unsigned char>> workspace_;
    std::vector<std::shared_ptr<SharedBuffers>> shared_;
    std::vector<PeerAllReducePart> parts_;
};

// ---- The size rule (stage 7) ------------------------------------------------------------------

/// One probe of the size rule: both algorithms timed at one message size.
struct SizeProbe {
    std::uint64_t bytes = 0;  ///< message size
    double one_shot_ms = 0;   ///< median time of the (sentinel) one-shot
    double two_shot_ms = 0;   ///< median time of the two-shot
};

/// The size rule: messages smaller than `two_shot_from` bytes go one-shot (the sentinel one,
/// stage 5), the others two-shot.
struct SizeRule {
    std::uint64_t two_shot_from = 0;  ///< 0: two-shot everywhere
    std::string reason;               ///< one line: the probes that decided it
    /// The algorithm for a message of `bytes`.
    PeerAlgorithm choose(std::uint64_t bytes) const {
        return bytes < two_shot_from ? PeerAlgorithm::kOneShotSentinel : PeerAlgorithm::kTwoShot;
    }
};

/// The rule the probes (in increasing size) call for: two-shot from the smallest probed size at
/// which it is faster and stays faster at every larger probe; with no such size, one-shot up to
/// the largest probe and two-shot from twice that (one-shot is never used beyond what was
/// measured). The reason names the probes on each side of the boundary. Pure: CPU-tested.
SizeRule size_rule_from_probes(const std::vector<SizeProbe>& probes);

/// The message sizes the size rule probes: 4 KiB to 4 MiB by factors of 4.
std::vector<std::uint64_t> size_rule_probe_bytes();

/// Measures the size rule on `team` (collective): both algorithms at every probe size, timed as
/// `config` says (its stream is replaced by the team's), the times agreed on by all ranks. Takes
/// a few hundred milliseconds; the stages cache it per set of GPUs.
SizeRule measure_size_rule(PeerTeam& team, const cudatutorial::BenchmarkConfig& config);

}  // namespace multi_gpu
