#include "pipeline_plan.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace streams::pipeline {

std::vector<Chunk> split_chunks(std::size_t n, int chunks) {
    if (chunks < 1 || static_cast<std::size_t>(chunks) > n) {
        throw std::invalid_argument("split_chunks: " + std::to_string(chunks) +
                                    " chunks of a vector of " + std::to_string(n) +
                                    " elements (1 to n chunks)");
    }
    const auto k = static_cast<std::size_t>(chunks);
    const std::size_t base = n / k;
    const std::size_t extra = n % k;
    std::vector<Chunk> result(k);
    std::size_t offset = 0;
    for (std::size_t c = 0; c < k; ++c) {
        result[c].offset = offset;
        result[c].count = base + (c < extra ? 1 : 0);
        offset += result[c].count;
    }
    return result;
}

const char* schedule_key(Schedule schedule) {
    switch (schedule) {
        case Schedule::kOneStream:
            return "one_stream";
        case Schedule::kDepthFirst:
            return "depth_first";
        case Schedule::kBreadthFirst:
            return "breadth_first";
    }
    return "?";
}

const std::vector<Schedule>& all_schedules() {
    static const std::vector<Schedule> list = {Schedule::kOneStream, Schedule::kDepthFirst,
                                               Schedule::kBreadthFirst};
    return list;
}

const char* stage_name(Stage stage) {
    switch (stage) {
        case Stage::kCopyIn:
            return "H2D";
        case Stage::kKernel:
            return "kernel";
        case Stage::kCopyOut:
            return "D2H";
    }
    return "?";
}

std::vector<Operation> issue_order(Schedule schedule, int chunks) {
    std::vector<Operation> order;
    const Stage stages[] = {Stage::kCopyIn, Stage::kKernel, Stage::kCopyOut};
    if (schedule == Schedule::kBreadthFirst) {
        for (const Stage stage : stages) {
            for (int c = 0; c < chunks; ++c) {
                order.push_back({c, stage, c});
            }
        }
        return order;
    }
    for (int c = 0; c < chunks; ++c) {
        for (const Stage stage : stages) {
            order.push_back({c, stage, schedule == Schedule::kOneStream ? 0 : c});
        }
    }
    return order;
}

double steady_state_bound_ms(const StageTimes& stages, int copy_engines) {
    if (copy_engines >= 2) {
        return std::max(
            {stages.copy_in_ms, stages.kernel_ms, stages.copy_out_ms, stages.both_copies_ms});
    }
    if (copy_engines == 1) {
        return std::max(stages.copy_in_ms + stages.copy_out_ms, stages.kernel_ms);
    }
    return stages.sum_ms();
}

double ideal_pipeline_ms(const StageTimes& stages, int chunks, int copy_engines) {
    if (chunks < 1) {
        throw std::invalid_argument("ideal_pipeline_ms: at least one chunk");
    }
    const double k = chunks;
    return (stages.sum_ms() + (k - 1.0) * steady_state_bound_ms(stages, copy_engines)) / k;
}

double ClockOffset::uncertainty_ns() const {
    return known ? std::max(0.0, (upper_ns - lower_ns) / 2.0) : 0.0;
}

ClockOffset bracket_clock_offset(const std::vector<Interval>& kernels_ns,
                                 const std::vector<double>& before_ms,
                                 const std::vector<double>& after_ms, std::uint64_t origin_ns) {
    if (kernels_ns.size() != before_ms.size() || kernels_ns.size() != after_ms.size()) {
        throw std::invalid_argument(
            "bracket_clock_offset: one before and one after event per "
            "kernel");
    }
    ClockOffset offset;
    offset.lower_ns = -std::numeric_limits<double>::infinity();
    offset.upper_ns = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < kernels_ns.size(); ++i) {
        // Integer differences first: %globaltimer values are ~1.7e18, beyond exact doubles.
        const auto relative = [origin_ns](std::uint64_t t) {
            return t >= origin_ns ? static_cast<double>(t - origin_ns)
                                  : -static_cast<double>(origin_ns - t);
        };
        // before + offset <= kernel start; after + offset >= kernel end.
        offset.upper_ns =
            std::min(offset.upper_ns, relative(kernels_ns[i].start_ns) - before_ms[i] * 1e6);
        offset.lower_ns =
            std::max(offset.lower_ns, relative(kernels_ns[i].end_ns) - after_ms[i] * 1e6);
        offset.known = true;
    }
    if (!offset.known) {
        offset.lower_ns = offset.upper_ns = 0.0;
        return offset;
    }
    offset.consistent = offset.lower_ns <= offset.upper_ns;
    offset.offset_ns = (offset.lower_ns + offset.upper_ns) / 2.0;
    return offset;
}

std::vector<Interval> copy_busy_intervals(const std::vector<CopyEvents>& copies) {
    std::vector<std::size_t> by_completion(copies.size());
    std::iota(by_completion.begin(), by_completion.end(), std::size_t{0});
    std::stable_sort(by_completion.begin(), by_completion.end(), [&](std::size_t a, std::size_t b) {
        return copies[a].done_ns < copies[b].done_ns;
    });
    std::vector<Interval> busy(copies.size());
    double engine_free = -std::numeric_limits<double>::infinity();
    for (const std::size_t i : by_completion) {
        const double start = std::min(std::max(copies[i].ready_ns, engine_free), copies[i].done_ns);
        const double end = copies[i].done_ns;
        // The timeline's axis starts at 0: clamp what a negative offset could produce.
        busy[i].start_ns = static_cast<std::uint64_t>(std::max(0.0, start));
        busy[i].end_ns = static_cast<std::uint64_t>(std::max(0.0, end));
        engine_free = end;
    }
    return busy;
}

namespace {

// The union of `intervals` as sorted, disjoint, non-empty intervals.
std::vector<Interval> merged(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end(),
              [](const Interval& x, const Interval& y) { return x.start_ns < y.start_ns; });
    std::vector<Interval> result;
    for (const Interval& i : intervals) {
        if (i.end_ns <= i.start_ns) {
            continue;
        }
        if (!result.empty() && i.start_ns <= result.back().end_ns) {
            result.back().end_ns = std::max(result.back().end_ns, i.end_ns);
        } else {
            result.push_back(i);
        }
    }
    return result;
}

}  // namespace

std::uint64_t busy_ns(const std::vector<Interval>& intervals) {
    std::uint64_t total = 0;
    for (const Interval& i : merged(intervals)) {
        total += i.end_ns - i.start_ns;
    }
    return total;
}

std::uint64_t overlap_ns(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    const std::vector<Interval> x = merged(a);
    const std::vector<Interval> y = merged(b);
    std::uint64_t total = 0;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < x.size() && j < y.size()) {
        const std::uint64_t start = std::max(x[i].start_ns, y[j].start_ns);
        const std::uint64_t end = std::min(x[i].end_ns, y[j].end_ns);
        total += end > start ? end - start : 0;
        (x[i].end_ns < y[j].end_ns ? i : j)++;
    }
    return total;
}

AffineSteps compose_affine(std::uint32_t a, std::uint32_t rounds) {
    // Binary powering of the map f(x) = a x + 1 kept as (multiplier, addend); composing
    // (m1, c1) after (m2, c2) gives (m1 m2, m1 c2 + c1). With b = 1 the addend is the geometric
    // sum, and b scales it linearly.
    AffineSteps result;  // identity: (1, 0)
    AffineSteps power{a, 1u};
    for (std::uint32_t r = rounds; r != 0; r >>= 1) {
        if (r & 1u) {
            result = {power.multiplier * result.multiplier,
                      power.multiplier * result.addend_per_b + power.addend_per_b};
        }
        power = {power.multiplier * power.multiplier,
                 power.multiplier * power.addend_per_b + power.addend_per_b};
    }
    return result;
}

}  // namespace streams::pipeline
