// The byte sources of the streamed path (streamed_source.hpp): a file read with pread, a
// generated input produced range by range, and a generated input held in pinned host memory.
#include "streamed_source.hpp"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "chunking.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"

namespace histogram {

namespace ct = cudatutorial;

namespace {

ct::UsageError file_error(const std::string& path, const std::string& why) {
    return ct::UsageError("--input", "cannot read '" + path + "': " + why);
}

class FileSource final : public ByteSource {
  public:
    explicit FileSource(const std::string& path) : path_(path), size_(input_file_size(path)) {
        descriptor_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (descriptor_ < 0) {
            throw file_error(path, std::strerror(errno));
        }
        // The reader goes front to back once: ask the kernel for a large read-ahead.
        ::posix_fadvise(descriptor_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    ~FileSource() override { ::close(descriptor_); }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;

    std::uint64_t size() const override { return size_; }

    void read(std::uint64_t offset, std::size_t length, unsigned char* out) const override {
        while (length > 0) {
            const ssize_t got = ::pread(descriptor_, out, length, static_cast<off_t>(offset));
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got < 0) {
                throw file_error(path_, std::string("read error: ") + std::strerror(errno));
            }
            if (got == 0) {
                throw file_error(path_, "it became shorter while it was read (" +
                                            std::to_string(size_) + " bytes at the start)");
            }
            out += got;
            offset += static_cast<std::uint64_t>(got);
            length -= static_cast<std::size_t>(got);
        }
    }

    std::string describe() const override {
        return "file " + path_ + ", read with pread by " + std::to_string(reader_threads()) +
               " host threads into pinned buffers";
    }

  private:
    std::string path_;
    std::uint64_t size_ = 0;
    int descriptor_ = -1;
};

// Where run `run` of the kRuns distribution starts.
struct RunStart {
    std::uint64_t run = 0;
    std::uint64_t position = 0;
};

std::uint64_t run_length(std::uint64_t seed, std::uint64_t run) {
    return 1 + ct::bounded(ct::hash64(seed, 2 * run), static_cast<std::uint32_t>(kMaxRunLength));
}

unsigned char run_letter(std::uint64_t seed, std::uint64_t run) {
    return static_cast<unsigned char>('a' + ct::bounded(ct::hash64(seed, 2 * run + 1), kLetters));
}

// Walks from `from` (a run start at or before `offset`) to the run that holds `offset`.
RunStart find_run(std::uint64_t seed, std::uint64_t offset, RunStart from) {
    while (from.position + run_length(seed, from.run) <= offset) {
        from.position += run_length(seed, from.run);
        ++from.run;
    }
    return from;
}

void fill_runs(std::uint64_t seed, std::uint64_t offset, std::size_t length, unsigned char* out,
               RunStart at) {
    std::uint64_t position = offset;
    const std::uint64_t end = offset + length;
    while (position < end) {
        const std::uint64_t run_end = std::min(end, at.position + run_length(seed, at.run));
        std::memset(out + (position - offset), run_letter(seed, at.run), run_end - position);
        position = run_end;
        at.position += run_length(seed, at.run);
        ++at.run;
    }
}

class GeneratedSource final : public ByteSource {
  public:
    GeneratedSource(Distribution distribution, std::uint64_t n, std::uint64_t seed)
        : distribution_(distribution), size_(n), seed_(seed) {}

    std::uint64_t size() const override { return size_; }

    void read(std::uint64_t offset, std::size_t length, unsigned char* out) const override {
        if (distribution_ != Distribution::kRuns) {
            generate_range(distribution_, seed_, offset, length, out);
            return;
        }
        // Walking the runs from the start for every piece would cost O(offset) per piece; the
        // pieces arrive roughly in order, so the nearest run start already found is close.
        RunStart from;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            auto found = checkpoints_.upper_bound(offset);
            if (found != checkpoints_.begin()) {
                --found;
                from = RunStart{found->second, found->first};
            }
        }
        const RunStart at = find_run(seed_, offset, from);
        fill_runs(seed_, offset, length, out, at);
        const std::lock_guard<std::mutex> lock(mutex_);
        checkpoints_.emplace(at.position, at.run);
    }

    std::string describe() const override {
        return "generated " + distribution_name(distribution_) + " chunk by chunk by " +
               std::to_string(reader_threads()) + " host threads into pinned buffers";
    }

  private:
    Distribution distribution_;
    std::uint64_t size_;
    std::uint64_t seed_;
    mutable std::mutex mutex_;
    mutable std::map<std::uint64_t, std::uint64_t> checkpoints_;  // run start -> run index
};

// Generated into ordinary memory first and pinned afterwards (cudaHostRegister), rather than
// into cudaMallocHost memory: the kernel must zero every page it hands out, and for
// cudaMallocHost that happens in one thread inside the call, whereas here the 16 generator
// threads touch (and so zero) their own pages in parallel; pinning then finds the pages present.
class PinnedSource final : public ByteSource {
  public:
    PinnedSource(Distribution distribution, std::uint64_t n, std::uint64_t seed)
        : distribution_(distribution), size_(static_cast<std::size_t>(n)) {
        if (size_ == 0) {
            return;
        }
        bytes_.reset(new unsigned char[size_]);  // not value-initialized: no page touched yet
        const GeneratedSource generator(distribution, n, seed);
        read_parallel(generator, 0, size_, bytes_.get(), reader_threads());
        if (cudaHostRegister(bytes_.get(), size_, cudaHostRegisterDefault) != cudaSuccess) {
            // Some systems refuse to pin ordinary memory (a locked-memory limit, say): copy it
            // into cudaMallocHost memory instead, slower but the same bytes.
            (void)cudaGetLastError();
            copy_ = cudatutorial::PinnedBuffer<unsigned char>(size_);
            std::memcpy(copy_.data(), bytes_.get(), size_);
            bytes_.reset();
        }
    }
    ~PinnedSource() override {
        if (bytes_) {
            cudaHostUnregister(bytes_.get());
        }
    }
    PinnedSource(const PinnedSource&) = delete;
    PinnedSource& operator=(const PinnedSource&) = delete;

    std::uint64_t size() const override { return size_; }

    void read(std::uint64_t offset, std::size_t length, unsigned char* out) const override {
        std::memcpy(out, pinned() + offset, length);
    }

    const unsigned char* pinned() const override { return bytes_ ? bytes_.get() : copy_.data(); }

    std::string describe() const override {
        return "generated " + distribution_name(distribution_) +
               ", whole, in pinned host memory (copied from there)";
    }

  private:
    Distribution distribution_;
    std::size_t size_;
    std::unique_ptr<unsigned char[]> bytes_;          // registered (pinned) in place
    cudatutorial::PinnedBuffer<unsigned char> copy_;  // or copied here when that failed
};

}  // namespace

std::uint64_t input_file_size(const std::string& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) {
        throw file_error(path, errno == ENOENT ? "no such file" : std::strerror(errno));
    }
    if (!S_ISREG(status.st_mode)) {
        throw file_error(path, "not a regular file");
    }
    return static_cast<std::uint64_t>(status.st_size);
}

std::unique_ptr<ByteSource> open_file_source(const std::string& path) {
    return std::make_unique<FileSource>(path);
}

std::unique_ptr<ByteSource> make_generated_source(Distribution distribution, std::uint64_t n,
                                                  std::uint64_t seed) {
    return std::make_unique<GeneratedSource>(distribution, n, seed);
}

std::unique_ptr<ByteSource> make_pinned_source(Distribution distribution, std::uint64_t n,
                                               std::uint64_t seed, double* generation_ms) {
    const auto start = std::chrono::steady_clock::now();
    auto source = std::make_unique<PinnedSource>(distribution, n, seed);
    if (generation_ms) {
        *generation_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }
    return source;
}

void generate_range(Distribution distribution, std::uint64_t seed, std::uint64_t offset,
                    std::size_t length, unsigned char* out) {
    switch (distribution) {
        case Distribution::kUniform:
            for (std::size_t i = 0; i < length; ++i) {
                out[i] = static_cast<unsigned char>(
                    'a' + ct::bounded(ct::hash64(seed, offset + i), kLetters));
            }
            return;
        case Distribution::kSkewed: {
            const std::vector<std::uint32_t>& frequency = english_letter_frequencies();
            std::vector<std::uint32_t> cumulative(frequency.size());
            std::uint32_t total = 0;
            for (std::size_t l = 0; l < frequency.size(); ++l) {
                total += frequency[l];
                cumulative[l] = total;
            }
            for (std::size_t i = 0; i < length; ++i) {
                const std::uint32_t draw = ct::bounded(ct::hash64(seed, offset + i), total);
                const auto letter = std::upper_bound(cumulative.begin(), cumulative.end(), draw) -
                                    cumulative.begin();
                out[i] = static_cast<unsigned char>('a' + letter);
            }
            return;
        }
        case Distribution::kRuns:
            fill_runs(seed, offset, length, out, find_run(seed, offset, RunStart{}));
            return;
        case Distribution::kOneLetter:
            std::memset(out, 'a', length);
            return;
        case Distribution::kRandomBytes:
            for (std::size_t i = 0; i < length; ++i) {
                out[i] = static_cast<unsigned char>(ct::hash64(seed, offset + i) >> 56);
            }
            return;
    }
    throw std::invalid_argument("generate_range: unknown distribution");
}

void read_parallel(const ByteSource& source, std::uint64_t offset, std::size_t length,
                   unsigned char* out, std::size_t threads) {
    constexpr std::size_t kPage = 4096;
    constexpr std::size_t kMinPiece = std::size_t{4} << 20;
    const std::size_t parts = pieces_for(length, threads, kMinPiece);
    const auto read_piece = [&](std::size_t part) {
        const Piece piece = aligned_piece(length, parts, kPage, part);
        if (piece.end > piece.begin) {
            source.read(offset + piece.begin, piece.end - piece.begin, out + piece.begin);
        }
    };
    if (parts == 1) {
        read_piece(0);
        return;
    }
    // Each worker keeps its own exception: an unreadable file must reach the caller as the
    // UsageError it is, not terminate the program from a thread.
    std::vector<std::exception_ptr> errors(parts);
    std::vector<std::thread> workers;
    for (std::size_t part = 1; part < parts; ++part) {
        workers.emplace_back([&, part] {
            try {
                read_piece(part);
            } catch (...) {
                errors[part] = std::current_exception();
            }
        });
    }
    try {
        read_piece(0);
    } catch (...) {
        errors[0] = std::current_exception();
    }
    for (std::thread& worker : workers) {
        worker.join();
    }
    for (const std::exception_ptr& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
}

std::size_t reader_threads() {
    return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
}

}  // namespace histogram
