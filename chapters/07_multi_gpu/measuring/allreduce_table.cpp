// The all-reduce rows: what both modes (sections.cpp, ranks.cpp) put in their tables.
#include "allreduce_table.hpp"

#include <algorithm>

#include "cudatutorial/device_info.hpp"
#include "flag_protocol.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

void prepare_allreduce_table(ct::TableRun& table, const ct::BenchmarkConfig& config) {
    table.set_group_column("size");
    table.set_baseline("nccl", "NCCL");
    // At small sizes every row sits a little above this: what is left is the stage's own work.
    const ct::Stats floor = ct::launch_floor(config);
    table.info().set("launch floor", ct::format_fixed(floor.median_ms * 1000.0, 2) +
                                         " µs: an empty kernel, timed as every row is");
}

std::string allreduce_skip_reason(const AllReduceStage& stage, std::uint64_t bytes, int gpus,
                                  bool team_form) {
    if (stage.max_bytes != 0 && bytes > stage.max_bytes) {
        return "stage " + stage.id + " runs up to " +
               ct::format_bytes(static_cast<double>(stage.max_bytes)) +
               " only: " + stage.why_max_bytes;
    }
    if (team_form && stage.role != Role::kBaseline && gpus > kMaxPeerRanks) {
        return "stage " + stage.id + " skipped: it takes at most " + std::to_string(kMaxPeerRanks) +
               " GPUs";
    }
    return {};
}

std::string round_trip_only_note(const AllReduceStage& stage) {
    if (stage.make_resident == nullptr) {
        return {};
    }
    return "stage " + stage.id +
           " is timed in the round-trip table only (--section roundtrip): its kernel stays "
           "resident, with no launch per call for CUDA events to bracket";
}

void add_note_once(std::vector<std::string>& notes, const std::string& note) {
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) {
        notes.push_back(note);
    }
}

std::string size_group(std::uint64_t bytes) {
    return ct::format_bytes(static_cast<double>(bytes));
}

ct::StageHooks allreduce_hooks(std::uint64_t bytes, int gpus, double link_gbs) {
    ct::StageHooks hooks;
    hooks.bytes = static_cast<double>(bytes);
    hooks.group = size_group(bytes);
    hooks.extras = [bytes, gpus, link_gbs](ct::ResultRow& row) {
        const double algbw =
            algorithm_bandwidth_gbs(static_cast<double>(bytes), row.stats.median_ms);
        const double busbw = allreduce_bus_bandwidth_gbs(algbw, gpus);
        if (gpus > 1) {
            row.with("busbw GB/s", busbw, 1);
        } else {
            row.with("busbw GB/s", "-");
        }
        if (gpus > 1 && link_gbs > 0) {
            row.with("% of link", 100 * busbw / link_gbs, 1);
        } else {
            row.with("% of link", "-");
        }
    };
    return hooks;
}

ct::ResultRow reported_allreduce_row(const AllReduceStage& stage, std::uint64_t bytes,
                                     const ct::Stats& stats, const ct::Verification& verdict,
                                     int gpus) {
    ct::Measurement measured;  // by the ranks, each timing its calls with the same protocol
    measured.stats = stats;
    measured.before = verdict;
    measured.after = verdict;
    return ct::reported_row(stage, allreduce_hooks(bytes, gpus, 0), measured);
}

}  // namespace multi_gpu
