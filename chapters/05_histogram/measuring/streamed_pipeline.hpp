/// @file streamed_pipeline.hpp
/// @brief An input larger than the GPU, counted chunk by chunk: pinned host buffers, two
/// device buffers on two streams, the copy of chunk i + 1 overlapping the count of chunk i, and
/// the per-chunk histograms added into 64-bit counters on the device.
///
/// The counting is the chapter's best stage (kStreamedStageId), reached through its Stage entry
/// like every other caller: the pipeline adds no kernel of its own but the 64-bit accumulation
/// (streamed_accumulate.cu). What to look for in the numbers: a chunk of 256 MiB crosses a PCIe
/// Gen5 x16 link in about 5 ms and is counted in about 0.1 ms, so the kernel should hide behind
/// the next copy, and the end-to-end rate should be the link's (the target: at least 80% of the
/// pinned H2D rate measured in the same run, and at most 1.1x the copies alone). For a file the
/// reader threads must keep up too: the page cache gives a few GB/s per thread (16 threads read
/// 35 GB/s on the H100 machine, below its 55 GB/s link).
///
/// Two non-blocking streams (cudaStreamNonBlocking), on purpose: the caller's stream may be the
/// legacy default stream, and a blocking stream would silently serialize with it (and with any
/// other legacy-stream work, a cudaMemset in a verification, say), so the overlap would depend
/// on what else the program does. Instead the pipeline orders itself explicitly: it starts with
/// an event recorded on the caller's stream (fork) and ends by making the caller's stream wait
/// for both of its streams (join), which is correct for any caller stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chunking.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "histogram.hpp"
#include "streamed_source.hpp"

namespace histogram {

/// The stage that counts each chunk: the chapter's fastest (stage 8, raw_byte_counts).
inline constexpr const char* kStreamedStageId = "8";

/// One count per bin, 64-bit: a streamed input may hold more than 2^32 - 1 bytes of one value.
using Histogram64 = std::vector<std::uint64_t>;

/// Adds the 32-bit per-chunk counts `d_chunk_counts` (device) into the 64-bit totals `d_total`
/// (device), `bins` of each, on `stream`, with 64-bit atomics (two streams add at once).
void accumulate_counts(const unsigned int* d_chunk_counts, unsigned long long* d_total, int bins,
                       cudaStream_t stream);

/// The CPU reference of a streamed input: `source` read again in slices of at most
/// `slice_bytes` (default 1 GiB, unrelated to the pipeline's chunks, so a chunking mistake
/// cannot hide in both), the byte values of each counted on every host thread in 64 bits, then
/// mapped to bins with Binning::bin_of (sequential_histogram's definition).
Histogram64 reference_histogram64(const ByteSource& source, const Binning& binning,
                                  std::uint64_t slice_bytes = std::uint64_t{1} << 30);

/// Compares bin by bin: empty string when equal, else the first mismatching bins.
std::string compare_histograms64(const Histogram64& reference, const Histogram64& result,
                                 const Binning& binning);

/// Host-side facts of one pipeline run, for the table (what bounds the end-to-end rate).
struct PipelineStats {
    std::uint64_t chunks = 0;  ///< chunks copied
    double fill_ms = 0;        ///< reader's time filling pinned buffers (0 for a pinned source)
    double starved_ms = 0;     ///< time the GPU side waited for the reader to fill a buffer
};

/// The streaming pipeline over one source, reusable across runs (the harness times several).
class StreamedCounter {
  public:
    /// Allocates two device buffers and, unless the source is already pinned, three pinned
    /// host buffers of min(chunk_bytes, n) bytes each; counts with `binning`, `block`, `grid`.
    StreamedCounter(const ByteSource& source, std::uint64_t chunk_bytes, const Binning& binning,
                    int block, int grid);
    ~StreamedCounter();
    StreamedCounter(const StreamedCounter&) = delete;
    StreamedCounter& operator=(const StreamedCounter&) = delete;

    /// Streams the whole input through the device: after the work already on `stream`, and
    /// `stream` waits for all of it. With `count` false only the copies run (the "copies
    /// alone" row). Waits on the host for the reader, so it returns once every chunk is queued.
    PipelineStats run(cudaStream_t stream, bool count);

    /// The 64-bit histogram of the last counting run.
    Histogram64 totals() const;
    /// Poisons the 64-bit totals, so that a run that forgets to clear them cannot pass.
    void poison_totals();
    /// Chunk `i` as it is now in its device buffer (the last two chunks after a run).
    std::vector<unsigned char> chunk_on_device(std::uint64_t i) const;

    /// Chunk 0 into device buffer 0, synchronously: for the one-chunk probes below.
    void stage_first_chunk();
    /// Copies chunk 0 from pinned host memory to device buffer 0 on `stream` (pinned H2D rate).
    void copy_first_chunk(cudaStream_t stream);
    /// Counts device buffer 0 (chunk 0) with the streamed stage on `stream` (kernel-only rate).
    void count_first_chunk(cudaStream_t stream);
    /// The 32-bit histogram count_first_chunk produced.
    Histogram first_chunk_counts() const;

    /// The chunking in use.
    const ChunkPlan& plan() const { return plan_; }
    /// Host buffers the reader fills (0 for a pinned source).
    int pinned_slots() const { return static_cast<int>(slots_.size()); }

  private:
    struct Shared;
    void read_chunks(int device, double* fill_ms);
    void enqueue_count(int buffer, std::uint64_t length, cudaStream_t stream);

    const ByteSource& source_;
    ChunkPlan plan_;
    Binning binning_;
    int block_;
    int grid_;
    std::vector<cudatutorial::PinnedBuffer<unsigned char>> slots_;
    cudatutorial::DeviceBuffer<unsigned char> device_chunks_[2];
    cudatutorial::DeviceBuffer<unsigned int> chunk_counts_[2];
    cudatutorial::DeviceBuffer<unsigned long long> totals_;
    cudatutorial::CudaStream streams_[2];
    std::vector<cudatutorial::CudaEvent> copied_;  // per slot: its last copy has finished
    cudatutorial::CudaEvent fork_;
    cudatutorial::CudaEvent joined_[2];
    std::unique_ptr<Shared> shared_;
    const Stage* stage_ = nullptr;
    Workspace workspace_;  // the stage's candidate, chosen by its first launch and kept
    const unsigned char* first_chunk_host_ = nullptr;  // where stage_first_chunk put chunk 0
};

}  // namespace histogram
