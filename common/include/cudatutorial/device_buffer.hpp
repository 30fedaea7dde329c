/// @file device_buffer.hpp
/// @brief RAII owners of device memory and pinned host memory.
///
/// Chapters never call cudaMalloc/cudaFree themselves: a DeviceBuffer frees its memory when it
/// goes out of scope (also when an exception unwinds), and an allocation that does not fit says
/// how much was asked and how much was free.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
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
}  // namespace detail

/// An array of `T` in device memory, owned. Move-only.
template <typename T>
class DeviceBuffer {
public:
    /// An empty buffer.
    DeviceBuffer() = default;
    /// Allocates `count` elements (uninitialized). A zero count allocates nothing.
    explicit DeviceBuffer(std::size_t count)
        : data_(count ? static_cast<T*>(detail::allocate_device_bytes(count * sizeof(T)))
                      : nullptr),
          size_(count) {}
    /// Allocates and copies `host` to the device.
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
        copy_from_host(host);
    }
    /// Frees the memory.
    ~DeviceBuffer() { detail::free_device_bytes(data_); }

    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    /// Takes over `other`'s memory.
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    /// Frees this buffer's memory and takes over `other`'s.
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            detail::free_device_bytes(data_);
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }

    /// Device pointer to the first element (null when empty).
    T* data() { return data_; }
    /// Device pointer to the first element (null when empty).
    const T* data() const { return data_; }
    /// Number of elements.
    std::size_t size() const { return size_; }
    /// Size in bytes.
    std::size_t bytes() const { return size_ * sizeof(T); }
    /// True when the buffer holds no element.
    bool empty() const { return size_ == 0; }

    /// Copies `count` elements from host memory into the start of the buffer.
    void copy_from_host(const T* source, std::size_t count) {
        require_fits(count);
        if (count) {
            CT_CHECK(cudaMemcpy(data_, source, count * sizeof(T), cudaMemcpyHostToDevice));
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
            CT_CHECK(cudaMemcpy(destination, data_, count * sizeof(T), cudaMemcpyDeviceToHost));
        }
    }
    /// The whole buffer, copied to a new host vector.
    std::vector<T> to_host() const {
        std::vector<T> host(size_);
        copy_to_host(host.data(), size_);
        return host;
    }
    /// Sets every byte to `value`: used to poison outputs before a run, so that an element a
    /// kernel forgot to write cannot pass for a correct one left over from an earlier run.
    void fill_bytes(unsigned char value) {
        if (size_) {
            CT_CHECK(cudaMemset(data_, value, bytes()));
        }
    }
    /// Asynchronous fill_bytes on `stream`.
    void fill_bytes_async(unsigned char value, cudaStream_t stream) {
        if (size_) {
            CT_CHECK(cudaMemsetAsync(data_, value, bytes(), stream));
        }
    }

private:
    void require_fits(std::size_t count) const {
        if (count > size_) {
            throw std::out_of_range("DeviceBuffer copy of " + std::to_string(count) +
                                    " elements into a buffer of " + std::to_string(size_));
        }
    }

    T* data_ = nullptr;
    std::size_t size_ = 0;
};

/// An array of `T` in page-locked (pinned) host memory, owned. Needed for truly asynchronous
/// cudaMemcpyAsync; pageable memory makes the copy synchronous with respect to the host.
template <typename T>
class PinnedBuffer {
public:
    /// An empty buffer.
    PinnedBuffer() = default;
    /// Allocates `count` elements of page-locked host memory (uninitialized).
    explicit PinnedBuffer(std::size_t count)
        : data_(count ? static_cast<T*>(detail::allocate_pinned_bytes(count * sizeof(T)))
                      : nullptr),
          size_(count) {}
    /// Frees the memory.
    ~PinnedBuffer() { detail::free_pinned_bytes(data_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    /// Takes over `other`'s memory.
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    /// Frees this buffer's memory and takes over `other`'s.
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        if (this != &other) {
            detail::free_pinned_bytes(data_);
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }

    /// Host pointer to the first element.
    T* data() { return data_; }
    /// Host pointer to the first element.
    const T* data() const { return data_; }
    /// Number of elements.
    std::size_t size() const { return size_; }
    /// Size in bytes.
    std::size_t bytes() const { return size_ * sizeof(T); }
    /// Element `i` (no bounds check).
    T& operator[](std::size_t i) { return data_[i]; }
    /// Element `i` (no bounds check).
    const T& operator[](std::size_t i) const { return data_[i]; }
    /// For range-for.
    T* begin() { return data_; }
    /// For range-for.
    T* end() { return data_ + size_; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace cudatutorial
