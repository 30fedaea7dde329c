/// @file cuda_handles.hpp
/// @brief RAII owners of CUDA streams and events.
///
/// Every CUDA call is out of line (cuda_handles.cpp): what a null stream means for record() is
/// then decided where common/ is compiled (the legacy default stream), whatever --default-stream
/// the includer uses.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

namespace cudatutorial {

/// A created CUDA stream, destroyed with its owner. `flags` is cudaStreamDefault (blocking: it
/// synchronizes with the legacy default stream) or cudaStreamNonBlocking (it does not).
class CudaStream {
  public:
    /// Creates the stream (cudaStreamCreateWithFlags).
    explicit CudaStream(unsigned int flags = cudaStreamDefault);
    /// Destroys the stream.
    ~CudaStream();
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    /// Takes over `other`'s stream.
    CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
    /// Swaps streams with `other`.
    CudaStream& operator=(CudaStream&& other) noexcept {
        std::swap(stream_, other.stream_);
        return *this;
    }

    /// The raw handle.
    cudaStream_t get() const { return stream_; }
    /// Usable wherever a cudaStream_t is expected.
    operator cudaStream_t() const { return stream_; }
    /// Waits for all work in the stream.
    void synchronize() const;

  private:
    cudaStream_t stream_ = nullptr;
};

/// A CUDA event for timing (or, with cudaEventDisableTiming, for ordering only).
class CudaEvent {
  public:
    /// Creates the event (cudaEventCreateWithFlags).
    explicit CudaEvent(unsigned int flags = cudaEventDefault);
    /// Destroys the event.
    ~CudaEvent();
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    /// Takes over `other`'s event.
    CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
    /// Swaps events with `other`.
    CudaEvent& operator=(CudaEvent&& other) noexcept {
        std::swap(event_, other.event_);
        return *this;
    }

    /// The raw handle.
    cudaEvent_t get() const { return event_; }
    /// Usable wherever a cudaEvent_t is expected.
    operator cudaEvent_t() const { return event_; }
    /// Records the event in `stream` (the legacy default stream if null).
    void record(cudaStream_t stream = nullptr);
    /// Waits until the event has completed.
    void synchronize() const;
    /// Milliseconds from `start` to this event (both recorded and completed).
    float elapsed_ms_since(const CudaEvent& start) const;

  private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace cudatutorial
