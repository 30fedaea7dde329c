/// @file copy_bandwidth.hpp
/// @brief Scenario 7: how fast copies between host and device are, for pageable host memory
/// (malloc), pinned memory (cudaMallocHost) and pageable memory pinned afterwards
/// (cudaHostRegister), over a range of sizes, against the host link's theoretical rate.
///
/// Why pinned is faster: the GPU's copy engines move data by DMA, which needs physical pages that
/// cannot be swapped or moved while the copy runs. From pageable memory the driver first copies
/// the data, piece by piece, into a pinned staging buffer of its own (one extra pass through host
/// memory, and no overlap with anything in between); from pinned memory the engine reads the
/// user's buffer directly. Registering an existing allocation pins it in place: the same speed as
/// cudaMallocHost, without changing who allocated the memory. Small copies are dominated by a fixed
/// cost per copy (a few µs), so the rate climbs with the size and flattens near the link's rate.
/// Both directions at once (H2D+D2H) is what a copy/compute pipeline (scenario 8) asks of the
/// link: PCIe carries each direction on its own lanes, but the two together may still fall
/// short of twice one direction's rate.
/// Look at: pinned against pageable at 64 MiB, pinned at 64 MiB against the link's theory, and
/// H2D+D2H against twice one direction.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "copy_link.hpp"
#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/report.hpp"
#include "streams.hpp"

namespace streams {

/// The scenario number of the copy bandwidth sweep (--scenario 7).
inline constexpr int kCopyBandwidthScenario = 7;

/// Where the host side of a copy lives.
enum class HostMemory { kPageable, kPinned, kRegistered };
/// Which way the copy goes. kBoth: one copy each way at the same time, in two streams (pinned
/// and registered memory only: a pageable copy holds up the host thread that issued it).
enum class CopyDirection { kHostToDevice, kDeviceToHost, kBoth };

/// "pageable (malloc)", "pinned (cudaMallocHost)", "registered (cudaHostRegister)".
const char* host_memory_name(HostMemory memory);
/// "pageable", "pinned", "registered".
const char* host_memory_key(HostMemory memory);
/// "H2D", "D2H" or "H2D+D2H".
const char* copy_direction_name(CopyDirection direction);

/// The sizes scenario 7 measures: 4 KiB, then x16 steps (64 KiB, 1 MiB, 16 MiB...) below
/// `max_bytes`, then `max_bytes` itself. Throws std::invalid_argument when max_bytes is 0 or not
/// a multiple of 4 (the copies move 32-bit words, so that they can be checked).
std::vector<std::size_t> copy_sizes(std::size_t max_bytes);

/// One measured copy size.
struct CopyMeasurement {
    HostMemory memory = HostMemory::kPinned;
    CopyDirection direction = CopyDirection::kHostToDevice;
    std::size_t bytes = 0;      ///< per direction
    cudatutorial::Stats stats;  ///< one copy (kBoth: the pair), CUDA events around it, ms
    bool passed = false;        ///< the bytes arrived (checked before and after the timed runs)
    std::string detail;         ///< the first wrong word, or empty
    /// bytes moved (both directions together for kBoth) / median time, GB/s.
    double gbs() const;
    /// gbs() as % of the link's theoretical rate (twice it for kBoth: the link is full duplex).
    double percent_of_link(const HostLink& link) const;
};

/// What scenario 7 found.
struct CopyBandwidthResult {
    HostLink link;                              ///< read after the copies (the link is awake)
    int copy_engines = 0;                       ///< cudaDevAttrAsyncEngineCount
    std::vector<CopyMeasurement> measurements;  ///< by memory, then direction, then size
    bool passed() const;
};

/// Measures every memory kind, direction and size of copy_sizes(max_bytes) on device `device`
/// (already current), `warmup` + `repetitions` copies each, with the common harness
/// (cudatutorial::measure): pinned and registered copies with the stream held while they are
/// queued; pageable ones without the hold, because a copy from pageable memory returns only when
/// its data has left the buffer, so the host would wait for a held stream forever.
CopyBandwidthResult measure_copy_bandwidth(int device, std::size_t max_bytes, int warmup,
                                           int repetitions);

/// The size sweep as a text table (GB/s, and % of the link when it is known).
void print_copy_bandwidth(std::ostream& out, const CopyBandwidthResult& result);

/// The summary table's rows: the largest size, each memory kind and direction (and both); a row
/// fails when any size of its kind and direction failed.
std::vector<cudatutorial::ResultRow> copy_bandwidth_rows(const CopyBandwidthResult& result);

/// Scenario 7 as the program runs it: a heading, the measurement (copies up to
/// config.copy_max_bytes), the size table; returns the summary table's rows.
std::vector<cudatutorial::ResultRow> run_copy_bandwidth_scenario(std::ostream& out,
                                                                 const ScenarioConfig& config,
                                                                 int warmup, int repetitions);

}  // namespace streams
