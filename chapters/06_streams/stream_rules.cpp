#include "stream_rules.hpp"

namespace streams {

bool directly_ordered(const KernelRecord& earlier, const KernelRecord& later) {
    if (earlier.stream_id == later.stream_id) {
        return true;  // one stream: issue order
    }
    // The legacy default stream's implicit barrier involves blocking streams only.
    if (later.stream_kind == StreamKind::kLegacyDefault) {
        return earlier.stream_kind != StreamKind::kNonBlocking;
    }
    if (earlier.stream_kind == StreamKind::kLegacyDefault) {
        return later.stream_kind != StreamKind::kNonBlocking;
    }
    return false;
}

StreamOrder::StreamOrder(const std::vector<KernelRecord>& kernels)
    : size_(kernels.size()), words_((kernels.size() + 63) / 64), before_(size_ * words_, 0) {
    // Every direct edge goes from an earlier to a later launch, so one pass in issue order builds
    // the transitive closure: j inherits everything that precedes each of its direct predecessors.
    for (std::size_t j = 0; j < size_; ++j) {
        std::uint64_t* row = &before_[j * words_];
        for (std::size_t i = 0; i < j; ++i) {
            if (!directly_ordered(kernels[i], kernels[j])) {
                continue;
            }
            row[i / 64] |= std::uint64_t{1} << (i % 64);
            const std::uint64_t* inherited = &before_[i * words_];
            for (std::size_t w = 0; w < words_; ++w) {
                row[w] |= inherited[w];
            }
        }
    }
}

bool StreamOrder::must_precede(std::size_t first, std::size_t second) const {
    if (first >= second || second >= size_) {
        return false;
    }
    return (before_[second * words_ + first / 64] >> (first % 64)) & 1u;
}

bool StreamOrder::ordered(std::size_t a, std::size_t b) const {
    return a < b ? must_precede(a, b) : must_precede(b, a);
}

}  // namespace streams
