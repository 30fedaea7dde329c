// Three ways to turn G per-GPU partial results into one total on GPU 0 (Combine): through the
// host, by one GPU reading the others' memory, or with NCCL. The partials are tiny (one int for a
// sum, 256 words for a histogram), so what differs is latency: a host round trip costs two
// synchronizations and two copies, a peer read one kernel, NCCL one collective launch.
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "multi_gpu.hpp"
#include "nccl_support.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

struct PartialCombiner::Impl {
    const GpuSet& gpus;
    std::size_t count = 0;
    Combine how = Combine::kHost;
    ForkJoin order;
    ct::PinnedBuffer<unsigned int> host_partials;              // G x count
    ct::PinnedBuffer<unsigned int> host_total;                 // count
    std::vector<ct::DeviceBuffer<unsigned int>> nccl_results;  // GPUs 1..G-1: NCCL's output

    Impl(const GpuSet& set, std::size_t words, Combine combine)
        : gpus(set), count(words), how(combine), order(set) {}
};

PartialCombiner::PartialCombiner(const GpuSet& gpus, std::size_t count, Combine combine)
    : impl_(std::make_unique<Impl>(gpus, count, combine)) {
    const int g = gpus.size();
    switch (combine) {
        case Combine::kHost:
            impl_->host_partials = ct::PinnedBuffer<unsigned int>(count * g);
            impl_->host_total = ct::PinnedBuffer<unsigned int>(count);
            break;
        case Combine::kPeer:
            for (int i = 1; i < g; ++i) {
                if (!gpus.peer_enabled(0, i)) {
                    throw ct::UsageError("combining through peer access needs GPU " +
                                         std::to_string(gpus.device(0)) + " to reach GPU " +
                                         std::to_string(gpus.device(i)) + ", which it cannot");
                }
            }
            break;
        case Combine::kNccl:
            gpus.nccl();  // create the communicators now, outside any timed run
            for (int i = 0; i < g; ++i) {
                const DeviceGuard guard(gpus.device(i));
                impl_->nccl_results.emplace_back(i == 0 ? 0 : count);
            }
            break;
    }
}

PartialCombiner::~PartialCombiner() = default;

void PartialCombiner::combine(const std::vector<unsigned int*>& partials,
                              unsigned int* total) const {
    Impl& s = *impl_;
    const int g = s.gpus.size();
    switch (s.how) {
        case Combine::kHost: {
            for (int i = 0; i < g; ++i) {
                const DeviceGuard guard(s.gpus.device(i));
                CT_CHECK(cudaMemcpyAsync(s.host_partials.data() + i * s.count, partials[i],
                                         s.count * sizeof(unsigned int), cudaMemcpyDeviceToHost,
                                         s.gpus.stream(i)));
            }
            s.gpus.synchronize();  // the CPU can only add what has arrived
            for (std::size_t w = 0; w < s.count; ++w) {
                unsigned int sum = 0;
                for (int i = 0; i < g; ++i) {
                    sum += s.host_partials.data()[i * s.count + w];
                }
                s.host_total.data()[w] = sum;
            }
            const DeviceGuard guard(s.gpus.device(0));
            CT_CHECK(cudaMemcpyAsync(total, s.host_total.data(), s.count * sizeof(unsigned int),
                                     cudaMemcpyHostToDevice, s.gpus.stream(0)));
            break;
        }
        case Combine::kPeer: {
            s.order.join();  // every partial is complete before GPU 0 reads it
            const DeviceGuard guard(s.gpus.device(0));
            std::vector<const unsigned int*> sources(partials.begin(), partials.end());
            detail::launch_sum_words(sources.data(), g, total, s.count, s.gpus.stream(0));
            break;
        }
        case Combine::kNccl: {
            std::vector<cudaStream_t> streams;
            std::vector<const void*> send;
            std::vector<void*> recv;
            for (int i = 0; i < g; ++i) {
                streams.push_back(s.gpus.stream(i));
                send.push_back(partials[i]);
                recv.push_back(i == 0 ? static_cast<void*>(total) : s.nccl_results[i].data());
            }
            detail::nccl_allreduce(s.gpus.nccl(), streams, send, recv, s.count,
                                   detail::NcclType::kUint32, detail::NcclOp::kSum);
            s.order.join();
            break;
        }
    }
}

}  // namespace multi_gpu
