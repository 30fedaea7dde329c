/// @file report.hpp
/// @brief Result tables: one row per kernel, printed aligned on the terminal and written as
/// CSV/JSON together with what was measured where (GPU, CUDA versions, date, options).
///
/// Derived columns are computed here once, so every chapter's table means the same thing:
///  - GB/s = bytes / median time; % peak = GB/s over the device's theoretical DRAM bandwidth;
///  - x prev = previous row's median / this row's (rows in the progression only);
///  - x first = first row's median / this row's;
///  - x baseline = the baseline row's median / this row's (> 1: faster than the baseline).
/// A table may hold several groups of rows (chapter 7's message sizes, say): each row names its
/// group (ResultRow::group) and set_group_column() names the column that shows it. The chain of
/// x prev and x first then runs within a group, and x baseline compares with the baseline row of
/// the row's own group; a row's identity for scripts is (group, id). Rows without a group form
/// one group of their own, which is every table without groups.
/// The printed table leaves out GB/s and % peak when no row moves bytes, and x prev and x first
/// when no row is in the progression (CSV and JSON always carry every field).
///
/// One model, four writers (table_writers.hpp): layout() decides the shown columns and formats
/// every cell once; the terminal (print) and Markdown (write_markdown) writers only typeset it.
/// CSV and JSON carry the full-precision values of the same accessors, the table's notes (skipped
/// stages, remarks) and, in JSON, the Markdown rendering, which scripts/results_tables.py pastes
/// into the READMEs without formatting a number itself.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudatutorial/stats.hpp"

namespace cudatutorial {

/// Where and when a table was measured, and with which options.
struct RunInfo {
    std::string program;             ///< executable name, e.g. "reduction"
    std::string title;               ///< one line shown above the table
    std::string gpu_name;            ///< device name
    std::string compute_capability;  ///< "9.0"
    int sm_count = 0;                ///< streaming multiprocessors
    std::string cuda_runtime;        ///< "13.0": the CUDA runtime the program was built with
    std::string cuda_driver;         ///< "13.0": the highest CUDA version the driver supports
    std::string driver_version;      ///< "580.95.05": the NVIDIA driver's own; empty if unknown
    double peak_bandwidth_gbs = 0;   ///< theoretical DRAM bandwidth, 0 if unknown
    std::string timestamp;           ///< local time, ISO 8601
    std::vector<std::pair<std::string, std::string>> parameters;  ///< problem size and options
    bool clocks_observed = false;  ///< NVML read the clocks during timing (clocks.hpp)
    unsigned sm_mhz_min = 0;       ///< lowest SM clock seen during timing
    unsigned sm_mhz_max = 0;       ///< highest SM clock seen during timing
    unsigned memory_mhz_min = 0;   ///< lowest memory clock seen during timing
    unsigned memory_mhz_max = 0;   ///< highest memory clock seen during timing
    std::string throttle;          ///< "none", the slowdown reasons seen, or empty (not observed)

    /// Adds (or replaces) a parameter shown in the header and written to CSV/JSON.
    void set(const std::string& key, const std::string& value);
    /// "CUDA runtime 13.0, driver 580.95.05 (supports CUDA 13.0)", for headers; without the
    /// driver's own version: "CUDA runtime 13.0, driver supporting CUDA 13.0".
    std::string versions() const;
};

/// One measured kernel (or a row that could not be measured, with `timed` false).
struct ResultRow {
    std::string id;                 ///< short key: "1", "10", "cub"
    std::string group;              ///< the row's group, e.g. "64 MiB" (empty: no group)
    std::string name;               ///< what the kernel does, e.g. "sequential_addressing"
    std::string idea;               ///< the stage's idea in one line (CSV/JSON; --stage list)
    bool timed = false;             ///< false: timing columns print as "-"
    Stats stats;                    ///< timing summary
    double bytes = 0;               ///< bytes moved by one run (0: no bandwidth column)
    bool passed = false;            ///< result matched the CPU reference
    std::string detail;             ///< a failure reason or a remark, printed under the table
    bool in_progression = true;     ///< part of the x prev / x first chain (false for baselines)
    bool expected_failure = false;  ///< a labelled bug demonstration: FAIL, not counted as failure
    std::vector<std::pair<std::string, std::string>> extra;  ///< chapter-specific columns, as shown
    /// The full values of the extra columns added as numbers (CSV and JSON write these).
    std::vector<std::pair<std::string, double>> extra_numbers;

    /// Adds a chapter-specific column value (e.g. "first pass ms", "launches"), shown as given
    /// and written to CSV and JSON as text.
    ResultRow& with(const std::string& column, const std::string& value);
    /// Adds a chapter-specific column holding a number: shown with `decimals` digits after the
    /// point, written to CSV and JSON with full precision (a JSON number). A value that is not
    /// finite shows as missing.
    ResultRow& with(const std::string& column, double value, int decimals);
    /// The number of a column added with with(column, value, decimals); empty for a text column.
    std::optional<double> extra_number(const std::string& column) const;
    /// The shown text of an extra column; empty when the row has none.
    std::string extra_value(const std::string& column) const;
};

/// One shown cell: its text and how a writer typesets it.
struct TableCell {
    /// What the cell holds.
    enum class Kind {
        kValue,    ///< a number or a label, shown as is
        kMissing,  ///< no value ("-" on the terminal, "–" in Markdown)
        kName,     ///< a kernel's name (code font in Markdown)
        kRange,    ///< `text` to `second` ("0.1-0.2" on the terminal, "0.1–0.2" in Markdown)
        kVerdict,  ///< PASS, FAIL or FAIL (expected); a plain FAIL is bold in Markdown
    };
    Kind kind = Kind::kValue;  ///< how to typeset
    std::string text;          ///< the value (the lower end of a range)
    std::string second;        ///< the upper end of a range
};

/// The shown part of a table: column headers (terminal spelling and Markdown spelling) and the
/// formatted cells, row by row, plus the remarks listed under it.
struct TableLayout {
    std::vector<std::string> headers;           ///< "min-max ms", "x prev"
    std::vector<std::string> markdown_headers;  ///< "min–max ms", "× prev"
    std::size_t left_aligned_columns = 2;       ///< id, the group if shown, and kernel
    std::vector<std::vector<TableCell>> rows;   ///< one per result row
    std::vector<std::string> remarks;           ///< "[id] detail" for rows with a detail
};

/// A result table with the derived columns described in the file comment.
class ResultTable {
  public:
    /// The run information, for a last addition before the table is written (the clocks).
    RunInfo& info() { return info_; }
    /// An empty table for the run described by `info`.
    explicit ResultTable(RunInfo info);

    /// Names the row that the "x <label>" column compares against (e.g. "cub", label "CUB"); in
    /// a grouped table, each group's row of that id.
    void set_baseline(const std::string& row_id, const std::string& label);
    /// Shows ResultRow::group as a column headed `header` (e.g. "size") right after the id, and
    /// writes it to CSV ("group"), JSON (each row's "group", the top level's "group_column").
    void set_group_column(const std::string& header);
    /// The group column's header; empty when the table has no groups.
    std::string group_column() const;
    /// The id set_baseline() named; empty without a baseline.
    const std::string& baseline_id() const { return baseline_id_; }
    /// Appends a row.
    void add(ResultRow row);
    /// Adds a note about the table as a whole (a skipped stage, a limit that applied): printed
    /// under the table and written to CSV, JSON and Markdown.
    void add_note(const std::string& note);
    /// The notes, in the order added.
    const std::vector<std::string>& notes() const { return notes_; }
    /// Attaches a document to the JSON output as the top-level member `"key": json_value`, after
    /// the standard ones (chapter 6's "timelines"); attaching a key again replaces its value.
    /// `json_value` must be JSON text (not checked beyond being non-blank). Throws
    /// std::invalid_argument for an empty or blank value, or a key that is empty or names a
    /// standard member ("program", "title", "run", "baseline", "group_column", "rows", "notes",
    /// "markdown").
    void attach(const std::string& key, std::string json_value);
    /// The attached documents, in the order attached.
    const std::vector<std::pair<std::string, std::string>>& attachments() const {
        return attachments_;
    }

    /// Where and when the table was measured.
    const RunInfo& info() const { return info_; }
    /// The rows, in the order added.
    const std::vector<ResultRow>& rows() const { return rows_; }

    /// GB/s of `row` (bytes / median); empty when untimed or bytes is 0.
    std::optional<double> bandwidth_gbs(std::size_t row) const;
    /// GB/s as % of the theoretical peak; empty when unknown.
    std::optional<double> percent_of_peak(std::size_t row) const;
    /// Previous timed progression row's median / this row's, within the row's group; empty for
    /// the group's first or a row outside the progression.
    std::optional<double> speedup_vs_previous(std::size_t row) const;
    /// The group's first timed progression row's median / this row's.
    std::optional<double> speedup_vs_first(std::size_t row) const;
    /// The group's baseline row's median / this row's (> 1: faster than the baseline); empty
    /// when the group has no baseline row.
    std::optional<double> speedup_vs_baseline(std::size_t row) const;
    /// Every row passed, except those marked expected_failure.
    bool all_passed() const;
    /// Names of extra columns, in order of first appearance.
    std::vector<std::string> extra_columns() const;
    /// Some row moves bytes: the GB/s and % peak columns are printed.
    bool has_bandwidth() const;
    /// Some row is in the progression: the x prev and x first columns are printed.
    bool has_progression() const;

    /// The shown columns and formatted cells (the one place that decides them).
    TableLayout layout() const;
    /// The caption line: GPU, versions, date; parameters; theoretical DRAM bandwidth.
    std::string caption() const;

    /// Header (GPU, versions, parameters), the aligned table, then row details, notes and a
    /// verdict.
    void print(std::ostream& out) const;
    /// The caption in italics, the table as GitHub Markdown, then the row details and notes as a
    /// list (what the READMEs show between their RESULTS markers).
    void write_markdown(std::ostream& out) const;
    /// write_markdown into a string.
    std::string markdown() const;
    /// One line per row; the run information repeats on every row, so CSVs from several GPUs
    /// can simply be concatenated for comparison. A grouped table has a "group" column after
    /// "id".
    void write_csv(std::ostream& out) const;
    /// {"program", "title", "run": {...}, "baseline", "rows": [...], "notes": [...],
    /// "markdown": "..."}; a grouped table adds "group_column" after "baseline" and a "group"
    /// to each row; attached documents (attach()) follow "markdown".
    void write_json(std::ostream& out) const;
    /// Writes CSV, JSON and/or Markdown to the given paths (empty path: skipped). Throws
    /// UsageError when a file cannot be opened.
    void write_files(const std::string& csv_path, const std::string& json_path,
                     const std::string& markdown_path = {}) const;

  private:
    std::optional<double> median_of(std::size_t row) const;
    RunInfo info_;
    std::vector<ResultRow> rows_;
    std::optional<std::size_t> baseline_row() const;
    bool same_group(std::size_t a, std::size_t b) const;
    std::string baseline_id_;
    std::string group_column_;
    std::string baseline_label_;
    std::vector<std::string> notes_;
    std::vector<std::pair<std::string, std::string>> attachments_;
};

/// Milliseconds with 4 significant digits: "0.0543", "2.531", "48.50", "172.0".
std::string format_ms(double ms);
/// `value` with `decimals` digits after the point.
std::string format_fixed(double value, int decimals);

/// Prints rows of cells as an aligned text table with a rule under the header. Columns whose
/// index is in `left_aligned` are padded on the right, the others on the left.
void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<std::size_t>& left_aligned = {0, 1});

/// A JSON string literal (quoted, escaped).
std::string json_string(const std::string& text);
/// A CSV cell (quoted when it holds a comma, quote or newline).
std::string csv_cell(const std::string& text);

}  // namespace cudatutorial
