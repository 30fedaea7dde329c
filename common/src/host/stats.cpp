#include "cudatutorial/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace cudatutorial {

Stats summarize(std::vector<double> samples_ms) {
    if (samples_ms.empty()) {
        throw std::invalid_argument("summarize: no samples");
    }
    for (double sample : samples_ms) {
        if (!std::isfinite(sample) || sample < 0.0) {
            throw std::invalid_argument("summarize: a sample is negative or not finite");
        }
    }
    std::sort(samples_ms.begin(), samples_ms.end());
    const std::size_t n = samples_ms.size();
    Stats stats;
    stats.samples = static_cast<int>(n);
    stats.min_ms = samples_ms.front();
    stats.max_ms = samples_ms.back();
    stats.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
    stats.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / n;
    stats.p99_ms = percentile(std::move(samples_ms), 0.99);
    return stats;
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

double bandwidth_gbs(double bytes, double ms) {
    return ms > 0.0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
}

double percent_of(double value, double reference) {
    return reference > 0.0 ? 100.0 * value / reference : 0.0;
}

}  // namespace cudatutorial
