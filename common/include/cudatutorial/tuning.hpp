/// @file tuning.hpp
/// @brief What the adaptive stages (chapter 3's stages 10-12, chapter 5's stage 8) share: their
/// per-architecture constants as data, one table by compute capability with a fallback chain
/// (CUB keeps its tuning policies the same way), and the device figures they derive a choice from.
///
/// The table gives a first choice without measuring anything; each chapter's run-time tuner
/// (a short timing pass over its own candidates, run before the table) overrides it, says why,
/// and hands its choice to the stages that use it: nothing is cached behind their backs. Each chapter keeps
/// its candidates and how it derives a choice from these figures; only the machinery is here.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cudatutorial::tuning {

/// The adaptive stages' constants for one architecture. None of them is a device attribute:
/// each was measured on a GPU of that architecture, or is an estimate carried over from one.
struct ArchitectureTuning {
    int cc_major = 0;   ///< compute capability this entry is for; 0: the generic default
    int cc_minor = -1;  ///< -1: every minor version of cc_major
    /// Idle DRAM latency that Little's law assumes (bytes in flight = bandwidth x latency).
    double dram_latency_ns = 0;
    /// How many times Little's law's bytes in flight the derivations ask for: under load the
    /// latency grows and not every resident thread is waiting at a given moment.
    double in_flight_margin = 0;
    /// Counted bytes per SM per clock that shared-memory atomics sustained in chapter 5's
    /// stage 8 (lane copies, pipelined loads); explains a choice, decides none.
    double shared_atomic_bytes_per_sm_clock = 0;
    bool estimate = true;     ///< not measured on this architecture
    const char* source = "";  ///< where the values were measured, or what they are carried from
};

/// How find_tuning() matched a compute capability.
enum class TuningMatch {
    kExact,      ///< an entry for this major.minor
    kSameMajor,  ///< an entry for every minor of this major
    kDefault,    ///< the generic default
};

/// "exact", "same major", "default".
const char* match_name(TuningMatch match);

/// An entry of a table and how it was found.
struct TuningLookup {
    const ArchitectureTuning* entry = nullptr;  ///< the entry (the table's own, not a copy)
    TuningMatch match = TuningMatch::kDefault;  ///< how it was found
};

/// The adaptive stages' table (tuning.cpp: one comment per entry says where it was measured).
const std::vector<ArchitectureTuning>& architecture_table();

/// The entry of `table` for compute capability major.minor: the exact entry, else the entry for
/// every minor of that major (cc_minor -1), else the generic default (cc_major 0). Throws
/// std::logic_error when the table has no default.
TuningLookup find_tuning(const std::vector<ArchitectureTuning>& table, int cc_major, int cc_minor);

/// find_tuning(architecture_table(), cc_major, cc_minor).entry.
const ArchitectureTuning& tuning_for(int cc_major, int cc_minor);

/// What the derivations read off a device (cudaDeviceGetAttribute and device_bandwidth_gbs()).
struct DeviceFigures {
    int cc_major = 0;            ///< compute capability, major
    int cc_minor = 0;            ///< compute capability, minor
    int sm_count = 0;            ///< SMs
    int max_threads_per_sm = 0;  ///< resident threads per SM
    double bandwidth_gbs = 0;    ///< theoretical DRAM bandwidth, GB/s = bytes per ns
    double sm_clock_mhz = 0;     ///< peak SM clock
};

/// The figures of CUDA device `device`.
DeviceFigures device_figures(int device);

/// cudaGetDevice().
int current_device();

}  // namespace cudatutorial::tuning
