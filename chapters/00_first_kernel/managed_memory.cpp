// Managed memory: one pointer that the host and the device both use, and what it costs.
//
// cudaMallocManaged returns a pointer valid on the CPU and on the GPU. Its pages live in one
// place at a time and move on demand (on a GPU with concurrent managed access, as Linux gives
// it): the host writes a[i], and the page holding a[i] is in host memory; a kernel then reads
// a[i], the GPU faults on the page, and the driver migrates it to device memory before the read
// goes on. Every page a kernel touches first on the GPU pays such a fault and the migration.
// cudaMemPrefetchAsync moves a whole range ahead of the kernel instead, in bulk, and a kernel
// over pages already in device memory runs as it would on cudaMalloc'd memory.
//
// The rows, all the same vector add (stage 1's kernel) over n floats:
//   "inputs in + add": each sample starts from inputs the host has just written
//     device       cudaMalloc'd arrays; cudaMemcpy a and b in, then the add (the baseline)
//     first_touch  managed arrays; the add alone, its first touch faults a and b over
//     prefetch     managed arrays; cudaMemPrefetchAsync a and b to the GPU, then the add
//   "add alone": the inputs are already on the GPU
//     device       cudaMalloc'd arrays (stage 1, as in the add section)
//     resident     managed arrays prefetched to the GPU beforehand
// In every sample c is already on the GPU, poisoned there: the data that travels is a and b,
// 8 bytes per element, in the three "inputs in" rows alike.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/data.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace ct = cudatutorial;

bool concurrent_managed_access(int device) {
    int managed = 0;
    int concurrent = 0;
    CT_CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, device));
    CT_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
    return managed != 0 && concurrent != 0;
}

void ManagedFree::operator()(float* pointer) const noexcept {
    cudaFree(pointer);  // no check: a destructor must not throw
}

namespace {

ManagedFloats allocate_managed(std::size_t count) {
    float* pointer = nullptr;
    // One pointer for host and device. Nothing is placed yet: each page goes where it is first
    // touched (here, where the constructor's host writes put it).
    CT_CHECK(cudaMallocManaged(&pointer, count * sizeof(float)));
    return ManagedFloats(pointer);
}

// CUDA 13's cudaMemPrefetchAsync takes a cudaMemLocation: a device and its ordinal, or the host.
cudaMemLocation on_device(int device) {
    cudaMemLocation where{};
    where.type = cudaMemLocationTypeDevice;
    where.id = device;
    return where;
}

cudaMemLocation on_host() {
    cudaMemLocation where{};
    where.type = cudaMemLocationTypeHost;
    where.id = 0;  // ignored for the host
    return where;
}

void prefetch(const ManagedFloats& array, std::size_t count, cudaMemLocation where,
              cudaStream_t stream) {
    CT_CHECK(cudaMemPrefetchAsync(array.get(), count * sizeof(float), where, 0, stream));
}

// --- the state every sample starts from (untimed) ---

// The host writes the inputs into ordinary (pageable) memory, which cudaMemcpy then reads.
void reset_copies(ManagedVectorAdd& d, cudaStream_t stream) {
    std::copy(d.a.begin(), d.a.end(), d.host_a.begin());
    std::copy(d.b.begin(), d.b.end(), d.host_b.begin());
    d.d_c.fill_bytes_async(0xff, stream);
}

// The host writes the managed inputs, so their pages are in host memory and the GPU has no
// mapping of them: the state right after a program fills its arrays. (The prefetch home first
// only makes the host's writes quicker than one CPU page fault per page.)
void reset_managed_on_host(ManagedVectorAdd& d, cudaStream_t stream) {
    prefetch(d.m_a, d.slots, on_host(), stream);
    prefetch(d.m_b, d.slots, on_host(), stream);
    CT_CHECK(cudaStreamSynchronize(stream));
    std::copy(d.a.begin(), d.a.end(), d.m_a.get());
    std::copy(d.b.begin(), d.b.end(), d.m_b.get());
    prefetch(d.m_c, d.slots, on_device(d.device), stream);
    CT_CHECK(cudaMemsetAsync(d.m_c.get(), 0xff, d.slots * sizeof(float), stream));
}

void reset_device_output(ManagedVectorAdd& d, cudaStream_t stream) {
    d.d_c.fill_bytes_async(0xff, stream);
}

// Everything in device memory already: the state after an earlier kernel, or a prefetch.
void reset_managed_on_device(ManagedVectorAdd& d, cudaStream_t stream) {
    prefetch(d.m_a, d.slots, on_device(d.device), stream);
    prefetch(d.m_b, d.slots, on_device(d.device), stream);
    prefetch(d.m_c, d.slots, on_device(d.device), stream);
    CT_CHECK(cudaMemsetAsync(d.m_c.get(), 0xff, d.slots * sizeof(float), stream));
}

// --- the work timed ---

void work_copies(ManagedVectorAdd& d, int block, cudaStream_t stream) {
    CT_CHECK(cudaMemcpyAsync(d.d_a.data(), d.host_a.data(), d.d_a.bytes(), cudaMemcpyHostToDevice,
                             stream));
    CT_CHECK(cudaMemcpyAsync(d.d_b.data(), d.host_b.data(), d.d_b.bytes(), cudaMemcpyHostToDevice,
                             stream));
    launch_vector_add(d.d_a.data(), d.d_b.data(), d.d_c.data(), d.n, block, 0, stream);
}

void work_device_add(ManagedVectorAdd& d, int block, cudaStream_t stream) {
    launch_vector_add(d.d_a.data(), d.d_b.data(), d.d_c.data(), d.n, block, 0, stream);
}

// The same launch as on device memory: the kernel cannot tell managed pointers from others.
void work_managed_add(ManagedVectorAdd& d, int block, cudaStream_t stream) {
    launch_vector_add(d.m_a.get(), d.m_b.get(), d.m_c.get(), d.n, block, 0, stream);
}

void work_prefetch_then_add(ManagedVectorAdd& d, int block, cudaStream_t stream) {
    prefetch(d.m_a, d.slots, on_device(d.device), stream);
    prefetch(d.m_b, d.slots, on_device(d.device), stream);
    launch_vector_add(d.m_a.get(), d.m_b.get(), d.m_c.get(), d.n, block, 0, stream);
}

// --- the checks (the device idle) ---

ct::Verification verify_device(ManagedVectorAdd& d) {
    return verify_vector_add(d.a, d.b, d.d_c.to_host(), d.n);
}

// The host reads the result through the pointer the kernel wrote: no cudaMemcpy, c's pages come
// over to host memory as they are read. Then c goes back to the GPU, so that the next run
// starts as the row says.
ct::Verification verify_managed(ManagedVectorAdd& d) {
    const std::vector<float> c(d.m_c.get(), d.m_c.get() + d.slots);
    prefetch(d.m_c, d.slots, on_device(d.device), nullptr);
    CT_CHECK(cudaDeviceSynchronize());
    return verify_vector_add(d.a, d.b, c, d.n);
}

}  // namespace

ManagedVectorAdd::ManagedVectorAdd(std::size_t count, std::size_t canary, std::uint64_t seed,
                                   bool with_managed)
    : n(count),
      slots(count + canary),
      a(ct::random_floats(count, seed, -1.0f, 1.0f)),
      b(ct::random_floats(count, seed + 1, -1.0f, 1.0f)) {
    a.resize(slots, 0.0f);
    b.resize(slots, 0.0f);
    host_a = a;
    host_b = b;
    CT_CHECK(cudaGetDevice(&device));
    d_a = ct::DeviceBuffer<float>(a);
    d_b = ct::DeviceBuffer<float>(b);
    d_c = ct::DeviceBuffer<float>(slots);
    if (with_managed) {
        m_a = allocate_managed(slots);
        m_b = allocate_managed(slots);
        m_c = allocate_managed(slots);
        std::copy(a.begin(), a.end(), m_a.get());  // the host writes through the same pointers
        std::copy(b.begin(), b.end(), m_b.get());
    }
}

std::size_t managed_section_bytes(std::size_t n, std::size_t canary, bool with_managed) {
    const std::size_t three_arrays = 3 * (n + canary) * sizeof(float);
    return with_managed ? 2 * three_arrays : three_arrays;
}

const std::vector<ManagedRow>& managed_rows() {
    static const std::vector<ManagedRow> rows = {
        ManagedRow("device", "cudaMemcpy_then_add",
                   "cudaMalloc'd arrays: cudaMemcpy a and b in from pageable host memory, then "
                   "the add")
            .with_launcher(work_copies)
            .with_role(ct::StageRole::kBaseline)
            .with(&ManagedNeeds::reset, reset_copies)
            .with(&ManagedNeeds::verify, verify_device),
        ManagedRow("first_touch", "managed_first_touch",
                   "managed arrays the host has just written: the add touches them first on the "
                   "GPU, which faults their pages over")
            .with_launcher(work_managed_add)
            .with(&ManagedNeeds::needs_concurrent_access, true)
            .with(&ManagedNeeds::reset, reset_managed_on_host)
            .with(&ManagedNeeds::verify, verify_managed),
        ManagedRow("prefetch", "managed_prefetch",
                   "the same, with cudaMemPrefetchAsync of a and b to the GPU before the add: "
                   "the pages move in bulk, and the add finds them there")
            .with_launcher(work_prefetch_then_add)
            .with(&ManagedNeeds::needs_concurrent_access, true)
            .with(&ManagedNeeds::reset, reset_managed_on_host)
            .with(&ManagedNeeds::verify, verify_managed),
        ManagedRow("device", "vector_add", "the add alone on cudaMalloc'd arrays (stage 1)")
            .with_launcher(work_device_add)
            .with_role(ct::StageRole::kBaseline)
            .with(&ManagedNeeds::timed, kAddAlone)
            .with(&ManagedNeeds::reset, reset_device_output)
            .with(&ManagedNeeds::verify, verify_device),
        ManagedRow("resident", "managed_resident",
                   "the add alone on managed arrays already in device memory (a run after the "
                   "first)")
            .with_launcher(work_managed_add)
            .with(&ManagedNeeds::timed, kAddAlone)
            .with(&ManagedNeeds::needs_concurrent_access, true)
            .with(&ManagedNeeds::reset, reset_managed_on_device)
            .with(&ManagedNeeds::verify, verify_managed),
    };
    return rows;
}

}  // namespace first_kernel
