// The streaming pipeline (streamed_pipeline.hpp): a reader thread fills pinned buffers, the
// calling thread copies each filled buffer to one of two device buffers and counts it there.
//
// Who waits for whom. Chunk i uses pinned slot i % 3 and device buffer (and stream) i % 2.
//  - The GPU side waits (on the host) until the reader has filled slot i % 3 with chunk i.
//  - The reader waits until the copy out of a slot has finished before it refills the slot: an
//    event recorded after that copy, synchronized from the reader thread.
//  - Device buffer i % 2 is reused by chunk i + 2 on the same stream, so the copy of chunk i + 2
//    starts only after the count of chunk i: stream order, no event needed.
// The copy engine runs chunk i + 1's copy (stream (i + 1) % 2) while the SMs count chunk i
// (stream i % 2). Three pinned slots rather than two let the reader fill one slot while one is
// being copied and one waits, filled, for the copy engine.
#include "streamed_pipeline.hpp"

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/wall_clock.hpp"

namespace histogram {

namespace ct = cudatutorial;

namespace {

constexpr int kPinnedSlots = 3;

}  // namespace

// What the calling thread and the reader thread share, under one mutex.
struct StreamedCounter::Shared {
    enum class State { kFree, kFilled, kCopying };
    struct Slot {
        State state = State::kFree;
        std::uint64_t chunk = 0;  // the chunk it holds (kFilled) or is being copied (kCopying)
    };
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Slot> slots;
    bool stop = false;
    std::exception_ptr error;
};

StreamedCounter::StreamedCounter(const ByteSource& source, std::uint64_t chunk_bytes,
                                 const Binning& binning, int block, int grid)
    : source_(source),
      plan_(source.size(), chunk_bytes),
      binning_(binning),
      block_(block),
      grid_(grid),
      totals_(static_cast<std::size_t>(binning.bins())),
      streams_{ct::CudaStream(cudaStreamNonBlocking), ct::CudaStream(cudaStreamNonBlocking)},
      fork_(cudaEventDisableTiming),
      joined_{ct::CudaEvent(cudaEventDisableTiming), ct::CudaEvent(cudaEventDisableTiming)},
      shared_(std::make_unique<Shared>()),
      stage_(find_stage(kStreamedStageId)) {
    if (stage_ == nullptr) {
        throw std::logic_error("the streamed stage is not in the stage list");
    }
    if (chunk_bytes > kMaxInputBytes) {
        throw std::invalid_argument("a chunk's counts must fit 32-bit counters");
    }
    const auto buffer = static_cast<std::size_t>(plan_.buffer_bytes());
    for (int k = 0; k < 2; ++k) {
        device_chunks_[k] = ct::DeviceBuffer<unsigned char>(buffer);
        chunk_counts_[k] = ct::DeviceBuffer<unsigned int>(static_cast<std::size_t>(binning.bins()));
    }
    if (source.pinned() == nullptr && buffer > 0) {
        for (int s = 0; s < kPinnedSlots; ++s) {
            slots_.emplace_back(buffer);
            // Blocking sync: the reader sleeps while it waits instead of spinning on a core that
            // its pread threads could use.
            copied_.emplace_back(cudaEventDisableTiming | cudaEventBlockingSync);
        }
        shared_->slots.resize(slots_.size());
    }
}

StreamedCounter::~StreamedCounter() {
    // Copies out of the pinned slots may still be running when an exception unwinds.
    for (const ct::CudaStream& stream : streams_) {
        cudaStreamSynchronize(stream);
    }
}

void StreamedCounter::read_chunks(int device, double* fill_ms) {
    Shared& shared = *shared_;
    try {
        CT_CHECK(cudaSetDevice(device));  // the runtime's current device is per thread
        const std::size_t threads = reader_threads();
        for (std::uint64_t i = 0; i < plan_.count(); ++i) {
            const std::size_t s = i % slots_.size();
            std::unique_lock<std::mutex> lock(shared.mutex);
            shared.changed.wait(lock, [&] {
                return shared.stop || shared.slots[s].state != Shared::State::kFilled;
            });
            if (shared.stop) {
                return;
            }
            if (shared.slots[s].state == Shared::State::kCopying) {
                lock.unlock();
                copied_[s].synchronize();
                lock.lock();
                shared.slots[s].state = Shared::State::kFree;
            }
            lock.unlock();
            const auto start = std::chrono::steady_clock::now();
            read_parallel(source_, plan_.offset(i), static_cast<std::size_t>(plan_.length(i)),
                          slots_[s].data(), threads);
            *fill_ms += cudatutorial::ms_since(start);
            lock.lock();
            shared.slots[s] = Shared::Slot{Shared::State::kFilled, i};
            shared.changed.notify_all();
        }
    } catch (...) {
        const std::lock_guard<std::mutex> lock(shared.mutex);
        shared.error = std::current_exception();
        shared.changed.notify_all();
    }
}

void StreamedCounter::enqueue_count(int buffer, std::uint64_t length, cudaStream_t stream) {
    const StageArgs args{device_chunks_[buffer].data(),
                         static_cast<std::size_t>(length),
                         chunk_counts_[buffer].data(),
                         binning_,
                         block_,
                         grid_,
                         &workspace_};
    stage_->launch(args, stream);  // clears the chunk's counts first, then counts
    accumulate_counts(chunk_counts_[buffer].data(), totals_.data(), binning_.bins(), stream);
}

PipelineStats StreamedCounter::run(cudaStream_t stream, bool count) {
    PipelineStats stats;
    stats.chunks = plan_.count();
    if (count) {
        totals_.fill_bytes_async(0, stream);
    }
    fork_.record(stream);
    for (const ct::CudaStream& own : streams_) {
        CT_CHECK(cudaStreamWaitEvent(own, fork_, 0));
    }

    const unsigned char* pinned = source_.pinned();
    Shared& shared = *shared_;
    std::thread reader;
    double fill_ms = 0;
    if (pinned == nullptr && stats.chunks > 0) {
        {
            const std::lock_guard<std::mutex> lock(shared.mutex);
            shared.stop = false;
            shared.error = nullptr;
            for (Shared::Slot& slot : shared.slots) {  // left filled by a run that failed
                if (slot.state == Shared::State::kFilled) {
                    slot.state = Shared::State::kFree;
                }
            }
        }
        int device = 0;
        CT_CHECK(cudaGetDevice(&device));
        reader = std::thread([this, device, &fill_ms] { read_chunks(device, &fill_ms); });
    }
    // The reader must be stopped and joined on every way out, an exception included.
    struct Joiner {
        Shared& shared;
        std::thread& reader;
        ~Joiner() {
            if (reader.joinable()) {
                {
                    const std::lock_guard<std::mutex> lock(shared.mutex);
                    shared.stop = true;
                }
                shared.changed.notify_all();
                reader.join();
            }
        }
    } joiner{shared, reader};

    for (std::uint64_t i = 0; i < stats.chunks; ++i) {
        const int k = static_cast<int>(i % 2);
        const auto length = static_cast<std::size_t>(plan_.length(i));
        const unsigned char* host = nullptr;
        std::size_t s = 0;
        if (pinned != nullptr) {
            host = pinned + plan_.offset(i);
        } else {
            s = i % slots_.size();
            const auto start = std::chrono::steady_clock::now();
            std::unique_lock<std::mutex> lock(shared.mutex);
            shared.changed.wait(lock, [&] {
                return shared.error || (shared.slots[s].state == Shared::State::kFilled &&
                                        shared.slots[s].chunk == i);
            });
            if (shared.error) {
                std::rethrow_exception(shared.error);
            }
            stats.starved_ms += cudatutorial::ms_since(start);
            host = slots_[s].data();
        }
        CT_CHECK(cudaMemcpyAsync(device_chunks_[k].data(), host, length, cudaMemcpyHostToDevice,
                                 streams_[k]));
        if (pinned == nullptr) {
            copied_[s].record(streams_[k]);
            {
                const std::lock_guard<std::mutex> lock(shared.mutex);
                shared.slots[s].state = Shared::State::kCopying;
            }
            shared.changed.notify_all();
        }
        // Count the previous chunk only now, after this chunk's copy is queued: should a launch
        // ever hold the host up, the copy engine already has its next copy.
        if (count && i > 0) {
            enqueue_count(static_cast<int>((i - 1) % 2), plan_.length(i - 1),
                          streams_[(i - 1) % 2]);
        }
    }
    if (count && stats.chunks > 0) {
        const std::uint64_t last = stats.chunks - 1;
        enqueue_count(static_cast<int>(last % 2), plan_.length(last), streams_[last % 2]);
    }
    for (int k = 0; k < 2; ++k) {
        joined_[k].record(streams_[k]);
        CT_CHECK(cudaStreamWaitEvent(stream, joined_[k], 0));
    }
    if (reader.joinable()) {
        reader.join();  // it has filled the last chunk already: the loop above consumed it
    }
    stats.fill_ms = fill_ms;
    return stats;
}

Histogram64 StreamedCounter::totals() const {
    const std::vector<unsigned long long> device = totals_.to_host();
    return Histogram64(device.begin(), device.end());
}

void StreamedCounter::poison_totals() {
    totals_.fill_bytes(0xff);
}

std::vector<unsigned char> StreamedCounter::chunk_on_device(std::uint64_t i) const {
    std::vector<unsigned char> bytes(static_cast<std::size_t>(plan_.length(i)));
    CT_CHECK(cudaDeviceSynchronize());
    device_chunks_[i % 2].copy_to_host(bytes.data(), bytes.size());
    return bytes;
}

void StreamedCounter::stage_first_chunk() {
    if (plan_.count() == 0) {
        return;
    }
    const auto length = static_cast<std::size_t>(plan_.length(0));
    if (source_.pinned() != nullptr) {
        first_chunk_host_ = source_.pinned();
    } else {
        CT_CHECK(cudaDeviceSynchronize());  // no copy out of slot 0 is still running
        read_parallel(source_, 0, length, slots_[0].data(), reader_threads());
        const std::lock_guard<std::mutex> lock(shared_->mutex);
        shared_->slots[0].state = Shared::State::kFree;
        first_chunk_host_ = slots_[0].data();
    }
    device_chunks_[0].copy_from_host(first_chunk_host_, length);
}

void StreamedCounter::copy_first_chunk(cudaStream_t stream) {
    CT_CHECK(cudaMemcpyAsync(device_chunks_[0].data(), first_chunk_host_,
                             static_cast<std::size_t>(plan_.length(0)), cudaMemcpyHostToDevice,
                             stream));
}

void StreamedCounter::count_first_chunk(cudaStream_t stream) {
    const StageArgs args{device_chunks_[0].data(),
                         static_cast<std::size_t>(plan_.length(0)),
                         chunk_counts_[0].data(),
                         binning_,
                         block_,
                         grid_,
                         &workspace_};
    stage_->launch(args, stream);
}

Histogram StreamedCounter::first_chunk_counts() const {
    return chunk_counts_[0].to_host();
}

Histogram64 reference_histogram64(const ByteSource& source, const Binning& binning,
                                  std::uint64_t slice_bytes) {
    if (slice_bytes > kMaxInputBytes) {
        throw std::invalid_argument("reference slices must fit 32-bit counters");
    }
    // The 256 byte values are counted first and mapped to bins with Binning::bin_of afterwards:
    // the same definition as sequential_histogram (which maps every byte), without a division
    // per byte, which made the reference of 16 GiB take 5 s on 16 threads instead of about 1 s.
    // StreamedReference.SixtyFourBitReferenceEqualsThirtyTwoBitOneOnAnySlicing compares the two.
    std::array<std::uint64_t, 256> values{};
    std::mutex mutex;
    const ChunkPlan slices(source.size(), slice_bytes);
    std::vector<unsigned char> buffer;
    if (source.pinned() == nullptr) {
        buffer.resize(static_cast<std::size_t>(slices.buffer_bytes()));
    }
    for (std::uint64_t i = 0; i < slices.count(); ++i) {
        const auto length = static_cast<std::size_t>(slices.length(i));
        const unsigned char* data = source.pinned();
        if (data != nullptr) {
            data += slices.offset(i);
        } else {
            read_parallel(source, slices.offset(i), length, buffer.data(), reader_threads());
            data = buffer.data();
        }
        ct::parallel_for_ranges(length, [&](std::size_t begin, std::size_t end) {
            std::array<std::uint64_t, 256> part{};
            for (std::size_t j = begin; j < end; ++j) {
                ++part[data[j]];
            }
            const std::lock_guard<std::mutex> lock(mutex);
            for (std::size_t v = 0; v < part.size(); ++v) {
                values[v] += part[v];
            }
        });
    }
    Histogram64 total(static_cast<std::size_t>(binning.bins()), 0);
    for (int v = 0; v < 256; ++v) {
        const int bin = binning.bin_of(static_cast<unsigned char>(v));
        if (bin >= 0) {
            total[static_cast<std::size_t>(bin)] += values[static_cast<std::size_t>(v)];
        }
    }
    return total;
}

std::string compare_histograms64(const Histogram64& reference, const Histogram64& result,
                                 const Binning& binning) {
    if (reference.size() != result.size()) {
        return "expected " + std::to_string(reference.size()) + " bins, got " +
               std::to_string(result.size());
    }
    std::ostringstream first;
    std::size_t wrong = 0;
    for (std::size_t b = 0; b < reference.size(); ++b) {
        if (reference[b] != result[b]) {
            if (wrong < 3) {
                first << (wrong ? ", " : "") << "'" << binning.label(static_cast<int>(b)) << "' "
                      << result[b] << " instead of " << reference[b];
            }
            ++wrong;
        }
    }
    if (wrong == 0) {
        return {};
    }
    return std::to_string(wrong) + " of " + std::to_string(reference.size()) + " bins wrong (" +
           first.str() + (wrong > 3 ? ", ...)" : ")");
}

}  // namespace histogram
