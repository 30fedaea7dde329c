/// @file persistent_allreduce.hpp
/// @brief Stage 10: an all-reduce kernel that stays resident on every GPU and takes its calls
/// from a doorbell, so that a call pays no launch. The kernel and the protocol are in
/// stage10_persistent.cu; this is the host's handle on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "multi_gpu.hpp"
#include "peer_team.hpp"

namespace multi_gpu {

class PeerAllReduce;  // peer_allreduce.hpp

/// The doorbell's top bit: end once every posted call has run.
inline constexpr std::uint64_t kResidentStopBit = std::uint64_t{1} << 63;
/// At most this many blocks per GPU (stage 10 stops at kPersistentMaxBytes, 32 blocks).
inline constexpr unsigned kMaxResidentBlocks = 64;

/// Where a resident kernel is in its life, as its block 0 writes it into mapped host memory.
enum class ResidentState : std::uint32_t {
    kLaunched = 0,   ///< launched, not running yet (the mailbox starts zeroed)
    kRunning = 1,    ///< waiting for the doorbell or running a call
    kStopped = 2,    ///< ended because the doorbell said stop: the clean end
    kIdleLimit = 3,  ///< ended because no doorbell came for ResidentLimits::idle_limit_ms
};
/// "launched", "running", "stopped", "idle limit".
const char* resident_state_name(ResidentState state);

/// How long each side waits for the other before it gives up.
struct ResidentLimits {
    /// The kernel ends (kIdleLimit) after this long without a new call: a host that stopped
    /// calling never leaves it spinning.
    std::uint32_t idle_limit_ms = 2000;
    /// The host gives up on a call, on the kernel's start and on its end after this long
    /// (std::runtime_error). Longer than the kernel's own 10 s spin limit, so that the device
    /// always gives up first (the constructor refuses less).
    std::uint32_t host_wait_ms = 12000;
    /// For tests: the last block of each GPU starts every call this late, so that the others run
    /// ahead of it (0: no straggler).
    std::uint32_t straggler_us = 0;
};

/// Stage 10 over a team: one resident kernel per local GPU, launched by the constructor on a
/// non-blocking stream of its own, stopped by finish() or the destructor. Every rank must make
/// the same calls. While it lives, nothing may wait for a whole device (cudaDeviceSynchronize,
/// cudaFree, cudaFreeHost): that would wait for the resident kernel, until its idle limit.
class PersistentAllReduce final : public RoundTripAllReducer {
  public:
    /// Collective over the ranks. With `queued_calls` > 0 those calls and the stop are posted
    /// before the launch: the kernels run them back to back and end without the host (what the
    /// tests run under compute-sanitizer, which may hold a launch until its kernel ends); the
    /// host then only calls finish(). Otherwise it waits (at most host_wait_ms) until every
    /// local kernel runs.
    PersistentAllReduce(PeerTeam& team, const std::vector<const float*>& send,
                        const std::vector<float*>& recv, std::size_t n, ResidentLimits limits = {},
                        std::uint64_t queued_calls = 0);
    /// finish(); a failure is reported on stderr, never thrown.
    ~PersistentAllReduce() override;
    PersistentAllReduce(const PersistentAllReduce&) = delete;
    PersistentAllReduce& operator=(const PersistentAllReduce&) = delete;

    /// Rings every local GPU's doorbell with the next call number and waits until every block of
    /// every local kernel has completed it. Throws std::runtime_error when a kernel has ended or
    /// the call does not complete within host_wait_ms.
    void call() override;
    /// Rings the stop and waits (at most host_wait_ms) for every local kernel to end. Throws
    /// cudatutorial::CudaError if a kernel failed, std::runtime_error if one did not end in time
    /// or ended other than by the stop.
    void finish() override;
    std::string remark() const override;
    /// Blocks each kernel runs with.
    unsigned blocks() const { return blocks_; }
    /// What local GPU `local`'s kernel last wrote about itself.
    ResidentState state(int local) const;

  private:
    struct Local;
    PeerTeam& team_;
    ResidentLimits limits_;
    std::unique_ptr<PeerAllReduce> buffers_;  // the workspaces, every rank's buffers shared
    std::vector<std::unique_ptr<Local>> locals_;
    unsigned blocks_ = 1;
    std::uint64_t posted_ = 0;
    bool finished_ = false;
};

}  // namespace multi_gpu
