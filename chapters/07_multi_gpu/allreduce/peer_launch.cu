// The driver side of the peer-memory stages that runs on the GPU's side of the API: one GPU's part
// (PeerAllReducePart) launches whatever kernel its stage published (PeerKernel), with every
// rank's buffers in its arguments; the workspace's preparation; and the ring team's step
// boundary between processes. The stages' kernels live in their own files
// (stage4_one_shot.cu, stage5_one_shot_sentinel.cu, stage6_two_shot.cu); what they share in
// peer_device.cuh.
#include <cuda/atomic>

#include <algorithm>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/programmatic_launch.cuh"
#include "peer_allreduce.hpp"
#include "peer_device.cuh"

namespace multi_gpu {
namespace {

__global__ void fill_bits_kernel(std::uint32_t* words, std::size_t count, std::uint32_t bits) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        words[i] = bits;
    }
}

constexpr unsigned kPeerThreads = 512;

struct NeighbourArgs {
    std::uint32_t* flags[kMaxPeerRanks] = {};  // each rank's flag words
    std::uint32_t* counter = nullptr;          // this rank's count of syncs
    int rank = 0;
    int neighbours[2] = {0, 0};                // may be the same rank twice (two GPUs)
};

// The ring's step boundary between processes (ring_team.cpp): the same signal-then-wait as
// peer_barrier, for one block and two partners. The work before it on this stream has finished
// when the kernel starts (stream order); the system-scope fence and release publish it.
__global__ void neighbour_sync_kernel(NeighbourArgs a) {
    const int t = static_cast<int>(threadIdx.x);
    const std::uint32_t seq = *a.counter + 1;
    if (t < 2) {
        const int peer = a.neighbours[t];
        __threadfence_system();
        SystemFlag(a.flags[peer][flag_index(0, 0, a.rank)]).store(seq, cuda::memory_order_release);
        const SystemFlag mine(a.flags[a.rank][flag_index(0, 0, peer)]);
        unsigned long long started = 0;
        while (!flag_reached(mine.load(cuda::memory_order_acquire), seq)) {
            give_up_after_timeout(started);
        }
    }
    __syncthreads();
    if (t == 0) {
        *a.counter = seq;
    }
}

}  // namespace

void launch_neighbour_sync(const std::vector<void*>& workspaces, int rank, int previous, int next,
                           cudaStream_t stream) {
    NeighbourArgs a;
    const PeerWorkspaceLayout layout =
        peer_workspace_layout(PeerAlgorithm::kTwoShot, static_cast<int>(workspaces.size()), 0);
    for (std::size_t p = 0; p < workspaces.size(); ++p) {
        a.flags[p] = static_cast<std::uint32_t*>(workspaces[p]);
    }
    a.counter = reinterpret_cast<std::uint32_t*>(static_cast<char*>(workspaces[rank]) +
                                                 layout.counters_offset);
    a.rank = rank;
    a.neighbours[0] = previous;
    a.neighbours[1] = next;
    neighbour_sync_kernel<<<1, 32, 0, stream>>>(a);
    CT_CHECK_LAUNCH();
}

unsigned peer_resident_blocks(const PeerKernel& kernel, unsigned threads) {
    int device = 0;
    int sms = 0;
    int per_sm = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel.entry,
                                                           static_cast<int>(threads), 0));
    const long long resident = static_cast<long long>(per_sm) * sms;
    return static_cast<unsigned>(std::clamp<long long>(resident, 1, kMaxPeerBlocks));
}

PeerAllReducePart::PeerAllReducePart(const PeerKernel& kernel, PeerView view, PeerLaunchMode mode)
    : kernel_(kernel), view_(std::move(view)),
      programmatic_(mode == PeerLaunchMode::kProgrammatic &&
                    cudatutorial::current_device_has_programmatic_launch()),
      resident_blocks_(peer_resident_blocks(kernel, kPeerThreads)) {
    if (view_.ranks < 1 || view_.ranks > kMaxPeerRanks) {
        throw cudatutorial::UsageError("the peer-memory all-reduce takes 1 to " +
                                       std::to_string(kMaxPeerRanks) + " GPUs");
    }
    if (kernel_.entry == nullptr || kernel_.launch == nullptr) {
        throw std::invalid_argument("PeerAllReducePart: a kernel without its entry or launch");
    }
}

PeerLaunch PeerAllReducePart::launch(std::size_t n) const {
    return peer_launch_shape(kernel_.algorithm, n, view_.ranks, resident_blocks_, kPeerThreads);
}

void PeerAllReducePart::run(std::size_t n, cudaStream_t stream) const {
    if (n > view_.capacity) {
        throw std::invalid_argument("PeerAllReducePart::run: n exceeds the buffers' capacity");
    }
    if (kernel_.algorithm == PeerAlgorithm::kOneShotSentinel) {
        if (n < largest_n_) {
            throw std::invalid_argument(
                "PeerAllReducePart::run: the sentinel one-shot's n may grow, never shrink");
        }
        largest_n_ = n;
    }
    if (n == 0) {
        return;
    }
    const PeerWorkspaceLayout layout =
        peer_workspace_layout(kernel_.algorithm, view_.ranks, view_.capacity);
    PeerArgs a;
    a.rank = view_.rank;
    a.ranks = view_.ranks;
    for (int p = 0; p < view_.ranks; ++p) {
        char* base = static_cast<char*>(view_.workspace[p]);
        a.send[p] = view_.send[p];
        a.recv[p] = view_.recv[p];
        a.flags[p] = reinterpret_cast<std::uint32_t*>(base);
        a.staging[p] = layout.capacity ? reinterpret_cast<float*>(base + layout.staging_offset)
                                       : nullptr;
    }
    a.counters = reinterpret_cast<std::uint32_t*>(static_cast<char*>(view_.workspace[view_.rank]) +
                                                  layout.counters_offset);
    a.n = n;
    a.capacity = layout.capacity;
    const Range chunk = split_range(n, view_.ranks, view_.rank, 4);
    a.chunk_begin = chunk.begin;
    a.chunk_end = chunk.end;
    const PeerLaunch shape = launch(n);
    // Whichever kernel the stage published: the driver does not know, or need to know, which.
    kernel_.launch(shape.blocks, shape.threads, a, programmatic_, stream);
    CT_CHECK_LAUNCH();
}

void prepare_peer_workspace(PeerAlgorithm algorithm, void* workspace,
                            const PeerWorkspaceLayout& layout, cudaStream_t stream) {
    if (algorithm != PeerAlgorithm::kOneShotSentinel || layout.capacity == 0) {
        return;
    }
    const std::size_t words = (layout.bytes - layout.staging_offset) / sizeof(std::uint32_t);
    fill_bits_kernel<<<256, 256, 0, stream>>>(
        reinterpret_cast<std::uint32_t*>(static_cast<char*>(workspace) + layout.staging_offset),
        words, kEmptySlotBits);
    CT_CHECK_LAUNCH();
}

}  // namespace multi_gpu
