// Hand-made kernel records for the CPU tests.
#pragma once

#include <cstdint>
#include <string>

#include "streams.hpp"

namespace streams::testing {

/// A kernel named `name` on stream `stream_id` of `kind`, running [start_ns, end_ns).
inline KernelRecord record(const std::string& name, std::uint64_t stream_id, StreamKind kind,
                           std::uint64_t start_ns = 0, std::uint64_t end_ns = 0,
                           Role role = Role::kWorker) {
    KernelRecord r;
    r.name = name;
    r.role = role;
    r.stream = "stream " + std::to_string(stream_id);
    r.stream_kind = kind;
    r.stream_id = stream_id;
    r.start_ns = start_ns;
    r.end_ns = end_ns;
    return r;
}

inline constexpr std::uint64_t kLegacyId = 1;  // the legacy default stream's id in these tests

}  // namespace streams::testing
