/// @file clocks.hpp
/// @brief The GPU's clocks and throttling while timed runs were in flight, read through NVML
/// (which ships with the driver), so that a table says what else decided its timings: a laptop
/// GPU that throttles, or a data-centre GPU held at its power cap, explains its own numbers.
///
/// The timing harness calls observe_clocks() once per timed batch, after the batch is queued
/// and while the GPU runs it; finish_table() (cli.hpp, called by TableRun::finish) writes what
/// was seen into the run information. Without NVML (no driver library, a container without it)
/// nothing is observed and the tables say so.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "cudatutorial/report.hpp"

namespace cudatutorial {

/// What NVML saw over every observe_clocks() call of this process.
struct ClockObservation {
    int samples = 0;              ///< successful readings (0: NVML unavailable)
    unsigned sm_mhz_min = 0;      ///< lowest SM clock seen
    unsigned sm_mhz_max = 0;      ///< highest SM clock seen
    unsigned memory_mhz_min = 0;  ///< lowest memory clock seen
    unsigned memory_mhz_max = 0;  ///< highest memory clock seen
    unsigned long long reasons =
        0;  ///< OR of the slowdown reasons seen (idle, app clocks left out)

    /// "SM 1755-1980 MHz, memory 2619 MHz, no throttling (12 readings)", or "not observed".
    std::string describe() const;
    /// "none", or the slowdown reasons seen: "power cap, thermal (software)".
    std::string throttle_text() const;
};

/// Reads the current device's SM and memory clocks and its clock-event (throttle) reasons once,
/// adding them to the process's observation. Never throws; does nothing without NVML.
void observe_clocks();

/// Calls observe_clocks() every `period_ms` on a thread of its own while it lives, for the
/// current device of the thread that made it: for timed work the host waits on in one blocking
/// call (a scenario that synchronizes, a persistent kernel), where no observe_clocks() call can
/// fall between samples. Not copyable.
class ClockSampler {
  public:
    /// Starts sampling at once, then every `period_ms`.
    explicit ClockSampler(int period_ms = 50);
    /// Stops the sampling thread (within 5 ms) and joins it.
    ~ClockSampler();
    ClockSampler(const ClockSampler&) = delete;
    ClockSampler& operator=(const ClockSampler&) = delete;

  private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

/// The power a stretch of work drew and the SM clock it ran at (measure_power).
struct PowerReading {
    bool observed = false;   ///< false: no NVML, or no energy counter (before Volta)
    double seconds = 0;      ///< the stretch's length
    double watts = 0;        ///< its energy (the counter's difference) over its length
    double limit_watts = 0;  ///< the enforced power limit (0: not read)
    unsigned sm_mhz = 0;     ///< the median of the SM clock readings during it
    int clock_readings = 0;  ///< how many SM clock readings the median is of
    int batches = 0;         ///< how many times the work was queued (and waited for)

    /// "612 W of 700 W, SM 1755 MHz over 1.02 s", or "not observed (...)".
    std::string describe() const;
};

/// Calls `queue_batch` (which queues work on the current device and returns without waiting),
/// reads the SM clock while that work runs, waits for the device, and again, until `seconds`
/// have passed (at least once); returns the power over the whole stretch from the energy
/// counter's difference. (nvmlDeviceGetPowerUsage is a one-second average on recent GPUs: it
/// cannot say what one short stretch drew; the counter can, over a second or more.) Throws
/// CudaError if the work fails; returns observed = false, the work done, without NVML.
PowerReading measure_power(const std::function<void()>& queue_batch, double seconds);

/// Everything observed so far in this process.
ClockObservation observed_clocks();

/// Adds the observation to `info`: the "clocks during timing" parameter (header, CSV, Markdown)
/// and the structured fields of the JSON.
void record_clocks(RunInfo& info);

}  // namespace cudatutorial
