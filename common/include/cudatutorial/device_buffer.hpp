/// @file device_buffer.hpp
/// @brief RAII owners of device memory and pinned host memory.
///
/// Chapters never call cudaMalloc/cudaFree themselves: a DeviceBuffer frees its memory when it
/// goes out of scope (also when an exception unwinds), and an allocation that does not fit says
/// how much was asked and how much was free.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudatutorial/check.hpp"

namespace cudatutorial {

namespace detail {
/// cudaMalloc with an error that names the size asked for and the free memory.
void* allocate_device_bytes(std::size_t bytes);
/// cudaMallocHost (page-locked host memory) with the same kind of error.
void* allocate_pinned_bytes(std::size_t bytes);
void free_device_bytes(void* pointer) noexcept;
void free_pinned_bytes(void* pointer) noexcept;
/// cudaMemcpy host -> device. Out of line, like every CUDA call of this header, so that what
/// "the default stream" means for it is decided once, where common/ is compiled (the legacy
/// default stream), not by each includer's --default-stream (chapter 6 compiles per-thread).
void copy_host_to_device(void* destination, const void* source, std::size_t bytes);
/// cudaMemcpy device -> host (see copy_host_to_device).
void copy_device_to_host(void* destination, const void* source, std::size_t bytes);
/// cudaMemset (see copy_host_to_device).
void fill_device_bytes(void* destination, unsigned char value, std::size_t bytes);
/// cudaMemsetAsync on `stream`.
void fill_device_bytes_async(void* destination, unsigned char value, std::size_t bytes,
                             cudaStream_t stream);
}  // namespace detail

namespace detail {

/// What every owning array here has in common: allocation on construction, release on
/// destruction (also during exception unwinding), move-only ownership, size queries.
template <typename T, void* (*Allocate)(std::size_t), void (*Release)(void*) noexcept>
class OwnedArray {
  public:
    OwnedArray() = default;
    explicit OwnedArray(std::size_t count)
        : data_(count ? static_cast<T*>(Allocate(count * sizeof(T))) : nullptr), size_(count) {}
    ~OwnedArray() { Release(data_); }
    OwnedArray(const OwnedArray&) = delete;
    OwnedArray& operator=(const OwnedArray&) = delete;
    OwnedArray(OwnedArray&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    OwnedArray& operator=(OwnedArray&& other) noexcept {
        if (this != &other) {
            Release(data_);
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::size_t bytes() const { return size_ * sizeof(T); }
    bool empty() const { return size_ == 0; }

  protected:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace detail

/// An array of `T` in device memory, owned and move-only. data() is a device pointer (null when
/// empty); size(), bytes() and empty() describe it.
template <typename T>
class DeviceBuffer
    : public detail::OwnedArray<T, detail::allocate_device_bytes, detail::free_device_bytes> {
    using Base = detail::OwnedArray<T, detail::allocate_device_bytes, detail::free_device_bytes>;

  public:
    /// An empty buffer.
    DeviceBuffer() = default;
    /// Allocates `count` elements (uninitialized). A zero count allocates nothing.
    explicit DeviceBuffer(std::size_t count) : Base(count) {}
    /// Allocates and copies `host` to the device.
    explicit DeviceBuffer(const std::vector<T>& host) : Base(host.size()) { copy_from_host(host); }

    /// Copies `count` elements from host memory into the start of the buffer.
    void copy_from_host(const T* source, std::size_t count) {
        require_fits(count);
        if (count) {
            detail::copy_host_to_device(this->data_, source, count * sizeof(T));
        }
    }
    /// Copies a whole host vector into the start of the buffer.
    void copy_from_host(const std::vector<T>& source) {
        copy_from_host(source.data(), source.size());
    }
    /// Copies the first `count` elements to host memory.
    void copy_to_host(T* destination, std::size_t count) const {
        require_fits(count);
        if (count) {
            detail::copy_device_to_host(destination, this->data_, count * sizeof(T));
        }
    }
    /// The whole buffer, copied to a new host vector.
    std::vector<T> to_host() const {
        std::vector<T> host(this->size_);
        copy_to_host(host.data(), this->size_);
        return host;
    }
    /// Sets every byte to `value`: used to poison outputs before a run, so that an element a
    /// kernel forgot to write cannot pass for a correct one left over from an earlier run.
    void fill_bytes(unsigned char value) {
        if (this->size_) {
            detail::fill_device_bytes(this->data_, value, this->bytes());
        }
    }
    /// Asynchronous fill_bytes on `stream`.
    void fill_bytes_async(unsigned char value, cudaStream_t stream) {
        if (this->size_) {
            detail::fill_device_bytes_async(this->data_, value, this->bytes(), stream);
        }
    }

  private:
    void require_fits(std::size_t count) const {
        if (count > this->size_) {
            throw std::out_of_range("DeviceBuffer copy of " + std::to_string(count) +
                                    " elements into a buffer of " + std::to_string(this->size_));
        }
    }
};

/// An array of `T` in page-locked (pinned) host memory, owned and move-only. Needed for truly
/// asynchronous cudaMemcpyAsync; pageable memory makes the copy synchronous with the host.
template <typename T>
class PinnedBuffer
    : public detail::OwnedArray<T, detail::allocate_pinned_bytes, detail::free_pinned_bytes> {
    using Base = detail::OwnedArray<T, detail::allocate_pinned_bytes, detail::free_pinned_bytes>;

  public:
    /// An empty buffer.
    PinnedBuffer() = default;
    /// Allocates `count` elements of page-locked host memory (uninitialized).
    explicit PinnedBuffer(std::size_t count) : Base(count) {}

    /// Element `i` (no bounds check).
    T& operator[](std::size_t i) { return this->data_[i]; }
    /// Element `i` (no bounds check).
    const T& operator[](std::size_t i) const { return this->data_[i]; }
    /// For range-for.
    T* begin() { return this->data_; }
    /// For range-for.
    T* end() { return this->data_ + this->size_; }
};

}  // namespace cudatutorial
