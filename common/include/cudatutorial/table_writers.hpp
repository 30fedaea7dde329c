/// @file table_writers.hpp
/// @brief The output formats of a result table: one small class per format behind one interface
/// (as nvbench's printers), each reading the same model (ResultTable and its layout()).
///
/// A new format is a new TableWriter; no existing writer changes. ResultTable::print,
/// write_markdown, write_csv, write_json and write_files are thin wrappers over these, and
/// finish_table (cli.hpp), which TableRun::finish (table_run.hpp) calls, is the one place a
/// chapter's table is printed and written.
#pragma once

#include <iosfwd>
#include <string>

#include "cudatutorial/report.hpp"

namespace cudatutorial {

/// One output format of a ResultTable.
class TableWriter {
  public:
    virtual ~TableWriter() = default;
    /// Writes `table` to `out` in this format.
    virtual void write(const ResultTable& table, std::ostream& out) const = 0;
};

/// The terminal: a header (GPU, versions, parameters), the aligned table, then the row details,
/// the notes and a verdict.
class TextWriter final : public TableWriter {
  public:
    void write(const ResultTable& table, std::ostream& out) const override;
};

/// GitHub Markdown: the caption in italics, the table, then the row details and notes as a list
/// (what the READMEs show between their RESULTS markers).
class MarkdownWriter final : public TableWriter {
  public:
    void write(const ResultTable& table, std::ostream& out) const override;
};

/// CSV, one line per row; the run information and the notes repeat on every row, so that CSVs
/// from several GPUs can simply be concatenated.
class CsvWriter final : public TableWriter {
  public:
    void write(const ResultTable& table, std::ostream& out) const override;
};

/// JSON: {"program", "title", "run", "baseline", ["group_column",] "rows", "notes", "markdown",
/// then the attached documents}; numbers with ten significant digits.
class JsonWriter final : public TableWriter {
  public:
    void write(const ResultTable& table, std::ostream& out) const override;
};

/// Writes `table` with `writer` to the file `path`; an empty path: nothing. Throws UsageError
/// when the file cannot be opened or written.
void write_table_file(const ResultTable& table, const TableWriter& writer, const std::string& path);

}  // namespace cudatutorial
