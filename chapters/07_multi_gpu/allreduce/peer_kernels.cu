// The kernels of the peer-memory all-reduce stages (4, 5 and 6), and the flag barrier that
// stages 4 and 6 share (stage 5 needs none).
//
// The memory-ordering argument, once for both stages. A block publishes what it wrote to peer
// memory, and learns that the peers have published theirs, like this:
//   1. every thread of the block does its loads and stores (some of them to peer GPUs);
//   2. __syncthreads(): the block's accesses are ordered before what any of its threads does next;
//   3. thread p (p < ranks, p != own rank) stores the call number into peer p's flag for this block
//      with a system-scope *release*: everything ordered before it (step 2 made that the whole
//      block's accesses) is visible to whoever sees the flag, on any GPU;
//   4. the same thread spins on its own flag for peer p with a system-scope *acquire* until it
//      reads this call's number: peer p's block has passed its step 3, so everything peer p's
//      block did before is visible here;
//   5. __syncthreads() again: the whole block may now use what the peers published.
// Release/acquire (cuda::atomic_ref at thread_scope_system) rather than volatile flags plus
// __threadfence_system(): the pair says exactly which accesses are ordered, and it orders loads
// too, which is what makes it safe to overwrite memory a peer has read (a write-after-read across
// GPUs). Scope matters: a device-scope release would order nothing for a reader on another GPU.
//
// Block b of every rank pairs with block b of every other rank, and only ever touches the slice
// of the vector that block b owns on every rank, so no grid-wide barrier is needed. A block that
// spins needs its partners to be running: the launch never has more blocks than fit on the GPU at
// once (peer_resident_blocks), or a waiting block could keep its partner from being scheduled.
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

// Every kernel's first step. Launched programmatically (stage 9), the kernel may have started
// while the previous kernel of its stream still runs: wait here until that kernel has finished
// and its writes are visible (the input may be its output, and the staging slots this call
// empties are the ones the previous call read), then let the next kernel of the stream be
// scheduled, so that its launch overlaps this call. Launched the ordinary way, both return at
// once.
__device__ void follow_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// This block's call number: one more than at its previous call. Kept in device memory, not
// passed by the host, so that a CUDA graph, which replays the same arguments, still counts.
__device__ std::uint32_t begin_call(const PeerArgs& a) {
    __shared__ std::uint32_t seq;
    if (threadIdx.x == 0) {
        seq = a.counters[blockIdx.x] + 1;
    }
    __syncthreads();
    return seq;
}

__device__ void end_call(const PeerArgs& a, std::uint32_t seq) {
    if (threadIdx.x == 0) {
        a.counters[blockIdx.x] = seq;
    }
}

// Steps 2-5 of the file comment.
__device__ void peer_barrier(const PeerArgs& a, int point, std::uint32_t seq) {
    __syncthreads();
    const int peer = static_cast<int>(threadIdx.x);
    if (peer < a.ranks && peer != a.rank) {
        SystemFlag(a.flags[peer][flag_index(point, blockIdx.x, a.rank)])
            .store(seq, cuda::memory_order_release);
        const SystemFlag mine(a.flags[a.rank][flag_index(point, blockIdx.x, peer)]);
        unsigned long long started = 0;
        while (!flag_reached(mine.load(cuda::memory_order_acquire), seq)) {
            give_up_after_timeout(started);
        }
    }
    __syncthreads();
}

// Stage 4. Every rank stores its input into its own slot of every peer's staging area (stores
// over the link are posted: the block does not wait for them to land, only the release does),
// signals, waits for every peer's signal, and sums the slots it now holds, in rank order.
// Without the flags a rank would read slots before they arrive; without the two halves, a rank
// one call ahead would overwrite a slot its peer is still summing (flag_protocol.hpp).
__global__ void one_shot_kernel(PeerArgs a) {
    follow_previous_kernel();
    const std::size_t vectors = a.n / 4;
    const std::size_t tail = a.n % 4;
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const float* mine = a.send[a.rank];
    const float4 first_vector = first_input(mine, first, vectors);
    const std::uint32_t seq = begin_call(a);
    const int half = staging_half(seq);
    for (std::size_t i = first; i < vectors; i += stride) {
        const float4 v = i == first ? first_vector : reinterpret_cast<const float4*>(mine)[i];
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                reinterpret_cast<float4*>(staging_slot(a, p, half, a.rank))[i] = v;
            }
        }
    }
    if (first < tail) {  // the last 1-3 floats, one thread each (the same thread on every rank)
        const std::size_t i = vectors * 4 + first;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                staging_slot(a, p, half, a.rank)[i] = mine[i];
            }
        }
    }
    peer_barrier(a, 0, seq);
    const auto source = [&](int p) -> const float* {
        return p == a.rank ? mine : staging_slot(a, a.rank, half, p);
    };
    float* out = a.recv[a.rank];
    for (std::size_t i = first; i < vectors; i += stride) {
        float4 sum = reinterpret_cast<const float4*>(source(0))[i];
        for (int p = 1; p < a.ranks; ++p) {
            sum = sum + reinterpret_cast<const float4*>(source(p))[i];
        }
        reinterpret_cast<float4*>(out)[i] = sum;
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        float sum = source(0)[i];
        for (int p = 1; p < a.ranks; ++p) {
            sum += source(p)[i];
        }
        out[i] = sum;
    }
    end_call(a, seq);
}

// ---- Stage 5: the data is the signal (its helpers are in peer_device.cuh) ----

// Stage 5. No flags, no fences, no barrier: every rank stores its input into its slot of every
// peer's staging buffer, and each thread spins on the very elements it will add until none of
// them reads "empty" any more. A value that is there is the value (each 4-byte lane is checked
// on its own, so a 16-byte store seen half-landed is simply waited for). The reader then marks
// the buffer it read at the previous call empty again, for the call after next; three buffers
// rotate, so the one a peer writes is never the one being read or being emptied (a rank can be
// one call ahead, never two: call k + 1 needs the peers' data of call k + 1).
__global__ void one_shot_sentinel_kernel(PeerArgs a) {
    follow_previous_kernel();
    const std::size_t vectors = a.n / 4;
    const std::size_t tail = a.n % 4;
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const float* mine = a.send[a.rank];
    const float4 first_vector = first_input(mine, first, vectors);
    const std::uint32_t seq = begin_call(a);
    const int buffer = static_cast<int>(seq % 3);
    const int emptied = static_cast<int>((seq + 2) % 3);  // the one read at call seq - 1
    for (std::size_t i = first; i < vectors; i += stride) {
        const float4 v = sendable(i == first ? first_vector : reinterpret_cast<const float4*>(mine)[i]);
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                reinterpret_cast<float4*>(staging_slot(a, p, buffer, a.rank))[i] = v;
            }
        }
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                staging_slot(a, p, buffer, a.rank)[i] = sendable(mine[i]);
            }
        }
    }
    const float4 empty4 = make_float4(__uint_as_float(kEmptySlotBits), __uint_as_float(kEmptySlotBits),
                                      __uint_as_float(kEmptySlotBits), __uint_as_float(kEmptySlotBits));
    float* out = a.recv[a.rank];
    for (std::size_t i = first; i < vectors; i += stride) {
        float4 sum = make_float4(0, 0, 0, 0);
        for (int p = 0; p < a.ranks; ++p) {
            const float4 v =
                p == a.rank ? sendable(reinterpret_cast<const float4*>(mine)[i])
                            : wait_for(reinterpret_cast<const float4*>(staging_slot(a, a.rank, buffer, p)) + i);
            sum = p == 0 ? v : sum + v;
        }
        reinterpret_cast<float4*>(out)[i] = sum;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                reinterpret_cast<float4*>(staging_slot(a, a.rank, emptied, p))[i] = empty4;
            }
        }
    }
    if (first < tail) {
        const std::size_t i = vectors * 4 + first;
        float sum = 0;
        for (int p = 0; p < a.ranks; ++p) {
            const float v = p == a.rank ? sendable(mine[i])
                                        : wait_for(staging_slot(a, a.rank, buffer, p) + i);
            sum = p == 0 ? v : sum + v;
        }
        out[i] = sum;
        for (int p = 0; p < a.ranks; ++p) {
            if (p != a.rank) {
                staging_slot(a, a.rank, emptied, p)[i] = __uint_as_float(kEmptySlotBits);
            }
        }
    }
    end_call(a, seq);
}

__global__ void fill_bits_kernel(std::uint32_t* words, std::size_t count, std::uint32_t bits) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        words[i] = bits;
    }
}

// ---- Stage 6 ----

constexpr int kTwoShotUnroll = 4;  // independent 16-byte loads per thread per peer in flight

// Stage 6. After a first barrier (every rank's kernel has started, so every input is final and
// every output may be written), each rank sums its own chunk over all ranks, loading the peers'
// inputs over the link (reduce-scatter), and stores the sum into every rank's output (all-gather),
// in the same pass. A second barrier keeps every rank's kernel running until the peers are done
// with its memory: when a rank's kernel ends, its output is complete and its input free again.
__global__ void two_shot_kernel(PeerArgs a) {
    follow_previous_kernel();
    const std::uint32_t seq = begin_call(a);
    peer_barrier(a, 0, seq);
    const std::size_t begin_vector = a.chunk_begin / 4;  // chunks start on multiples of 4 floats
    const std::size_t vectors = (a.chunk_end - a.chunk_begin) / 4;
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    for (std::size_t base = first; base < vectors; base += stride * kTwoShotUnroll) {
        float4 sum[kTwoShotUnroll];
#pragma unroll
        for (int u = 0; u < kTwoShotUnroll; ++u) {
            const std::size_t i = base + u * stride;
            if (i < vectors) {
                sum[u] = reinterpret_cast<const float4*>(a.send[0])[begin_vector + i];
            }
        }
        for (int p = 1; p < a.ranks; ++p) {
#pragma unroll
            for (int u = 0; u < kTwoShotUnroll; ++u) {
                const std::size_t i = base + u * stride;
                if (i < vectors) {
                    sum[u] = sum[u] + reinterpret_cast<const float4*>(a.send[p])[begin_vector + i];
                }
            }
        }
        for (int p = 0; p < a.ranks; ++p) {
#pragma unroll
            for (int u = 0; u < kTwoShotUnroll; ++u) {
                const std::size_t i = base + u * stride;
                if (i < vectors) {
                    reinterpret_cast<float4*>(a.recv[p])[begin_vector + i] = sum[u];
                }
            }
        }
    }
    const std::size_t tail = (a.chunk_end - a.chunk_begin) % 4;  // only the last chunk has one
    if (first < tail) {
        const std::size_t i = a.chunk_begin + vectors * 4 + first;
        float sum = a.send[0][i];
        for (int p = 1; p < a.ranks; ++p) {
            sum += a.send[p][i];
        }
        for (int p = 0; p < a.ranks; ++p) {
            a.recv[p][i] = sum;
        }
    }
    peer_barrier(a, 1, seq);
    end_call(a, seq);
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

unsigned peer_resident_blocks(PeerAlgorithm algorithm, unsigned threads) {
    int device = 0;
    int sms = 0;
    int per_sm = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const void* kernel = algorithm == PeerAlgorithm::kOneShot
                             ? reinterpret_cast<const void*>(one_shot_kernel)
                         : algorithm == PeerAlgorithm::kOneShotSentinel
                             ? reinterpret_cast<const void*>(one_shot_sentinel_kernel)
                             : reinterpret_cast<const void*>(two_shot_kernel);
    CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                           static_cast<int>(threads), 0));
    const long long resident = static_cast<long long>(per_sm) * sms;
    return static_cast<unsigned>(std::clamp<long long>(resident, 1, kMaxPeerBlocks));
}

namespace {

// Launches `kernel` on `stream`, programmatically (PeerLaunchMode) or the ordinary way.
void launch_part(void (*kernel)(PeerArgs), const PeerLaunch& shape, const PeerArgs& a,
                 bool programmatic, cudaStream_t stream) {
    if (programmatic) {
        cudatutorial::launch_programmatic(kernel, dim3(shape.blocks), dim3(shape.threads), stream, a);
    } else {
        kernel<<<shape.blocks, shape.threads, 0, stream>>>(a);
    }
}

}  // namespace

PeerAllReducePart::PeerAllReducePart(PeerAlgorithm algorithm, PeerView view, PeerLaunchMode mode)
    : algorithm_(algorithm), view_(std::move(view)),
      programmatic_(mode == PeerLaunchMode::kProgrammatic &&
                    cudatutorial::current_device_has_programmatic_launch()),
      resident_blocks_(peer_resident_blocks(algorithm, kPeerThreads)) {
    if (view_.ranks < 1 || view_.ranks > kMaxPeerRanks) {
        throw cudatutorial::UsageError("the peer-memory all-reduce takes 1 to " +
                                       std::to_string(kMaxPeerRanks) + " GPUs");
    }
}

PeerLaunch PeerAllReducePart::launch(std::size_t n) const {
    return peer_launch_shape(algorithm_, n, view_.ranks, resident_blocks_, kPeerThreads);
}

void PeerAllReducePart::run(std::size_t n, cudaStream_t stream) const {
    if (n > view_.capacity) {
        throw std::invalid_argument("PeerAllReducePart::run: n exceeds the buffers' capacity");
    }
    if (algorithm_ == PeerAlgorithm::kOneShotSentinel) {
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
        peer_workspace_layout(algorithm_, view_.ranks, view_.capacity);
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
    switch (algorithm_) {
        case PeerAlgorithm::kOneShot:
            launch_part(one_shot_kernel, shape, a, programmatic_, stream);
            break;
        case PeerAlgorithm::kOneShotSentinel:
            launch_part(one_shot_sentinel_kernel, shape, a, programmatic_, stream);
            break;
        case PeerAlgorithm::kTwoShot:
            launch_part(two_shot_kernel, shape, a, programmatic_, stream);
            break;
    }
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
