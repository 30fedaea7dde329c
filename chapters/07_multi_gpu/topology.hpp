/// @file topology.hpp
/// @brief Measured copy bandwidth between two GPUs along each path (CopyPath).
#pragma once

#include <cstddef>

#include "cudatutorial/benchmark.hpp"
#include "multi_gpu.hpp"

namespace multi_gpu {

/// One timed copy path between two GPUs.
struct CopyMeasurement {
    int from = 0;                           ///< source device ordinal
    int to = 0;                             ///< destination device ordinal
    CopyPath path = CopyPath::kPeerAccess;  ///< how the bytes travel
    double bytes = 0;                       ///< bytes moved per run (both directions counted)
    /// The copy's row, timed and verified as every table row is (id "from -> to", the path's
    /// name, outside the x prev chain).
    cudatutorial::ResultRow row;
};

/// Copies `bytes` from GPU `from` to GPU `to` (and back at the same time for
/// kPeerBidirectional) along `path`, timed by the common harness with `config`'s repetitions;
/// the first and last byte are checked. Enables peer access for the peer paths only, and
/// disables it again afterwards, so run the kPeerNoAccess path before anything that leaves peer
/// access on. Throws UsageError for a peer path between GPUs without peer access.
CopyMeasurement measure_copy(int from, int to, CopyPath path, std::size_t bytes,
                             const cudatutorial::BenchmarkConfig& config);

}  // namespace multi_gpu
