// The "% of copy" column (copy_ceiling.hpp).
#include "copy_ceiling.hpp"

#include <limits>

namespace scan {

double row_gbs(const cudatutorial::ResultRow& row) {
    if (!row.timed || row.bytes <= 0 || row.stats.median_ms <= 0) {
        return 0;
    }
    return row.bytes / (row.stats.median_ms * 1e-3) / 1e9;
}

CopyCeiling::CopyCeiling(const cudatutorial::ResultRow& copy_row)
    : gbs_(copy_row.passed ? row_gbs(copy_row) : 0) {}

void CopyCeiling::add_column(cudatutorial::ResultRow& row) const {
    // A failed row's time measures a wrong result (stage 6x's runs end early): no percentage.
    const double gbs = row.passed ? row_gbs(row) : 0;
    const double percent =
        gbs_ > 0 && gbs > 0 ? 100.0 * gbs / gbs_ : std::numeric_limits<double>::quiet_NaN();
    row.with("% of copy", percent, 1);
}

}  // namespace scan
