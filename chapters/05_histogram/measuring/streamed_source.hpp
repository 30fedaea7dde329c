/// @file streamed_source.hpp
/// @brief Where the bytes of a streamed input come from: a file read at any offset, a generated
/// input produced chunk by chunk, or a generated input that already sits in pinned host memory.
///
/// A streamed input may be far larger than host memory (the chapter accepts --n up to 2^64 - 1),
/// so nothing here holds the whole input unless asked to (make_pinned_source). Every source can
/// be read at any offset by several threads at once: the streaming pipeline's reader cuts each
/// chunk into page-aligned pieces and fills them in parallel, because one thread copying out of
/// the page cache (a few GB/s) is far slower than the PCIe link it feeds (55 GB/s on the H100's
/// Gen5 x16). The CPU reference reads the same source again, independently of the pipeline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "histogram.hpp"

namespace histogram {

/// The input of the streamed path, readable at any offset, by several threads at once.
class ByteSource {
  public:
    virtual ~ByteSource() = default;
    /// Bytes in the input.
    virtual std::uint64_t size() const = 0;
    /// Copies bytes [offset, offset + length) to `out`. Safe to call from several threads for
    /// different ranges. Throws cudatutorial::UsageError when a file cannot be read (or shrank).
    virtual void read(std::uint64_t offset, std::size_t length, unsigned char* out) const = 0;
    /// The whole input in page-locked host memory, or nullptr: the pipeline then copies chunks
    /// to the device straight from it, with no reader thread and no staging copy.
    virtual const unsigned char* pinned() const { return nullptr; }
    /// One line for the table header, e.g. "file big.txt, read with pread by 16 threads".
    virtual std::string describe() const = 0;
};

/// The size of the file at `path`. Throws cudatutorial::UsageError (exit code 2) naming the file
/// when it does not exist or is not a regular file.
std::uint64_t input_file_size(const std::string& path);

/// The file at `path`, read with pread (positional: no shared file offset, so reader threads need
/// no lock). Throws cudatutorial::UsageError when it cannot be opened.
std::unique_ptr<ByteSource> open_file_source(const std::string& path);

/// A generated input produced on demand: read(offset, length) computes exactly those bytes of
/// generate_input(distribution, n, seed), so an input larger than host memory is never stored.
std::unique_ptr<ByteSource> make_generated_source(Distribution distribution, std::uint64_t n,
                                                  std::uint64_t seed);

/// The same input generated once, on every host thread, into page-locked host memory (the
/// "already in host memory" case). Needs a CUDA device; `generation_ms`, when not null, receives
/// the time taken (allocation and pinning included), which the timed rows exclude.
std::unique_ptr<ByteSource> make_pinned_source(Distribution distribution, std::uint64_t n,
                                               std::uint64_t seed, double* generation_ms);

/// Bytes [offset, offset + length) of generate_input(distribution, offset + length, seed),
/// written to `out`, one thread. Runs (kRuns) are found by walking the run lengths from the
/// start, about 16 Ki runs per GiB skipped; the generated source keeps checkpoints instead.
void generate_range(Distribution distribution, std::uint64_t seed, std::uint64_t offset,
                    std::size_t length, unsigned char* out);

/// Reads [offset, offset + length) of `source` into `out` on up to `threads` host threads, in
/// page-aligned pieces of at least 4 MiB (chunking.hpp).
void read_parallel(const ByteSource& source, std::uint64_t offset, std::size_t length,
                   unsigned char* out, std::size_t threads);

/// Host threads the readers use: the hardware's, at most 16.
std::size_t reader_threads();

}  // namespace histogram
