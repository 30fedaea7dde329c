/// @file peer_team.hpp
/// @brief The GPUs of an all-reduce as the process that drives some of them sees them: all of
/// them from one host thread (OneProcessTeam), or one of them per process (a rank; ranks.cpp).
/// The peer-memory stages are written once against this interface and run in both modes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "multi_gpu.hpp"
#include "nccl_support.hpp"

namespace multi_gpu {

/// Every rank's copy of one buffer, as each GPU of this process addresses it. For buffers of
/// other processes, the CUDA IPC mappings stay open for the object's lifetime.
class SharedBuffers {
  public:
    virtual ~SharedBuffers() = default;
    /// pointers()[local][rank]: rank `rank`'s buffer as local GPU `local` addresses it.
    const std::vector<std::vector<void*>>& pointers() const { return pointers_; }

  protected:
    std::vector<std::vector<void*>> pointers_;
};

/// The GPUs of an all-reduce, as seen by the process that drives `local_gpus()` of them.
class PeerTeam {
  public:
    virtual ~PeerTeam() = default;
    /// How many GPUs take part in all (the ranks).
    virtual int ranks() const = 0;
    /// How many of them this process drives (all of them, or one).
    virtual int local_gpus() const = 0;
    /// The rank of local GPU `local`.
    virtual int rank_of(int local) const = 0;
    /// The CUDA ordinal of local GPU `local`.
    virtual int device_of(int local) const = 0;
    /// The stream on which local GPU `local` works; stream_of(0) is the one the timing events use.
    virtual cudaStream_t stream_of(int local) const = 0;
    /// Collective (every rank calls it, in the same order): `mine[local]` is this process's
    /// buffer for local GPU `local`, the base of a whole cudaMalloc allocation. Returns every
    /// rank's buffer as each local GPU addresses it.
    virtual std::shared_ptr<SharedBuffers> share(const std::vector<void*>& mine) = 0;
    /// Every local stream waits for what stream_of(0) holds (nothing to do for one GPU).
    virtual void fork() const = 0;
    /// stream_of(0) waits for what every local stream holds.
    virtual void join() const = 0;
    /// Replaces every value by its maximum over the ranks, so that decisions taken from
    /// measurements (the size rule) are the same on every rank.
    virtual void agree_on_max(std::vector<double>& values) = 0;
    /// NCCL's communicators over the team (throws without NCCL).
    virtual const detail::NcclComms& nccl() const = 0;
    /// Returns when every rank has called it (nothing to wait for in one process).
    virtual void barrier() {}
};

/// Every GPU of a GpuSet, driven from this thread. Sharing needs no mapping: with unified
/// addressing and peer access, a pointer means the same memory on every GPU.
class OneProcessTeam final : public PeerTeam {
  public:
    explicit OneProcessTeam(const GpuSet& gpus);
    int ranks() const override { return gpus_.size(); }
    int local_gpus() const override { return gpus_.size(); }
    int rank_of(int local) const override { return local; }
    int device_of(int local) const override { return gpus_.device(local); }
    cudaStream_t stream_of(int local) const override { return gpus_.stream(local); }
    std::shared_ptr<SharedBuffers> share(const std::vector<void*>& mine) override;
    void fork() const override { order_.fork(); }
    void join() const override { order_.join(); }
    void agree_on_max(std::vector<double>&) override {}
    const detail::NcclComms& nccl() const override { return gpus_.nccl(); }

  private:
    const GpuSet& gpus_;
    ForkJoin order_;
};

/// One GPU of several processes (a rank), joined by an NCCL communicator: buffers are shared by
/// gathering their CUDA IPC handles with ncclAllGather and opening the peers' handles.
class RankTeam final : public PeerTeam {
  public:
    /// `comm`: this rank's communicator; `stream`: this rank's stream on `device` (current).
    RankTeam(int rank, int ranks, int device, cudaStream_t stream,
             std::shared_ptr<detail::NcclComms> comm);
    int ranks() const override { return ranks_; }
    int local_gpus() const override { return 1; }
    int rank_of(int) const override { return rank_; }
    int device_of(int) const override { return device_; }
    cudaStream_t stream_of(int) const override { return stream_; }
    std::shared_ptr<SharedBuffers> share(const std::vector<void*>& mine) override;
    void fork() const override {}
    void join() const override {}
    void agree_on_max(std::vector<double>& values) override;
    const detail::NcclComms& nccl() const override { return *comm_; }
    /// Returns when every rank has called it (an all-reduce of one word, waited for).
    void barrier() override;

  private:
    int rank_ = 0;
    int ranks_ = 1;
    int device_ = 0;
    cudaStream_t stream_ = nullptr;
    std::shared_ptr<detail::NcclComms> comm_;
};

}  // namespace multi_gpu
