// The index map: every thread of a small launch writes down where it sits in the grid, so that
// the formula i = blockIdx.x * blockDim.x + threadIdx.x and the guard can be seen, not assumed.
#include <cuda_runtime.h>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "first_kernel.hpp"

namespace first_kernel {

namespace {

__global__ void record_indices_kernel(ThreadRecord* records, int* out, int n) {
    const unsigned long long i =
        blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    ThreadRecord record;
    record.block = blockIdx.x;
    record.thread = threadIdx.x;
    record.block_dim = blockDim.x;
    record.i = i;
    record.sm = cudatutorial::sm_id();
    record.wrote = i < static_cast<unsigned long long>(n);
    records[i] = record;  // one record per thread: the grid has exactly grid * block of them
    if (i < static_cast<unsigned long long>(n)) {
        out[i] = static_cast<int>(i);
    }
}

}  // namespace

void record_indices(int grid, int block, int n, std::vector<ThreadRecord>& records,
                    std::vector<int>& out) {
    cudatutorial::DeviceBuffer<ThreadRecord> d_records(static_cast<std::size_t>(grid) * block);
    cudatutorial::DeviceBuffer<int> d_out(static_cast<std::size_t>(n));
    d_records.fill_bytes(0);  // the records' padding bytes too: every byte copied back is defined
    d_out.fill_bytes(0xff);
    record_indices_kernel<<<grid, block>>>(d_records.data(), d_out.data(), n);
    CT_CHECK_LAUNCH();
    records = d_records.to_host();  // cudaMemcpy waits for the kernel: no explicit sync needed
    out = d_out.to_host();
}

}  // namespace first_kernel
