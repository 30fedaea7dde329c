#include "timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <utility>

#include "stream_rules.hpp"

namespace streams {

bool overlaps(const KernelRecord& a, const KernelRecord& b) {
    return a.start_ns < b.end_ns && b.start_ns < a.end_ns;
}

int running_at(const std::vector<KernelRecord>& kernels, std::uint64_t time_ns) {
    int count = 0;
    for (const auto& kernel : kernels) {
        count += kernel.start_ns <= time_ns && time_ns < kernel.end_ns ? 1 : 0;
    }
    return count;
}

int max_concurrent(const std::vector<KernelRecord>& kernels, bool workers_only) {
    // (time, +1 start / -1 end); sorting puts -1 before +1 at equal times: touching is not overlap.
    std::vector<std::pair<std::uint64_t, int>> events;
    for (const auto& kernel : kernels) {
        if (workers_only && kernel.role != Role::kWorker) {
            continue;
        }
        if (kernel.end_ns <= kernel.start_ns) {
            continue;  // an empty interval is never running
        }
        events.emplace_back(kernel.start_ns, +1);
        events.emplace_back(kernel.end_ns, -1);
    }
    std::sort(events.begin(), events.end());
    int running = 0;
    int most = 0;
    for (const auto& event : events) {
        running += event.second;
        most = std::max(most, running);
    }
    return most;
}

double RunSummary::concurrency() const {
    return span_ns ? static_cast<double>(sum_worker_ns) / static_cast<double>(span_ns) : 0.0;
}

RunSummary summarize_run(const std::vector<KernelRecord>& kernels) {
    RunSummary summary;
    summary.kernels = static_cast<int>(kernels.size());
    if (kernels.empty()) {
        return summary;
    }
    const StreamOrder order(kernels);
    std::uint64_t first = kernels.front().start_ns;
    std::uint64_t last = kernels.front().end_ns;
    std::set<std::uint32_t> sms;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const KernelRecord& a = kernels[i];
        first = std::min(first, a.start_ns);
        last = std::max(last, a.end_ns);
        if (a.role == Role::kWorker) {
            ++summary.workers;
            summary.sum_worker_ns += a.duration_ns();
            sms.insert(a.sm);
        }
        for (std::size_t j = i + 1; j < kernels.size(); ++j) {
            const KernelRecord& b = kernels[j];
            const bool overlap = overlaps(a, b);
            const bool ordered = order.ordered(i, j);
            if (overlap && ordered) {
                if (summary.forbidden_overlaps == 0) {
                    summary.first_forbidden = a.name + " and " + b.name;
                }
                ++summary.forbidden_overlaps;
            }
            if (a.role == Role::kWorker && b.role == Role::kWorker) {
                ++summary.worker_pairs;
                summary.overlapping_pairs += overlap ? 1 : 0;
                summary.allowed_pairs += ordered ? 0 : 1;
            }
        }
    }
    summary.max_concurrent = max_concurrent(kernels, true);
    summary.sms_used = static_cast<int>(sms.size());
    summary.first_start_ns = first;
    summary.span_ns = last - first;
    return summary;
}

std::string format_us(std::uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(ns) / 1000.0);
    return text;
}

std::size_t display_width(const std::string& text) {
    std::size_t width = 0;
    for (const char ch : text) {
        width +=
            (static_cast<unsigned char>(ch) & 0xC0) != 0x80 ? 1 : 0;  // skip continuation bytes
    }
    return width;
}

namespace {

std::string pad_right(const std::string& text, std::size_t width) {
    const std::size_t have = display_width(text);
    return have >= width ? text : text + std::string(width - have, ' ');
}

std::string pad_left(const std::string& text, std::size_t width) {
    const std::size_t have = display_width(text);
    return have >= width ? text : std::string(width - have, ' ') + text;
}

// Splits UTF-8 text into code points, so that labels can be placed column by column.
std::vector<std::string> code_points(const std::string& text) {
    std::vector<std::string> points;
    for (const char ch : text) {
        if ((static_cast<unsigned char>(ch) & 0xC0) == 0x80 && !points.empty()) {
            points.back() += ch;
        } else {
            points.emplace_back(1, ch);
        }
    }
    return points;
}

}  // namespace

std::string timeline_bar(const KernelRecord& kernel, std::uint64_t origin_ns,
                         const TimeAxis& axis) {
    const int width = std::max(axis.width, 1);
    const double span = static_cast<double>(std::max<std::uint64_t>(axis.span_ns, 1));
    const double column = span / width;
    // %globaltimer counts from an epoch: ~1.7e18 ns, beyond double's exact integers. Subtract
    // as integers first, convert the small differences.
    const auto relative = [origin_ns](std::uint64_t t) {
        return t >= origin_ns ? static_cast<double>(t - origin_ns)
                              : -static_cast<double>(origin_ns - t);
    };
    const double start = relative(kernel.start_ns);
    // An interval of zero length (a dummy kernel within one timer tick) still occupies its column.
    const double end = std::max(relative(kernel.end_ns), start + 1e-3);
    const char mark = kernel.role == Role::kWorker ? '#' : '+';
    std::string bar(static_cast<std::size_t>(width), ' ');
    for (int c = 0; c < width; ++c) {
        const double column_start = c * column;
        const double column_end = (c + 1) * column;
        if (start < column_end && end > column_start) {
            bar[static_cast<std::size_t>(c)] = mark;
        }
    }
    if (end > span) {
        bar.back() = '>';
    }
    return bar;
}

std::string axis_labels(const TimeAxis& axis) {
    const int width = std::max(axis.width, 1);
    std::vector<std::string> cells(static_cast<std::size_t>(width), " ");
    const auto place = [&](const std::string& label, int first_column) {
        const auto points = code_points(label);
        for (std::size_t k = 0; k < points.size(); ++k) {
            const int c = first_column + static_cast<int>(k);
            if (c >= 0 && c < width) {
                cells[static_cast<std::size_t>(c)] = points[k];
            }
        }
    };
    const std::string end_label = format_us(axis.span_ns) + " µs";
    const std::string mid_label = format_us(axis.span_ns / 2);
    const int end_width = static_cast<int>(display_width(end_label));
    const int mid_width = static_cast<int>(display_width(mid_label));
    place("0", 0);
    if (width >= end_width + mid_width + 4) {
        place(mid_label, width / 2 - mid_width / 2);
    }
    if (width >= end_width + 2) {
        place(end_label, width - end_width);
    }
    std::string text;
    for (const auto& cell : cells) {
        text += cell;
    }
    return text;
}

std::string render_timeline(const std::vector<KernelRecord>& kernels, const TimeAxis& axis,
                            const std::string& indent) {
    if (kernels.empty()) {
        return indent + "(no kernels)\n";
    }
    std::uint64_t origin = kernels.front().start_ns;
    for (const auto& kernel : kernels) {
        origin = std::min(origin, kernel.start_ns);
    }
    std::size_t name_width = display_width("kernel");
    std::size_t stream_width = display_width("stream");
    for (const auto& kernel : kernels) {
        name_width = std::max(name_width, display_width(kernel.name));
        stream_width = std::max(stream_width, display_width(kernel.stream));
    }
    std::ostringstream out;
    const auto columns = [&](const std::string& name, const std::string& stream,
                             const std::string& id, const std::string& sm, const std::string& start,
                             const std::string& end) {
        out << indent << pad_right(name, name_width) << "  " << pad_right(stream, stream_width)
            << "  " << pad_left(id, 9) << "  " << pad_left(sm, 3) << "  " << pad_left(start, 9)
            << "  " << pad_left(end, 9) << "  ";
    };
    columns("kernel", "stream", "stream id", "SM", "start µs", "end µs");
    out << " " << axis_labels(axis) << "\n";
    for (const auto& kernel : kernels) {
        columns(kernel.name, kernel.stream, std::to_string(kernel.stream_id),
                std::to_string(kernel.sm), format_us(kernel.start_ns - origin),
                format_us(kernel.end_ns - origin));
        out << "|" << timeline_bar(kernel, origin, axis) << "|\n";
    }
    return out.str();
}

std::string render_concurrency_profile(const std::vector<KernelRecord>& kernels,
                                       std::uint64_t span_ns, int rows, int full_scale,
                                       int bar_width, const std::string& indent) {
    if (kernels.empty() || rows < 1) {
        return indent + "(no kernels)\n";
    }
    std::uint64_t origin = kernels.front().start_ns;
    for (const auto& kernel : kernels) {
        origin = std::min(origin, kernel.start_ns);
    }
    std::ostringstream out;
    out << indent << pad_left("from µs", 9) << "  " << pad_left("to µs", 9) << "  "
        << pad_left("running", 7) << "  (at the middle of the slice; " << full_scale
        << " fill the bar)\n";
    for (int r = 0; r < rows; ++r) {
        const std::uint64_t from = span_ns * static_cast<std::uint64_t>(r) / rows;
        const std::uint64_t to = span_ns * static_cast<std::uint64_t>(r + 1) / rows;
        const int count = running_at(kernels, origin + (from + to) / 2);
        int length =
            full_scale > 0
                ? static_cast<int>(std::lround(static_cast<double>(count) * bar_width / full_scale))
                : 0;
        if (count > 0) {
            length = std::max(length, 1);
        }
        out << indent << pad_left(format_us(from), 9) << "  " << pad_left(format_us(to), 9) << "  "
            << pad_left(std::to_string(count), 7) << "  "
            << std::string(static_cast<std::size_t>(length), '#') << "\n";
    }
    return out.str();
}

}  // namespace streams
