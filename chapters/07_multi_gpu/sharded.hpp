/// @file sharded.hpp
/// @brief Sharded reduction and histogram: chapters 3 and 5's best stages, reused unchanged
/// through their public headers, each GPU working on its own shard, the G partial results
/// combined on GPU 0 (Combine).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/device_buffer.hpp"
#include "histogram.hpp"
#include "multi_gpu.hpp"
#include "reduction.hpp"

namespace multi_gpu {

/// The shape every sharded computation shares: each GPU computes a partial result of `words`
/// 32-bit counters on its own stream, then a PartialCombiner adds them up on GPU 0. With one GPU
/// the partial is the total (nothing to combine).
class ShardedJob {
  public:
    /// Computes GPU `index`'s partial into `partial` (device memory on that GPU) on `stream`;
    /// called with that GPU current.
    using PartialFunction = std::function<void(int index, unsigned int* partial, cudaStream_t)>;

    /// Allocates a partial buffer per GPU and the combiner. Throws like PartialCombiner.
    ShardedJob(const GpuSet& gpus, std::size_t words, Combine combine, PartialFunction partial);
    ShardedJob(const ShardedJob&) = delete;
    ShardedJob& operator=(const ShardedJob&) = delete;
    /// Everything, from shards to `total` (on GPU 0), asynchronously; bracketed for timing on GPU
    /// 0's stream (ForkJoin).
    void run(unsigned int* total) const;

  private:
    const GpuSet& gpus_;
    PartialFunction partial_;
    mutable std::vector<cudatutorial::DeviceBuffer<unsigned int>> partials_;
    std::unique_ptr<PartialCombiner> combiner_;
    std::unique_ptr<ForkJoin> order_;
};

/// One shard of the input on each GPU: GPU i holds [split_range(n, G, i)] of the host data.
template <typename T>
std::vector<cudatutorial::DeviceBuffer<T>> upload_shards(const GpuSet& gpus,
                                                         const std::vector<T>& host) {
    std::vector<cudatutorial::DeviceBuffer<T>> shards;
    for (int i = 0; i < gpus.size(); ++i) {
        const Range r = split_range(host.size(), gpus.size(), i, 16 / sizeof(T));
        const DeviceGuard guard(gpus.device(i));
        shards.emplace_back(r.size());
        shards.back().copy_from_host(host.data() + r.begin, r.size());
    }
    return shards;
}

/// Chapter 3's stage `stage_id` on every GPU's shard, the partial sums combined: the sum of all
/// `n` ints, modulo 2^32, into one int on GPU 0.
class ShardedReduction {
  public:
    /// `shards` from upload_shards over the set (kept alive by the caller); `block` as in
    /// chapter 3.
    ShardedReduction(const GpuSet& gpus, const std::vector<cudatutorial::DeviceBuffer<int>>& shards,
                     const std::string& stage_id, int block, Combine combine);
    // The partial function captures `this`: never copied or moved.
    ShardedReduction(const ShardedReduction&) = delete;
    ShardedReduction& operator=(const ShardedReduction&) = delete;
    /// The whole sum into *total (device memory on GPU 0).
    void run(int* total) const;

  private:
    std::vector<std::unique_ptr<reduction::Reducer>> reducers_;  // null for an empty shard
    std::unique_ptr<ShardedJob> job_;
};

/// Chapter 5's stage `stage_id` on every GPU's shard of bytes, the G histograms added up.
class ShardedHistogram {
  public:
    /// `shards` from upload_shards; `block` as in chapter 5.
    ShardedHistogram(const GpuSet& gpus,
                     const std::vector<cudatutorial::DeviceBuffer<unsigned char>>& shards,
                     const std::string& stage_id, const histogram::Binning& binning, int block,
                     Combine combine);
    // The partial function captures `this`: never copied or moved.
    ShardedHistogram(const ShardedHistogram&) = delete;
    ShardedHistogram& operator=(const ShardedHistogram&) = delete;
    /// The histogram of the whole input into `total` (binning.bins() counters on GPU 0).
    void run(unsigned int* total) const;

  private:
    std::vector<histogram::Workspace> workspaces_;
    std::unique_ptr<ShardedJob> job_;
};

}  // namespace multi_gpu
