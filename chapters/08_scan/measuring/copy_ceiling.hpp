/// @file copy_ceiling.hpp
/// @brief The copy ceiling of chapter 8's table: a device-to-device copy of the same n values,
/// timed in the same run, and the "% of copy" column it gives every row.
///
/// A scan must read its n values and write n values; a copy does exactly that and nothing else,
/// so the copy's bandwidth on this GPU, measured now, is the most a scan can reach: a truer
/// ceiling than the theoretical peak in the "% peak" column, which no kernel reaches.
#pragma once

#include "cudatutorial/report.hpp"

namespace scan {

/// The copy's row, timed before the stages, and the column it gives them.
class CopyCeiling {
  public:
    /// `copy_row`: the copy stage's row from TableRun::time_stage (not yet added to the table).
    explicit CopyCeiling(const cudatutorial::ResultRow& copy_row);

    /// Adds "% of copy" to `row`: its GB/s over the copy's, in percent (missing when either was
    /// not timed, moved no bytes, or failed its check).
    void add_column(cudatutorial::ResultRow& row) const;

    /// The copy's GB/s, 0 when it cannot serve as the ceiling.
    double gbs() const { return gbs_; }

  private:
    double gbs_ = 0;
};

/// A row's GB/s (bytes / median time), 0 when it was not timed or moved no bytes.
double row_gbs(const cudatutorial::ResultRow& row);

}  // namespace scan
