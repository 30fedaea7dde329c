// NestedReducer: the buffers of one configuration and the two host launches of a run.
#include <limits>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "nested_launchers.hpp"
#include "nested_reduction.hpp"

namespace nested_reduction {

namespace ct = cudatutorial;

struct NestedReducer::Impl {
    Version version;
    std::uint64_t n = 0;
    int block = 0;
    std::uint64_t chunks = 0;
    ct::DeviceBuffer<int> work;      // G * B/2: the first level's sums, halved in place below
    ct::DeviceBuffer<int> partials;  // G: one sum per chunk
    ct::DeviceBuffer<LaunchCounters> counters;
};

NestedReducer::NestedReducer(Version version, std::uint64_t n, int block)
    : impl_(std::make_unique<Impl>()) {
    validate(version, n, block);
    impl_->version = version;
    impl_->n = n;
    impl_->block = block;
    impl_->chunks = chunk_count(n, block);
    if (impl_->chunks > std::numeric_limits<unsigned int>::max()) {
        throw ct::UsageError("too many blocks for one grid: " + std::to_string(impl_->chunks));
    }
    impl_->work = ct::DeviceBuffer<int>(impl_->chunks * static_cast<std::uint64_t>(block / 2));
    impl_->partials = ct::DeviceBuffer<int>(impl_->chunks);
    impl_->counters = ct::DeviceBuffer<LaunchCounters>(1);
    reset_counters();
}

NestedReducer::~NestedReducer() = default;
NestedReducer::NestedReducer(NestedReducer&&) noexcept = default;
NestedReducer& NestedReducer::operator=(NestedReducer&&) noexcept = default;

void NestedReducer::run(const int* d_in, int* d_sum, cudaStream_t stream) const {
    detail::RunBuffers buffers;
    buffers.in = d_in;
    buffers.n = impl_->n;
    buffers.block = impl_->block;
    buffers.chunks = static_cast<unsigned int>(impl_->chunks);
    buffers.work = impl_->work.data();
    buffers.partials = impl_->partials.data();
    buffers.counters = impl_->counters.data();
    info(impl_->version).launch(buffers, stream);  // the version's first level
    detail::launch_sum_partials(buffers.partials, buffers.chunks, d_sum, stream);
}

void NestedReducer::reset_counters() {
    CT_CHECK(cudaDeviceSynchronize());
    impl_->counters.fill_bytes(0);
}

LaunchCounters NestedReducer::counters() const {
    CT_CHECK(cudaDeviceSynchronize());
    LaunchCounters host;
    impl_->counters.copy_to_host(&host, 1);
    return host;
}

void NestedReducer::poison_workspace() {
    CT_CHECK(cudaDeviceSynchronize());
    impl_->work.fill_bytes(0xff);
    impl_->partials.fill_bytes(0xff);
    CT_CHECK(cudaDeviceSynchronize());
}

Version NestedReducer::version() const {
    return impl_->version;
}
std::uint64_t NestedReducer::n() const {
    return impl_->n;
}
int NestedReducer::block() const {
    return impl_->block;
}
std::uint64_t NestedReducer::chunks() const {
    return impl_->chunks;
}
std::uint64_t NestedReducer::expected_device_launches() const {
    return device_launches(impl_->version, impl_->n, impl_->block);
}
std::size_t NestedReducer::workspace_bytes() const {
    return impl_->work.bytes() + impl_->partials.bytes() + impl_->counters.bytes();
}

}  // namespace nested_reduction
