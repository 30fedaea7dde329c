#include "cudatutorial/table_writers.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>

#include "cudatutorial/errors.hpp"

namespace cudatutorial {

namespace {

// Numbers in files keep ten significant digits: CUDA events time in float (about 7 digits), so
// a reader that rounds them for a table rounds the measured value once, as the terminal table
// does, and the two agree. With six digits a median of 1.65449 ms was stored as 1.6545, which the
// README's table then rounded again to 1.655 while the program printed 1.654.
std::string file_number(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

std::string json_number(const std::optional<double>& value) {
    if (!value || !std::isfinite(*value)) {
        return "null";
    }
    return file_number(*value);
}

std::string csv_number(const std::optional<double>& value) {
    if (!value || !std::isfinite(*value)) {
        return "";
    }
    return file_number(*value);
}

std::string terminal_text(const TableCell& cell) {
    switch (cell.kind) {
        case TableCell::Kind::kMissing:
            return "-";
        case TableCell::Kind::kRange:
            return cell.text + "-" + cell.second;
        default:
            return cell.text;
    }
}

std::string markdown_text(const TableCell& cell) {
    std::string text;
    switch (cell.kind) {
        case TableCell::Kind::kMissing:
            text = "–";
            break;
        case TableCell::Kind::kName:
            text = "`" + cell.text + "`";
            break;
        case TableCell::Kind::kRange:
            text = cell.text + "–" + cell.second;
            break;
        case TableCell::Kind::kVerdict:
            text = cell.text == "FAIL" ? "**FAIL**" : cell.text;
            break;
        default:
            text = cell.text;
    }
    std::string escaped;  // a "|" inside a cell would end it
    for (const char ch : text) {
        escaped += ch == '|' ? std::string("\\|") : std::string(1, ch);
    }
    return escaped;
}

// The row remarks ("[id] detail"), then the table's notes, each on a line after `bullet`, with a
// blank line before them when there are any.
void write_remarks(std::ostream& out, const TableLayout& shown, const ResultTable& table,
                   const char* bullet) {
    if (!shown.remarks.empty() || !table.notes().empty()) {
        out << "\n";
    }
    for (const auto& remark : shown.remarks) {
        out << bullet << remark << "\n";
    }
    for (const auto& note : table.notes()) {
        out << bullet << note << "\n";
    }
}

}  // namespace

void TextWriter::write(const ResultTable& table, std::ostream& out) const {
    const RunInfo& info = table.info();
    out << "== " << info.program;
    if (!info.title.empty()) {
        out << ": " << info.title;
    }
    out << " ==\n";
    out << "GPU " << info.gpu_name << " (compute capability " << info.compute_capability << ", "
        << info.sm_count << " SMs), " << info.versions() << ", " << info.timestamp << "\n";
    if (info.peak_bandwidth_gbs > 0.0) {
        out << "theoretical DRAM bandwidth " << format_fixed(info.peak_bandwidth_gbs, 0)
            << " GB/s\n";
    }
    if (!info.parameters.empty()) {
        bool first = true;
        for (const auto& parameter : info.parameters) {
            out << (first ? "" : ", ") << parameter.first << " " << parameter.second;
            first = false;
        }
        out << "\n";
    }
    out << "\n";

    const TableLayout shown = table.layout();
    std::vector<std::vector<std::string>> cells = {shown.headers};
    for (const auto& row : shown.rows) {
        std::vector<std::string> line;
        for (const auto& cell : row) {
            line.push_back(terminal_text(cell));
        }
        cells.push_back(std::move(line));
    }
    std::vector<std::size_t> left;
    for (std::size_t c = 0; c < shown.left_aligned_columns; ++c) {
        left.push_back(c);
    }
    print_aligned(out, cells, left);

    write_remarks(out, shown, table, "  ");
    out << "\n";
    if (table.all_passed()) {
        out << "All results verified against the CPU reference.\n";
    } else {
        out << "FAILED: at least one kernel did not match the CPU reference.\n";
    }
}

void MarkdownWriter::write(const ResultTable& table, std::ostream& out) const {
    const TableLayout shown = table.layout();
    out << "*" << table.caption() << "*\n\n|";
    for (const auto& header : shown.markdown_headers) {
        out << " " << header << " |";
    }
    out << "\n|";
    for (std::size_t c = 0; c < shown.markdown_headers.size(); ++c) {
        const bool left = c < shown.left_aligned_columns || c + 1 == shown.markdown_headers.size();
        out << (left ? ":--|" : "--:|");
    }
    out << "\n";
    for (const auto& row : shown.rows) {
        out << "|";
        for (const auto& cell : row) {
            out << " " << markdown_text(cell) << " |";
        }
        out << "\n";
    }
    write_remarks(out, shown, table, "- ");
}

void CsvWriter::write(const ResultTable& table, std::ostream& out) const {
    const RunInfo& info = table.info();
    const auto extras = table.extra_columns();
    // The table's notes repeat on every row, as the run information does, so that a row read
    // alone (or CSVs concatenated) still says what was skipped.
    std::string joined_notes;
    for (const auto& note : table.notes()) {
        joined_notes += (joined_notes.empty() ? "" : "; ") + note;
    }
    const bool grouped = !table.group_column().empty();
    std::vector<std::string> header = {"program",        "gpu",          "compute_capability",
                                       "sm_count",       "cuda_runtime", "cuda_driver",
                                       "driver_version", "timestamp",    "peak_gbs"};
    for (const auto& parameter : info.parameters) {
        header.push_back(parameter.first);
    }
    header.push_back("id");
    if (grouped) {
        header.push_back("group");
    }
    header.insert(header.end(), {"name", "median_ms", "min_ms", "max_ms", "mean_ms", "samples",
                                 "bytes", "gbs", "percent_of_peak", "speedup_vs_previous",
                                 "speedup_vs_first", "speedup_vs_baseline"});
    header.insert(header.end(), extras.begin(), extras.end());
    header.insert(header.end(), {"passed", "expected_failure", "detail", "idea", "table_notes"});
    for (std::size_t c = 0; c < header.size(); ++c) {
        out << (c ? "," : "") << csv_cell(header[c]);
    }
    out << "\n";

    for (std::size_t i = 0; i < table.rows().size(); ++i) {
        const ResultRow& row = table.rows()[i];
        std::vector<std::string> line = {info.program,
                                         info.gpu_name,
                                         info.compute_capability,
                                         std::to_string(info.sm_count),
                                         info.cuda_runtime,
                                         info.cuda_driver,
                                         info.driver_version,
                                         info.timestamp,
                                         csv_number(info.peak_bandwidth_gbs)};
        for (const auto& parameter : info.parameters) {
            line.push_back(parameter.second);
        }
        const auto timed = [&](double v) { return row.timed ? csv_number(v) : std::string(); };
        line.push_back(row.id);
        if (grouped) {
            line.push_back(row.group);
        }
        line.insert(
            line.end(),
            {row.name, timed(row.stats.median_ms), timed(row.stats.min_ms), timed(row.stats.max_ms),
             timed(row.stats.mean_ms),
             row.timed ? std::to_string(row.stats.samples) : std::string(), csv_number(row.bytes),
             csv_number(table.bandwidth_gbs(i)), csv_number(table.percent_of_peak(i)),
             csv_number(table.speedup_vs_previous(i)), csv_number(table.speedup_vs_first(i)),
             csv_number(table.speedup_vs_baseline(i))});
        for (const auto& column : extras) {
            const auto number = row.extra_number(column);
            line.push_back(number ? csv_number(number) : row.extra_value(column));
        }
        line.insert(line.end(),
                    {row.passed ? "true" : "false", row.expected_failure ? "true" : "false",
                     row.detail, row.idea, joined_notes});
        for (std::size_t c = 0; c < line.size(); ++c) {
            out << (c ? "," : "") << csv_cell(line[c]);
        }
        out << "\n";
    }
}

void JsonWriter::write(const ResultTable& table, std::ostream& out) const {
    const RunInfo& info = table.info();
    out << "{\n  \"program\": " << json_string(info.program)
        << ",\n  \"title\": " << json_string(info.title) << ",\n  \"run\": {\n"
        << "    \"gpu\": " << json_string(info.gpu_name) << ",\n"
        << "    \"compute_capability\": " << json_string(info.compute_capability) << ",\n"
        << "    \"sm_count\": " << info.sm_count << ",\n"
        << "    \"cuda_runtime\": " << json_string(info.cuda_runtime) << ",\n"
        << "    \"cuda_driver\": " << json_string(info.cuda_driver) << ",\n"
        << "    \"driver_version\": " << json_string(info.driver_version) << ",\n"
        << "    \"timestamp\": " << json_string(info.timestamp) << ",\n"
        << "    \"peak_gbs\": " << json_number(info.peak_bandwidth_gbs) << ",\n"
        << "    \"parameters\": {";
    for (std::size_t p = 0; p < info.parameters.size(); ++p) {
        out << (p ? ", " : "") << json_string(info.parameters[p].first) << ": "
            << json_string(info.parameters[p].second);
    }
    out << "},\n    \"clocks\": ";
    if (info.clocks_observed) {
        out << "{\"sm_mhz_min\": " << info.sm_mhz_min << ", \"sm_mhz_max\": " << info.sm_mhz_max
            << ", \"memory_mhz_min\": " << info.memory_mhz_min
            << ", \"memory_mhz_max\": " << info.memory_mhz_max
            << ", \"throttle\": " << json_string(info.throttle) << "}";
    } else {
        out << "null";
    }
    out << "\n  },\n  \"baseline\": "
        << (table.baseline_id().empty() ? std::string("null") : json_string(table.baseline_id()));
    const std::string group = table.group_column();
    if (!group.empty()) {
        out << ",\n  \"group_column\": " << json_string(group);
    }
    out << ",\n  \"rows\": [";
    for (std::size_t i = 0; i < table.rows().size(); ++i) {
        const ResultRow& row = table.rows()[i];
        const auto timed = [&](double v) {
            return row.timed ? json_number(v) : std::string("null");
        };
        out << (i ? "," : "") << "\n    {\"id\": " << json_string(row.id);
        if (!group.empty()) {
            out << ", \"group\": " << json_string(row.group);
        }
        out << ", \"name\": " << json_string(row.name) << ", \"idea\": " << json_string(row.idea)
            << ", \"median_ms\": " << timed(row.stats.median_ms)
            << ", \"min_ms\": " << timed(row.stats.min_ms)
            << ", \"max_ms\": " << timed(row.stats.max_ms)
            << ", \"mean_ms\": " << timed(row.stats.mean_ms)
            << ", \"samples\": " << (row.timed ? std::to_string(row.stats.samples) : "null")
            << ", \"bytes\": " << json_number(row.bytes)
            << ", \"gbs\": " << json_number(table.bandwidth_gbs(i))
            << ", \"percent_of_peak\": " << json_number(table.percent_of_peak(i))
            << ", \"speedup_vs_previous\": " << json_number(table.speedup_vs_previous(i))
            << ", \"speedup_vs_first\": " << json_number(table.speedup_vs_first(i))
            << ", \"speedup_vs_baseline\": " << json_number(table.speedup_vs_baseline(i))
            << ", \"in_progression\": " << (row.in_progression ? "true" : "false")
            << ", \"passed\": " << (row.passed ? "true" : "false")
            << ", \"expected_failure\": " << (row.expected_failure ? "true" : "false")
            << ", \"detail\": " << json_string(row.detail) << ", \"extra\": {";
        for (std::size_t e = 0; e < row.extra.size(); ++e) {
            const auto& [column, text] = row.extra[e];
            const auto number = row.extra_number(column);
            out << (e ? ", " : "") << json_string(column) << ": "
                << (number ? json_number(number) : json_string(text));
        }
        out << "}}";
    }
    out << "\n  ],\n  \"notes\": [";
    for (std::size_t i = 0; i < table.notes().size(); ++i) {
        out << (i ? ", " : "") << json_string(table.notes()[i]);
    }
    out << "],\n  \"markdown\": " << json_string(table.markdown());
    for (const auto& [key, value] : table.attachments()) {
        out << ",\n  " << json_string(key) << ": " << value;
    }
    out << "\n}\n";
}

void write_table_file(const ResultTable& table, const TableWriter& writer,
                      const std::string& path) {
    if (path.empty()) {
        return;
    }
    std::ofstream file(path);
    if (!file) {
        throw UsageError("cannot open '" + path + "' for writing");
    }
    writer.write(table, file);
    if (!file) {
        throw UsageError("writing '" + path + "' failed");
    }
}

}  // namespace cudatutorial
