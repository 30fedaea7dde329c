// Sharding chapters 3 and 5: the same kernels, each GPU on 1/G of the input. Nothing in the
// kernels changes; what is new is only where the data lives and how the partial results meet.
#include "sharded.hpp"

#include "cudatutorial/check.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

ShardedJob::ShardedJob(const GpuSet& gpus, std::size_t words, Combine combine,
                       PartialFunction partial)
    : gpus_(gpus), partial_(std::move(partial)) {
    if (gpus.size() == 1) {
        return;  // the single GPU writes the total itself
    }
    for (int i = 0; i < gpus.size(); ++i) {
        const DeviceGuard guard(gpus.device(i));
        partials_.emplace_back(words);
    }
    combiner_ = std::make_unique<PartialCombiner>(gpus, words, combine);
    order_ = std::make_unique<ForkJoin>(gpus);
}

void ShardedJob::run(unsigned int* total) const {
    if (gpus_.size() == 1) {
        const DeviceGuard guard(gpus_.device(0));
        partial_(0, total, gpus_.stream(0));
        return;
    }
    order_->fork();
    std::vector<unsigned int*> partials;
    for (int i = 0; i < gpus_.size(); ++i) {
        const DeviceGuard guard(gpus_.device(i));
        unsigned int* partial = partials_[i].data();
        partial_(i, partial, gpus_.stream(i));
        partials.push_back(partial);
    }
    combiner_->combine(partials, total);
    order_->join();
}

ShardedReduction::ShardedReduction(const GpuSet& gpus,
                                   const std::vector<ct::DeviceBuffer<int>>& shards,
                                   const std::string& stage_id, int block, Combine combine) {
    for (int i = 0; i < gpus.size(); ++i) {
        const DeviceGuard guard(gpus.device(i));
        // Chapter 3's Reducer reads the current GPU's SM count and allocates its workspace there.
        reducers_.push_back(shards[i].empty() ? nullptr
                                              : std::make_unique<reduction::Reducer>(
                                                    stage_id, shards[i].size(), block));
    }
    job_ = std::make_unique<ShardedJob>(
        gpus, 1, combine, [this, &shards](int i, unsigned int* partial, cudaStream_t stream) {
            int* sum = reinterpret_cast<int*>(partial);  // same bits: the sum is modulo 2^32
            if (reducers_[i]) {
                reducers_[i]->run(shards[i].data(), sum, stream);
            } else {
                CT_CHECK(cudaMemsetAsync(sum, 0, sizeof(int), stream));  // an empty shard sums to 0
            }
        });
}

void ShardedReduction::run(int* total) const {
    job_->run(reinterpret_cast<unsigned int*>(total));
}

ShardedHistogram::ShardedHistogram(const GpuSet& gpus,
                                   const std::vector<ct::DeviceBuffer<unsigned char>>& shards,
                                   const std::string& stage_id, const histogram::Binning& binning,
                                   int block, Combine combine)
    : workspaces_(gpus.size()) {
    const histogram::Stage* stage = histogram::find_stage(stage_id);
    if (stage == nullptr) {
        throw ct::UsageError("chapter 5 has no stage '" + stage_id + "'");
    }
    job_ = std::make_unique<ShardedJob>(
        gpus, static_cast<std::size_t>(binning.bins()), combine,
        [this, &shards, stage, binning, block](int i, unsigned int* partial, cudaStream_t stream) {
            histogram::StageArgs args;
            args.input = shards[i].data();
            args.n = shards[i].size();
            args.histogram = partial;
            args.binning = binning;
            args.block = block;
            args.workspace = &workspaces_[i];
            stage->launch(args, stream);  // clears its output first, even for an empty shard
        });
}

void ShardedHistogram::run(unsigned int* total) const {
    job_->run(total);
}

}  // namespace multi_gpu
