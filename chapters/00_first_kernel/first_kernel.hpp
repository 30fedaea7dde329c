/// @file first_kernel.hpp
/// @brief Chapter 0, your first kernel: the stages (vector add, grid-stride loop, stencil with
/// shared memory), the demonstrations (the index map, the raw memory calls, failing launches,
/// ways to time, managed memory) and their CPU references. Plain host declarations: the kernels
/// live in stages/ and the .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/stage.hpp"

namespace first_kernel {

// ---------------------------------------------------------------------------------------------
// The index map: which thread works on which element
// ---------------------------------------------------------------------------------------------

/// What one thread of the index-map kernel saw.
struct ThreadRecord {
    unsigned block = 0;        ///< blockIdx.x
    unsigned thread = 0;       ///< threadIdx.x
    unsigned block_dim = 0;    ///< blockDim.x
    unsigned long long i = 0;  ///< blockIdx.x * blockDim.x + threadIdx.x
    unsigned sm = 0;           ///< the SM the block ran on (%smid)
    bool wrote = false;        ///< passed the guard i < n and wrote out[i]
};

/// Launches `grid` blocks of `block` threads over n elements; each thread records itself in
/// records[blockIdx.x * blockDim.x + threadIdx.x] (grid * block records) and, if i < n, writes
/// out[i] = i. Returns the records and out (n elements).
void record_indices(int grid, int block, int n, std::vector<ThreadRecord>& records,
                    std::vector<int>& out);

/// Checks the records against the formula and the guard, and out[i] == i for every i < n.
cudatutorial::Verification verify_index_map(const std::vector<ThreadRecord>& records,
                                            const std::vector<int>& out, int grid, int block,
                                            int n);

// ---------------------------------------------------------------------------------------------
// Vector add: c[i] = a[i] + b[i]
// ---------------------------------------------------------------------------------------------

/// Launches a vector-add stage: c[i] = a[i] + b[i] for i < n, on `stream`. `grid` is used only by
/// the grid-stride stage (the others launch ceil(n / block) blocks).
using AddLaunch = void (*)(const float* a, const float* b, float* c, std::size_t n, int block,
                           int grid, cudaStream_t stream);

/// A vector-add stage: "1", "1x" (no guard: a labelled wrong answer), "2", "thrust" (baseline).
struct AddNeeds {
    bool grid_stride = false;  ///< uses the `grid` argument (any n fits any grid)
};
using AddStage = cudatutorial::StageRow<AddNeeds, AddLaunch>;

/// The vector-add stages in lesson order.
const std::vector<AddStage>& add_stages();

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, int block, int grid,
                       cudaStream_t stream);
/// Stage 1 without its guard `if (i < n)`: the last block's threads past n write too.
void launch_vector_add_no_guard(const float* a, const float* b, float* c, std::size_t n, int block,
                                int grid, cudaStream_t stream);
void launch_vector_add_grid_stride(const float* a, const float* b, float* c, std::size_t n,
                                   int block, int grid, cudaStream_t stream);
/// thrust::transform(a, a + n, b, c, plus): the library's answer, the baseline.
void launch_vector_add_thrust(const float* a, const float* b, float* c, std::size_t n, int block,
                              int grid, cudaStream_t stream);

/// Blocks needed for one thread per element: ceil(n / block). Throws UsageError when that is
/// more blocks than a grid may have (2^31 - 1).
unsigned blocks_for(std::size_t n, int block);

/// The grid-stride stage's default grid: SMs x (threads an SM holds / `block`) blocks, enough
/// for every SM's thread slots once, never more than blocks_for(n, block). Below 64 threads a
/// block that is more blocks than an SM holds at once (32 on the H100): they run in two waves
/// or more.
int grid_stride_default_grid(std::size_t n, int block, int sm_count, int max_threads_per_sm);

/// Elements of poisoned slack ("the canary") behind every array by default: at least what the
/// last block of any launch (<= 1024 threads) can hang over the end, so that a kernel without
/// its guard writes into the canary, where the check sees it.
inline constexpr std::size_t kDefaultCanary = 1024;

/// Checks c[0..n) bit for bit against a[i] + b[i] (computed here, in float, as the GPU does),
/// and that c[n..c.size()) - the canary - still holds the poison (all bytes 0xff).
cudatutorial::Verification verify_vector_add(const std::vector<float>& a,
                                             const std::vector<float>& b,
                                             const std::vector<float>& c, std::size_t n);

/// The vector add's inputs on the host and on the device, every device array followed by
/// `canary` slots: zeros behind a and b (defined values for a kernel without its guard to read),
/// the poison behind c (where such a kernel's stray writes show).
struct VectorAddArrays {
    std::vector<float> a;  ///< n random floats in [-1, 1), then `canary` zeros
    std::vector<float> b;  ///< likewise, from the next seed
    cudatutorial::DeviceBuffer<float> d_a;
    cudatutorial::DeviceBuffer<float> d_b;
    cudatutorial::DeviceBuffer<float> d_c;  ///< n + canary slots
    std::size_t n = 0;
    VectorAddArrays(std::size_t n, std::size_t canary, std::uint64_t seed);
    /// Poisons c, launches `stage` on the default stream and checks the result.
    cudatutorial::Verification run(const AddStage& stage, int block, int grid);
    /// Checks c (copied back) against a + b and its canary (verify_vector_add).
    cudatutorial::Verification verify() const;
};

/// The first element of host[n..] that is no longer the poison (all bytes 0xff), or host.size().
std::size_t first_touched_canary(const std::vector<float>& host, std::size_t n);
std::size_t first_touched_canary(const std::vector<int>& host, std::size_t n);

/// c = a + b with nothing but the runtime API, each call checked: cudaMalloc, cudaMemcpy in,
/// stage 1's launch, cudaMemcpy back, cudaFree (vector_add_raw_api.cu: what DeviceBuffer hides).
/// a and b must have the same size.
std::vector<float> vector_add_raw_api(const std::vector<float>& a, const std::vector<float>& b,
                                      int block);

// ---------------------------------------------------------------------------------------------
// 1D stencil: out[i] = in[i - r] + ... + in[i + r] (in[] = 0 outside [0, n))
// ---------------------------------------------------------------------------------------------

/// The largest stencil radius the stages accept (the shared tile is block + 2 * radius ints).
inline constexpr int kMaxRadius = 64;

/// Launches a stencil stage over n ints with radius r, blocks of `block` threads, on `stream`.
using StencilLaunch = void (*)(const int* in, int* out, std::size_t n, int radius, int block,
                               cudaStream_t stream);

/// A stencil stage: "3" (global memory), "4" (shared tile), "4x" (no barrier: labelled wrong).
using StencilStage = cudatutorial::StageRow<cudatutorial::NoNeeds, StencilLaunch>;

/// The stencil stages in lesson order.
const std::vector<StencilStage>& stencil_stages();

void launch_stencil_global(const int* in, int* out, std::size_t n, int radius, int block,
                           cudaStream_t stream);
void launch_stencil_shared(const int* in, int* out, std::size_t n, int radius, int block,
                           cudaStream_t stream);
/// Stage 4 without its __syncthreads(): threads read tile slots other warps may not have
/// written yet.
void launch_stencil_no_barrier(const int* in, int* out, std::size_t n, int radius, int block,
                               cudaStream_t stream);

/// The CPU reference: out[i] = sum of in[i - radius .. i + radius], zeros outside [0, n), in
/// 64 bits (the inputs of make_stencil_input cannot overflow an int).
std::vector<int> stencil_reference(const std::vector<int>& in, int radius);

/// n ints uniform in [-1000, 1000] from `seed` (any sum of 2 * kMaxRadius + 1 fits an int).
std::vector<int> make_stencil_input(std::size_t n, std::uint64_t seed);

/// Checks out[0..n) exactly against the reference and that out[n..] - the canary - is untouched.
cudatutorial::Verification verify_stencil(const std::vector<int>& expected,
                                          const std::vector<int>& out);

// ---------------------------------------------------------------------------------------------
// What a failing launch looks like
// ---------------------------------------------------------------------------------------------

/// One demonstration of a failure and how the program learns of it.
struct ErrorDemo {
    std::string what;          ///< what goes wrong, in words
    std::string reported_by;   ///< the call that returned the error
    std::string expected;      ///< the error code name it must produce
    std::string observed;      ///< the error code name it produced
    std::string message;       ///< the message the check reported (first line)
    std::string afterwards;    ///< what the next ordinary work did (context usable or lost)
    bool as_expected = false;  ///< observed == expected and the afterwards behaviour holds
};

/// Runs the in-process demonstrations on the current device: a block too big for the device
/// (checked, then unchecked), an allocation larger than the device. Each leaves the context
/// usable, which the demonstration checks with a verified vector add.
std::vector<ErrorDemo> run_recoverable_error_demos(int max_threads_per_block,
                                                   std::size_t global_memory);

/// The illegal-address demonstration, run in a child process (`program` with the hidden option
/// that calls run_illegal_address_child) because such an error ends the CUDA context for good.
ErrorDemo run_illegal_address_demo(const std::string& program, int device);

/// The child's side: writes through a null device pointer, reports what the launch, the next
/// synchronization and a later allocation returned as one line on stdout, and returns 0.
int run_illegal_address_child();

/// The name of a CUDA error code: "cudaErrorInvalidConfiguration".
std::string error_name(cudaError_t code);

// ---------------------------------------------------------------------------------------------
// Ways to time a kernel
// ---------------------------------------------------------------------------------------------

/// One way of timing the same vector add, with what it found.
struct TimingMethod {
    std::string id;        ///< "t1".."t5"
    std::string name;      ///< "host_clock_launch_only"
    std::string measures;  ///< what the number really contains, in words
    cudatutorial::Stats stats;
};

/// Times stage 1 on (a, b, c) five ways: the host clock around the launch alone, the host clock
/// around launch + synchronize, the first (cold) launch of a kernel not run before, CUDA events
/// around single launches, and the harness (warm-up, held stream, median). `reps` samples each
/// (the cold launch: one).
std::vector<TimingMethod> time_five_ways(const float* a, const float* b, float* c, std::size_t n,
                                         int block, int reps, int warmup);

// ---------------------------------------------------------------------------------------------
// Managed memory: one pointer valid on the host and the device, pages that migrate on demand
// ---------------------------------------------------------------------------------------------

/// The managed section's n when --n is not given: 2^24 + 1 floats, so that its three managed
/// arrays take 192 MiB (the section keeps the same three in device memory too).
inline constexpr std::size_t kManagedDefaultN = (std::size_t{1} << 24) + 1;

/// Whether `device` migrates managed pages on demand while kernels run and accepts
/// cudaMemPrefetchAsync (cudaDevAttrConcurrentManagedAccess). Not on Windows, under WSL or on
/// some laptops: there the managed rows are skipped.
bool concurrent_managed_access(int device);

/// Frees a cudaMallocManaged allocation (cudaFree), for the unique_ptr that owns it.
struct ManagedFree {
    void operator()(float* pointer) const noexcept;
};
/// One managed array of floats.
using ManagedFloats = std::unique_ptr<float, ManagedFree>;

/// The vector add's inputs in the places the managed section compares: host vectors (the
/// reference, and the pageable copies the host writes before each sample), device memory
/// (cudaMalloc) and managed memory (cudaMallocManaged). Every array has `canary` slots behind
/// its n elements, as in VectorAddArrays.
struct ManagedVectorAdd {
    std::size_t n = 0;
    std::size_t slots = 0;  ///< n + canary
    int device = 0;         ///< where cudaMemPrefetchAsync sends the pages
    std::vector<float> a;   ///< the reference inputs: n random floats, then `canary` zeros
    std::vector<float> b;
    std::vector<float> host_a;  ///< pageable memory that the host writes and cudaMemcpy reads
    std::vector<float> host_b;
    cudatutorial::DeviceBuffer<float> d_a;
    cudatutorial::DeviceBuffer<float> d_b;
    cudatutorial::DeviceBuffer<float> d_c;
    ManagedFloats m_a;  ///< managed; null when made `with_managed` false
    ManagedFloats m_b;
    ManagedFloats m_c;
    /// Allocates everything on the current device; the managed arrays only `with_managed`
    /// (where concurrent_managed_access holds, so that nothing managed is touched elsewhere).
    ManagedVectorAdd(std::size_t n, std::size_t canary, std::uint64_t seed, bool with_managed);
};

/// Device and managed bytes the managed section allocates for n elements and `canary` slots.
std::size_t managed_section_bytes(std::size_t n, std::size_t canary, bool with_managed);

/// What a row of the managed table times (its group).
inline constexpr const char* kFromHost = "inputs in + add";
inline constexpr const char* kAddAlone = "add alone";

/// One row of the managed table: where the inputs live, the state every sample starts from
/// (`reset`, untimed), the work timed (`launch`) and the check against the CPU (`verify`).
/// Its `launch` is the work timed.
struct ManagedNeeds {
    /// kFromHost: each sample starts from inputs the host has just written, so the row is timed
    /// one sample at a time (StageHooks::setup_each_sample). kAddAlone: timed back to back.
    const char* timed = kFromHost;
    bool needs_concurrent_access = false;  ///< skipped without concurrent_managed_access
    void (*reset)(ManagedVectorAdd& data, cudaStream_t stream) = nullptr;
    /// Called with the device idle; leaves managed arrays on the device again.
    cudatutorial::Verification (*verify)(ManagedVectorAdd& data) = nullptr;
};
using ManagedRow = cudatutorial::StageRow<ManagedNeeds, void (*)(ManagedVectorAdd& data, int block,
                                                                 cudaStream_t stream)>;

/// The rows in table order: inputs copied (the baseline), faulted over, prefetched; then the add
/// alone on device memory (the baseline) and on managed memory already resident.
const std::vector<ManagedRow>& managed_rows();

}  // namespace first_kernel
