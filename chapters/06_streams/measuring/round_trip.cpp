#include "round_trip.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/clocks.hpp"
#include "measurement.hpp"

namespace streams::persistent {

namespace ct = cudatutorial;

namespace {

std::string hex(std::uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", value);
    return text;
}

std::uint32_t sum_of(const std::vector<std::uint32_t>& values) {
    std::uint32_t sum = 0;
    for (const std::uint32_t v : values) {
        sum += v;  // mod 2^32, as the kernel adds
    }
    return sum;
}

/// What the measurement needs of a way to run tasks: LaunchedTasks or PersistentKernel.
template <typename Runner>
void time_tasks(Runner& runner, const std::vector<std::uint32_t>& initial,
                const RoundTripConfig& config, std::vector<double>& samples_ms, RoundTrip& m) {
    const int total = config.warmup_tasks + config.tasks;
    for (int t = 0; t < total; ++t) {
        const auto start = std::chrono::steady_clock::now();
        const Receipt receipt = runner.run_task();
        const auto end = std::chrono::steady_clock::now();
        const auto task = static_cast<std::uint64_t>(t) + 1;
        ++m.tasks_checked;
        const std::string problem = check_receipt(initial, task, receipt);
        if (!problem.empty() && m.detail.empty()) {
            m.detail = problem;
        }
        if (t >= config.warmup_tasks) {
            samples_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
        }
    }
}

/// The end of a persistent run: a clean stop, then the buffer.
std::string finish_persistent(PersistentKernel& kernel, RoundTrip& m) {
    m.end_state = kernel.stop();
    if (m.end_state != KernelState::kStopped) {
        return std::string("the kernel ended by itself (") + kernel_state_name(m.end_state) +
               "), not by the stop";
    }
    return {};
}

}  // namespace

std::uint32_t added_by_tasks(std::uint64_t tasks) {
    // k(k+1)/2 in 64 bits, the even factor halved first so that the product cannot overflow.
    const std::uint64_t product =
        tasks % 2 == 0 ? (tasks / 2) * (tasks + 1) : tasks * ((tasks + 1) / 2);
    return static_cast<std::uint32_t>(product);
}

std::vector<std::uint32_t> initial_values(std::uint32_t n, std::uint32_t salt) {
    std::vector<std::uint32_t> values(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        // Distinct, never all zero, different for every salt.
        values[i] = (i + 1) * 2654435761u ^ (salt * 0x9e3779b9u);
    }
    return values;
}

Receipt expected_receipt(const std::vector<std::uint32_t>& initial, std::uint64_t task) {
    Receipt r;
    r.task = static_cast<std::uint32_t>(task);
    r.checksum =
        sum_of(initial) + static_cast<std::uint32_t>(initial.size()) * added_by_tasks(task);
    return r;
}

std::string check_receipt(const std::vector<std::uint32_t>& initial, std::uint64_t task,
                          const Receipt& got) {
    const Receipt want = expected_receipt(initial, task);
    if (got.task != want.task) {
        return "task " + std::to_string(task) + ": the receipt is task " +
               std::to_string(got.task) + "'s";
    }
    if (got.checksum != want.checksum) {
        return "task " + std::to_string(task) + ": checksum " + hex(got.checksum) + ", expected " +
               hex(want.checksum);
    }
    return {};
}

std::string check_values(const std::vector<std::uint32_t>& initial, std::uint64_t tasks,
                         const std::vector<std::uint32_t>& values) {
    if (values.size() != initial.size()) {
        return "the buffer holds " + std::to_string(values.size()) + " values, expected " +
               std::to_string(initial.size());
    }
    const std::uint32_t added = added_by_tasks(tasks);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] != initial[i] + added) {
            return "after " + std::to_string(tasks) + " tasks value " + std::to_string(i) + " is " +
                   hex(values[i]) + ", expected " + hex(initial[i] + added);
        }
    }
    return {};
}

const std::vector<Way>& all_ways() {
    static const std::vector<Way> ways = {Way::kLaunch, Way::kGraph, Way::kPersistent};
    return ways;
}

const char* way_name(Way way) {
    switch (way) {
        case Way::kLaunch:
            return "launch + sync";
        case Way::kGraph:
            return "graph launch + sync";
        case Way::kPersistent:
            return "persistent kernel";
    }
    return "?";
}

const char* way_key(Way way) {
    switch (way) {
        case Way::kLaunch:
            return "launch_sync";
        case Way::kGraph:
            return "graph_sync";
        case Way::kPersistent:
            return "persistent_kernel";
    }
    return "?";
}

double percentile(std::vector<double> samples, double fraction) {
    if (samples.empty()) {
        return 0.0;
    }
    std::sort(samples.begin(), samples.end());
    const double rank = std::ceil(std::clamp(fraction, 0.0, 1.0) * samples.size());
    const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
    return samples[std::min(index, samples.size() - 1)];
}

RoundTrip time_round_trips(Way way, const RoundTripConfig& config) {
    if (config.n == 0 || config.tasks < 1 || config.warmup_tasks < 0) {
        throw std::invalid_argument("time_round_trips: n >= 1, tasks >= 1, warmup_tasks >= 0");
    }
    RoundTrip m;
    m.way = way;
    const std::vector<std::uint32_t> initial = initial_values(config.n, config.salt);
    const auto tasks = static_cast<std::uint64_t>(config.warmup_tasks + config.tasks);
    std::vector<double> samples_ms;
    samples_ms.reserve(static_cast<std::size_t>(config.tasks));
    std::string problem;
    // The host waits on each task in turn: the clocks are read beside it, every 50 ms.
    const ct::ClockSampler clocks;
    try {
        if (way == Way::kPersistent) {
            PersistentKernel kernel(initial, config.limits);  // its guard stops it on any exit
            time_tasks(kernel, initial, config, samples_ms, m);
            problem = finish_persistent(kernel, m);
            if (problem.empty()) {
                problem = check_values(initial, tasks, kernel.values());
            }
        } else {
            LaunchedTasks launched(initial,
                                   way == Way::kGraph ? LaunchWay::kGraph : LaunchWay::kKernel);
            time_tasks(launched, initial, config, samples_ms, m);
            problem = check_values(initial, tasks, launched.values());
        }
    } catch (const ct::CudaError&) {
        throw;  // the device is in trouble: the program's exit code 3, not a FAIL row
    } catch (const std::runtime_error& e) {
        problem = e.what();  // a task that did not complete, a kernel that ended by itself
    }
    if (m.detail.empty()) {
        m.detail = problem;
    }
    m.passed = m.detail.empty() && samples_ms.size() == static_cast<std::size_t>(config.tasks);
    if (!samples_ms.empty()) {
        m.stats = ct::summarize(samples_ms);
        m.p99_us = percentile(samples_ms, 0.99) * 1000.0;
    }
    return m;
}

std::string round_trip_group(std::uint32_t n) {
    return std::to_string(n) + " ints";
}

ct::ResultRow round_trip_row(const std::string& id, const RoundTrip& m, const std::string& group) {
    ct::ResultRow row = scenario_row(id, way_key(m.way), m.stats, {m.passed, m.detail});
    row.group = group;
    row.idea = way_name(m.way);
    row.with("µs/task", m.stats.median_ms * 1000.0, 2)
        .with("p99 µs", m.p99_us, 2)
        .with("tasks", static_cast<double>(m.stats.samples), 0);
    return row;
}

std::vector<ct::ResultRow> run_persistent_scenario(std::ostream& out,
                                                   const ScenarioConfig& config) {
    const ScenarioInfo& info = scenario_info(kPersistentScenario);
    RoundTripConfig rt;
    rt.n = config.n;
    rt.tasks = config.persistent_tasks;
    rt.warmup_tasks = warmup_tasks_for(config.persistent_tasks);
    rt.limits.idle_limit_ms = config.idle_limit_ms;
    rt.salt = config.salt;
    out << "== scenario " << info.id << ": " << info.name << " ==\n" << info.idea << "\n";
    out << "each task: one block of " << kTaskThreads << " threads adds the task's number to "
        << rt.n << " 32-bit integers in device memory and writes their sum to a receipt in "
        << "mapped host memory; every receipt checked, the buffer after the run\n";
    out << "round trip: host time (std::chrono::steady_clock) from posting a task to holding its "
           "receipt, "
        << rt.tasks << " tasks after " << rt.warmup_tasks << " warm-up tasks; the persistent "
        << "kernel holds one block (part of one SM) for its whole run, and gives up after "
        << rt.limits.idle_limit_ms << " ms without a task\n\n";

    const std::string group = round_trip_group(rt.n);
    std::vector<ct::ResultRow> rows;
    std::vector<std::vector<std::string>> lines = {
        {"way", "median µs", "p99 µs", "min-max µs", "x launch", "result"}};
    std::optional<double> baseline_ms;
    char letter = 'a';
    for (const Way way : all_ways()) {
        const RoundTrip m = time_round_trips(way, rt);
        if (way == Way::kLaunch && m.stats.samples > 0) {
            baseline_ms = m.stats.median_ms;
        }
        const bool timed = m.stats.samples > 0;
        lines.push_back(
            {way_name(way), timed ? ct::format_fixed(m.stats.median_ms * 1000.0, 2) : "-",
             timed ? ct::format_fixed(m.p99_us, 2) : "-",
             timed ? ct::format_fixed(m.stats.min_ms * 1000.0, 2) + "-" +
                         ct::format_fixed(m.stats.max_ms * 1000.0, 2)
                   : "-",
             timed && baseline_ms ? ct::format_fixed(*baseline_ms / m.stats.median_ms, 2) : "-",
             m.passed ? "PASS" : "FAIL"});
        rows.push_back(round_trip_row(std::string("9") + letter, m, group));
        ++letter;
    }
    ct::print_aligned(out, lines, {0});
    for (const auto& row : rows) {
        if (!row.detail.empty()) {
            out << "  FAILED: " << row.idea << ": " << row.detail << "\n";
        }
    }
    out << "\n";
    return rows;
}

}  // namespace streams::persistent
