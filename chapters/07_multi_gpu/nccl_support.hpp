/// @file nccl_support.hpp
/// @brief The chapter's only contact with NCCL's API: communicators and grouped all-reduce calls.
/// Compiled with or without NCCL (CT_HAVE_NCCL); without it every function throws UsageError, so
/// the rest of the chapter needs no #ifdef.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace multi_gpu::detail {

/// One NCCL communicator per GPU of a set, or the single communicator of one rank.
struct NcclComms;

/// Communicators for GPUs `devices` of this process (ncclCommInitAll).
std::shared_ptr<NcclComms> make_nccl_comms(const std::vector<int>& devices);

/// NCCL's 128-byte unique id, which rank 0 makes and every rank must receive.
std::string make_nccl_unique_id();

/// This process's communicator as rank `rank` of `ranks` (ncclCommInitRank) on the current device.
std::shared_ptr<NcclComms> make_nccl_rank_comm(const std::string& unique_id, int ranks, int rank);

/// The element types and reductions the chapter uses.
enum class NcclType { kFloat, kUint32, kDouble, kByte };
enum class NcclOp { kSum, kMin, kMax };

/// ncclAllReduce on every communicator of `comms` (grouped): recv[i] = op over all ranks of
/// send[i], count elements, enqueued on streams[i] (one per communicator).
void nccl_allreduce(const NcclComms& comms, const std::vector<cudaStream_t>& streams,
                    const std::vector<const void*>& send, const std::vector<void*>& recv,
                    std::size_t count, NcclType type, NcclOp op);

/// ncclAllGather on one rank's communicator: recv (ranks x `bytes`) = every rank's `bytes` of
/// send, in rank order, on `stream`.
void nccl_allgather_bytes(const NcclComms& comm, const void* send, void* recv, std::size_t bytes,
                          cudaStream_t stream);

}  // namespace multi_gpu::detail
