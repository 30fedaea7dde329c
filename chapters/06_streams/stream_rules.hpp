/// @file stream_rules.hpp
/// @brief The stream ordering rules as code: which kernels of a scenario MUST run one after the
/// other, whatever the hardware does. Pure host code, tested on the CPU.
///
/// The rules (CUDA Runtime API, "Stream synchronization behavior"):
///  - work in one stream runs in issue order;
///  - the legacy default stream waits for all earlier work in every blocking stream of the
///    context, and all later work in blocking streams waits for it;
///  - non-blocking streams (cudaStreamNonBlocking) take no part in that;
///  - a per-thread default stream is an ordinary blocking stream of its own.
/// Everything else MAY run concurrently; whether it does is up to the hardware (and is what the
/// timelines measure). "Must precede" is the transitive closure of those direct orderings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "streams.hpp"

namespace streams {

/// True when `later`, issued after `earlier` (from the same host thread, or from different ones
/// in an order the caller fixes), directly waits for `earlier` by the rules above.
bool directly_ordered(const KernelRecord& earlier, const KernelRecord& later);

/// Which kernels of a run must finish before which others start. The records must be in issue
/// order. For launches from several host threads the order between threads is not known; the
/// rules only need it for legacy-default-stream edges between threads, and a run where all
/// threads share the legacy stream is ordered completely whatever that order was.
class StreamOrder {
  public:
    explicit StreamOrder(const std::vector<KernelRecord>& kernels_in_issue_order);

    /// Kernel `first` must finish before kernel `second` starts (first < second).
    bool must_precede(std::size_t first, std::size_t second) const;
    /// Either must precede the other: the two can never overlap.
    bool ordered(std::size_t a, std::size_t b) const;
    /// Number of kernels.
    std::size_t size() const { return size_; }

  private:
    std::size_t size_ = 0;
    std::size_t words_ = 0;
    std::vector<std::uint64_t> before_;  // row j: bit i set when i must precede j
};

}  // namespace streams
