#include "round_trip.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <type_traits>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
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

/// The stage a way is in scenario 9's table: 9a, 9b, 9c in all_ways() order, a baseline row
/// (outside the x prev chain: the scenarios are not steps of one optimization).
ct::StageDescriptor way_stage(Way way) {
    const auto& ways = all_ways();
    const auto index = std::find(ways.begin(), ways.end(), way) - ways.begin();
    return ct::StageDescriptor(std::string("9") + static_cast<char>('a' + index), way_key(way),
                               way_name(way), ct::StageRole::kBaseline);
}

/// The columns every way's row adds, read from the row's own times.
ct::StageHooks way_hooks(const std::string& group) {
    ct::StageHooks hooks;
    hooks.group = group;
    hooks.extras = [](ct::ResultRow& row) {
        if (!row.passed || row.stats.samples == 0) {
            row.timed = false;  // the calls after a failed task return at once: no time to show
        }
        row.with("µs/task", row.stats.median_ms * 1000.0, 2)
            .with("p99 µs", row.stats.p99_ms * 1000.0, 2)
            .with("tasks", static_cast<double>(row.stats.samples), 0);
    };
    return hooks;
}

/// Times tasks `runner` runs (LaunchedTasks or PersistentKernel) through time_stage's
/// round_trip hook: the first task, then config.warmup_tasks - 1 untimed ones, then config.tasks
/// timed one at a time on the host clock. A timed call only keeps its receipt; each validation
/// checks the receipts kept since the last, and the second, once every task has run, the buffer
/// too (for the persistent kernel after a clean stop). After a task fails, the calls left return
/// at once: the row fails with the reason.
template <typename Runner>
void time_tasks(Runner& runner, const std::vector<std::uint32_t>& initial,
                const RoundTripConfig& config, RoundTrip& m) {
    const auto total = static_cast<std::size_t>(std::max(1, config.warmup_tasks) + config.tasks);
    std::vector<Receipt> receipts;
    receipts.reserve(total);  // no allocation inside a timed call
    std::string problem;
    ct::StageHooks hooks = way_hooks(round_trip_group(config.n));
    hooks.round_trip = [&] {
        if (!problem.empty()) {
            return;
        }
        try {
            receipts.push_back(runner.run_task());
        } catch (const ct::CudaError&) {
            throw;  // the device is in trouble: the program's exit code 3, not a FAIL row
        } catch (const std::runtime_error& e) {
            problem = e.what();  // a task that did not complete, a kernel that ended by itself
        }
    };
    hooks.verify = [&] {
        for (; static_cast<std::size_t>(m.tasks_checked) < receipts.size(); ++m.tasks_checked) {
            const auto task = static_cast<std::uint64_t>(m.tasks_checked) + 1;
            if (problem.empty()) {
                problem = check_receipt(initial, task, receipts[task - 1]);
            }
        }
        if (problem.empty() && receipts.size() == total) {
            if constexpr (std::is_same_v<Runner, PersistentKernel>) {
                m.end_state = runner.stop();
                if (m.end_state != KernelState::kStopped) {
                    problem = std::string("the kernel ended by itself (") +
                              kernel_state_name(m.end_state) + "), not by the stop";
                }
            }
            if (problem.empty()) {
                problem = check_values(initial, total, runner.values());
            }
        }
        return ct::Verification{problem.empty(), problem};
    };
    ct::BenchmarkConfig timing;
    timing.warmup = std::max(1, config.warmup_tasks) - 1;  // the first task is validated, untimed
    timing.repetitions = config.tasks;
    m.row = ct::time_stage(way_stage(m.way), hooks, timing);
    m.stats = m.row.stats;
    m.p99_us = m.row.stats.p99_ms * 1000.0;
    m.passed = m.row.passed;
    m.detail = m.row.detail;
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

RoundTrip time_round_trips(Way way, const RoundTripConfig& config) {
    if (config.n == 0 || config.tasks < 1 || config.warmup_tasks < 0) {
        throw std::invalid_argument("time_round_trips: n >= 1, tasks >= 1, warmup_tasks >= 0");
    }
    RoundTrip m;
    m.way = way;
    const std::vector<std::uint32_t> initial = initial_values(config.n, config.salt);
    try {
        if (way == Way::kPersistent) {
            PersistentKernel kernel(initial, config.limits);  // its guard stops it on any exit
            time_tasks(kernel, initial, config, m);
        } else {
            LaunchedTasks launched(initial,
                                   way == Way::kGraph ? LaunchWay::kGraph : LaunchWay::kKernel);
            time_tasks(launched, initial, config, m);
        }
    } catch (const ct::CudaError&) {
        throw;
    } catch (const std::runtime_error& e) {
        // A persistent kernel that ended before it ran a task, a stop that did not come in time.
        m.passed = false;
        m.detail = e.what();
        m.row = round_trip_row(m, round_trip_group(config.n));
    }
    return m;
}

std::string round_trip_group(std::uint32_t n) {
    return std::to_string(n) + " ints";
}

ct::ResultRow round_trip_row(const RoundTrip& m, const std::string& group) {
    ct::Measurement measured;
    measured.stats = m.stats;
    measured.stats.p99_ms = m.p99_us / 1000.0;
    measured.before = {m.passed, m.detail};
    measured.after = measured.before;
    return ct::reported_row(way_stage(m.way), way_hooks(group), measured);
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
    for (const Way way : all_ways()) {
        const RoundTrip m = time_round_trips(way, rt);
        const bool timed = m.row.timed;
        if (way == Way::kLaunch && timed) {
            baseline_ms = m.stats.median_ms;
        }
        lines.push_back(
            {way_name(way), timed ? ct::format_fixed(m.stats.median_ms * 1000.0, 2) : "-",
             timed ? ct::format_fixed(m.p99_us, 2) : "-",
             timed ? ct::format_fixed(m.stats.min_ms * 1000.0, 2) + "-" +
                         ct::format_fixed(m.stats.max_ms * 1000.0, 2)
                   : "-",
             timed && baseline_ms ? ct::format_fixed(*baseline_ms / m.stats.median_ms, 2) : "-",
             m.passed ? "PASS" : "FAIL"});
        rows.push_back(m.row);
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
