#include "cudatutorial/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "cudatutorial/table_writers.hpp"

namespace cudatutorial {

namespace {

std::optional<double> ratio(const std::optional<double>& numerator,
                            const std::optional<double>& denominator) {
    if (!numerator || !denominator || *denominator <= 0.0) {
        return std::nullopt;
    }
    return *numerator / *denominator;
}

}  // namespace

void RunInfo::set(const std::string& key, const std::string& value) {
    for (auto& parameter : parameters) {
        if (parameter.first == key) {
            parameter.second = value;
            return;
        }
    }
    parameters.emplace_back(key, value);
}

std::string RunInfo::versions() const {
    std::string text = "CUDA runtime " + cuda_runtime + ", driver ";
    if (driver_version.empty()) {
        return text + "supporting CUDA " + cuda_driver;
    }
    return text + driver_version + " (supports CUDA " + cuda_driver + ")";
}

namespace {

// Sets `column`'s value in a list of (column, value) pairs, keeping the column's first place.
template <typename Value>
void set_cell(std::vector<std::pair<std::string, Value>>& cells, const std::string& column,
              Value value) {
    for (auto& cell : cells) {
        if (cell.first == column) {
            cell.second = std::move(value);
            return;
        }
    }
    cells.emplace_back(column, std::move(value));
}

}  // namespace

ResultRow& ResultRow::with(const std::string& column, const std::string& value) {
    set_cell(extra, column, value);
    extra_numbers.erase(
        std::remove_if(extra_numbers.begin(), extra_numbers.end(),
                       [&](const std::pair<std::string, double>& n) { return n.first == column; }),
        extra_numbers.end());
    return *this;
}

ResultRow& ResultRow::with(const std::string& column, double value, int decimals) {
    with(column, std::isfinite(value) ? format_fixed(value, decimals) : std::string());
    set_cell(extra_numbers, column, value);
    return *this;
}

std::string ResultRow::extra_value(const std::string& column) const {
    for (const auto& cell : extra) {
        if (cell.first == column) {
            return cell.second;
        }
    }
    return {};
}

std::optional<double> ResultRow::extra_number(const std::string& column) const {
    for (const auto& number : extra_numbers) {
        if (number.first == column) {
            return number.second;
        }
    }
    return std::nullopt;
}

ResultTable::ResultTable(RunInfo info) : info_(std::move(info)) {}

void ResultTable::set_baseline(const std::string& row_id, const std::string& label) {
    baseline_id_ = row_id;
    baseline_label_ = label;
}

void ResultTable::set_group_column(const std::string& header) {
    group_column_ = header;
}

std::string ResultTable::group_column() const {
    if (!group_column_.empty()) {
        return group_column_;
    }
    const bool grouped = std::any_of(rows_.begin(), rows_.end(),
                                     [](const ResultRow& r) { return !r.group.empty(); });
    return grouped ? "group" : std::string();
}

bool ResultTable::same_group(std::size_t a, std::size_t b) const {
    return rows_[a].group == rows_[b].group;
}

void ResultTable::add(ResultRow row) {
    rows_.push_back(std::move(row));
}

std::optional<double> ResultTable::median_of(std::size_t row) const {
    const ResultRow& r = rows_.at(row);
    if (!r.timed || r.stats.median_ms <= 0.0) {
        return std::nullopt;
    }
    return r.stats.median_ms;
}

std::optional<double> ResultTable::bandwidth_gbs(std::size_t row) const {
    const auto median = median_of(row);
    if (!median || rows_[row].bytes <= 0.0) {
        return std::nullopt;
    }
    return cudatutorial::bandwidth_gbs(rows_[row].bytes, *median);
}

std::optional<double> ResultTable::percent_of_peak(std::size_t row) const {
    const auto gbs = bandwidth_gbs(row);
    if (!gbs || info_.peak_bandwidth_gbs <= 0.0) {
        return std::nullopt;
    }
    return percent_of(*gbs, info_.peak_bandwidth_gbs);
}

std::optional<double> ResultTable::speedup_vs_previous(std::size_t row) const {
    if (!rows_.at(row).in_progression) {
        return std::nullopt;
    }
    for (std::size_t i = row; i-- > 0;) {
        if (rows_[i].in_progression && same_group(i, row) && median_of(i)) {
            return ratio(median_of(i), median_of(row));
        }
    }
    return std::nullopt;
}

std::optional<double> ResultTable::speedup_vs_first(std::size_t row) const {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        if (rows_[i].in_progression && same_group(i, row) && median_of(i)) {
            return i == row ? std::optional<double>(1.0) : ratio(median_of(i), median_of(row));
        }
    }
    return std::nullopt;
}

std::optional<double> ResultTable::speedup_vs_baseline(std::size_t row) const {
    if (baseline_id_.empty()) {
        return std::nullopt;
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        if (rows_[i].id == baseline_id_ && same_group(i, row)) {
            return ratio(median_of(i), median_of(row));
        }
    }
    return std::nullopt;
}

bool ResultTable::all_passed() const {
    return std::all_of(rows_.begin(), rows_.end(),
                       [](const ResultRow& r) { return r.passed || r.expected_failure; });
}

std::vector<std::string> ResultTable::extra_columns() const {
    std::vector<std::string> columns;
    for (const auto& row : rows_) {
        for (const auto& cell : row.extra) {
            if (std::find(columns.begin(), columns.end(), cell.first) == columns.end()) {
                columns.push_back(cell.first);
            }
        }
    }
    return columns;
}

bool ResultTable::has_bandwidth() const {
    return std::any_of(rows_.begin(), rows_.end(), [](const ResultRow& r) { return r.bytes > 0; });
}

bool ResultTable::has_progression() const {
    return std::any_of(rows_.begin(), rows_.end(),
                       [](const ResultRow& r) { return r.in_progression; });
}

namespace {

std::string verdict(const ResultRow& row) {
    if (row.passed) {
        return "PASS";
    }
    return row.expected_failure ? "FAIL (expected)" : "FAIL";
}

}  // namespace

std::optional<std::size_t> ResultTable::baseline_row() const {
    for (std::size_t i = 0; i < rows_.size() && !baseline_id_.empty(); ++i) {
        if (rows_[i].id == baseline_id_) {
            return i;
        }
    }
    return std::nullopt;
}

void ResultTable::add_note(const std::string& note) {
    notes_.push_back(note);
}

void ResultTable::attach(const std::string& key, std::string json_value) {
    static const char* const standard[] = {"program", "title",    "rows",         "notes",
                                           "run",     "baseline", "group_column", "markdown"};
    if (key.empty() ||
        std::find(std::begin(standard), std::end(standard), key) != std::end(standard)) {
        throw std::invalid_argument("ResultTable::attach: '" + key +
                                    "' is not a free key for a top-level JSON member");
    }
    if (json_value.find_first_not_of(" \t\r\n") == std::string::npos) {
        throw std::invalid_argument("ResultTable::attach: the value of '" + key + "' is empty");
    }
    set_cell(attachments_, key, std::move(json_value));
}

TableLayout ResultTable::layout() const {
    using Kind = TableCell::Kind;
    const auto value = [](std::string text) {
        return TableCell{Kind::kValue, std::move(text), {}};
    };
    const auto optional = [](const std::optional<double>& number, int decimals) {
        return number ? TableCell{Kind::kValue, format_fixed(*number, decimals), {}}
                      : TableCell{Kind::kMissing, {}, {}};
    };
    const auto extras = extra_columns();
    const bool bandwidth = has_bandwidth();
    const bool progression = has_progression();
    const bool baseline = baseline_row().has_value();
    // No "% peak" where no DRAM peak applies (chapter 7's links and GPU sets).
    const bool peak = bandwidth && info_.peak_bandwidth_gbs > 0.0;
    const std::string group = group_column();

    TableLayout layout;
    const auto column = [&](const std::string& text, const std::string& markdown) {
        layout.headers.push_back(text);
        layout.markdown_headers.push_back(markdown);
    };
    column("id", "id");
    if (!group.empty()) {
        column(group, group);
        layout.left_aligned_columns = 3;
    }
    column("kernel", "kernel");
    column("median ms", "median ms");
    column("min-max ms", "min–max ms");
    if (bandwidth) {
        column("GB/s", "GB/s");
    }
    if (peak) {
        column("% peak", "% peak");
    }
    for (const auto& extra : extras) {
        column(extra, extra);
    }
    if (progression) {
        column("x prev", "× prev");
        column("x first", "× first");
    }
    if (baseline) {
        column("x " + baseline_label_, "× " + baseline_label_);
    }
    column("result", "result");

    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const ResultRow& row = rows_[i];
        std::vector<TableCell> cells = {value(row.id)};
        if (!group.empty()) {
            cells.push_back(row.group.empty() ? TableCell{Kind::kMissing, {}, {}}
                                              : value(row.group));
        }
        cells.push_back({Kind::kName, row.name, {}});
        if (row.timed) {
            cells.push_back(value(format_ms(row.stats.median_ms)));
            cells.push_back(
                {Kind::kRange, format_ms(row.stats.min_ms), format_ms(row.stats.max_ms)});
        } else {
            cells.insert(cells.end(), 2, TableCell{Kind::kMissing, {}, {}});
        }
        if (bandwidth) {
            cells.push_back(optional(bandwidth_gbs(i), 0));
        }
        if (peak) {
            cells.push_back(optional(percent_of_peak(i), 1));
        }
        for (const auto& extra : extras) {
            const std::string text = row.extra_value(extra);
            cells.push_back(text.empty() ? TableCell{Kind::kMissing, {}, {}} : value(text));
        }
        if (progression) {
            cells.push_back(optional(speedup_vs_previous(i), 2));
            cells.push_back(optional(speedup_vs_first(i), 2));
        }
        if (baseline) {
            cells.push_back(optional(speedup_vs_baseline(i), 2));
        }
        cells.push_back({Kind::kVerdict, verdict(row), {}});
        layout.rows.push_back(std::move(cells));
        if (!row.detail.empty()) {
            layout.remarks.push_back("[" + row.id + (row.group.empty() ? "" : ", " + row.group) +
                                     "] " + row.detail);
        }
    }
    return layout;
}

std::string ResultTable::caption() const {
    std::string text = info_.gpu_name + " (compute capability " + info_.compute_capability + ", " +
                       std::to_string(info_.sm_count) + " SMs), " + info_.versions() + ", " +
                       info_.timestamp.substr(0, 10);
    std::string parameters;
    for (const auto& parameter : info_.parameters) {
        parameters += (parameters.empty() ? "" : ", ") + parameter.first + " " + parameter.second;
    }
    if (!parameters.empty()) {
        text += "; " + parameters;
    }
    if (info_.peak_bandwidth_gbs > 0.0) {
        text +=
            "; theoretical DRAM bandwidth " + format_fixed(info_.peak_bandwidth_gbs, 0) + " GB/s";
    }
    return text;
}

void ResultTable::print(std::ostream& out) const {
    TextWriter().write(*this, out);
}

void ResultTable::write_markdown(std::ostream& out) const {
    MarkdownWriter().write(*this, out);
}

std::string ResultTable::markdown() const {
    std::ostringstream text;
    write_markdown(text);
    return text.str();
}

void ResultTable::write_csv(std::ostream& out) const {
    CsvWriter().write(*this, out);
}

void ResultTable::write_json(std::ostream& out) const {
    JsonWriter().write(*this, out);
}

void ResultTable::write_files(const std::string& csv_path, const std::string& json_path,
                              const std::string& markdown_path) const {
    write_table_file(*this, CsvWriter(), csv_path);
    write_table_file(*this, JsonWriter(), json_path);
    write_table_file(*this, MarkdownWriter(), markdown_path);
}

std::string format_ms(double ms) {
    char text[32];
    if (ms < 1.0) {
        std::snprintf(text, sizeof text, "%.4f", ms);
    } else if (ms < 10.0) {
        std::snprintf(text, sizeof text, "%.3f", ms);
    } else if (ms < 100.0) {
        std::snprintf(text, sizeof text, "%.2f", ms);
    } else {
        std::snprintf(text, sizeof text, "%.1f", ms);
    }
    return text;
}

std::string format_fixed(double value, int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<std::size_t>& left_aligned) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (std::size_t c = 0; c < row.size(); ++c) {
            widths[c] = std::max(widths[c], row[c].size());
        }
    }
    const auto is_left = [&](std::size_t c) {
        return std::find(left_aligned.begin(), left_aligned.end(), c) != left_aligned.end();
    };
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            const std::string& cell = rows[r][c];
            const std::string pad(widths[c] - cell.size(), ' ');
            const bool last = c + 1 == rows[r].size();
            out << (c ? "  " : "") << (is_left(c) ? cell + (last ? "" : pad) : pad + cell);
        }
        out << "\n";
        if (r == 0) {
            std::size_t total = 0;
            for (std::size_t c = 0; c < widths.size(); ++c) {
                total += widths[c] + (c ? 2 : 0);
            }
            out << std::string(total, '-') << "\n";
        }
    }
}

std::string json_string(const std::string& text) {
    std::string quoted = "\"";
    for (const char ch : text) {
        switch (ch) {
            case '"':
                quoted += "\\\"";
                break;
            case '\\':
                quoted += "\\\\";
                break;
            case '\n':
                quoted += "\\n";
                break;
            case '\r':
                quoted += "\\r";
                break;
            case '\t':
                quoted += "\\t";
                break;
            default:
                if (static_cast<unsigned char>(ch) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", ch);
                    quoted += escaped;
                } else {
                    quoted += ch;
                }
        }
    }
    return quoted + "\"";
}

std::string csv_cell(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (const char ch : text) {
        quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    }
    return quoted + "\"";
}

}  // namespace cudatutorial
