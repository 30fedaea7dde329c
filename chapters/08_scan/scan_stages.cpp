// The stage list: one row per stage, in table order, each field named. A new stage is its file in
// stages/ plus one row here (docs/extending.md).
#include <string>
#include <utility>
#include <vector>

#include "scan.hpp"
#include "stages/scan_launchers.hpp"

namespace scan {
namespace {

/// One row of the stage list, written field by field with each field named (C++17 has no
/// designated initializers): `stage("3", "blelloch_padded").idea(...).source(...)`. A field left
/// out keeps the default of stages 1-4: the scan-then-propagate frame, blocks of 32 to 1024
/// threads, 2 values per thread.
class StageRow {
  public:
    StageRow(std::string id, std::string name) {
        info_.id = std::move(id);
        info_.name = std::move(name);
    }
    /// What changed from the previous stage, in one line (the table and --stage list show it).
    StageRow& idea(std::string text) {
        info_.idea = std::move(text);
        return *this;
    }
    /// The file that holds the kernel, relative to the chapter (the lesson links it).
    StageRow& source(std::string file) {
        info_.source = std::move(file);
        return *this;
    }
    /// The host function in that file that launches the kernel (scan_launchers.hpp).
    StageRow& launcher(void (*launch)(const detail::LaunchArgs&)) {
        info_.launch = launch;
        return *this;
    }
    /// How the stage covers an input of any length.
    StageRow& method(Method how) {
        info_.method = how;
        return *this;
    }
    /// Values each thread scans per tile (the tile is block x this).
    StageRow& items_per_thread(int count) {
        info_.items_per_thread = count;
        return *this;
    }
    /// Values each thread scans per tile, by block size (a tuned shape).
    StageRow& items_per_thread_at(int (*count_at)(int block)) {
        info_.items_per_thread_at = count_at;
        return *this;
    }
    /// Runs the candidate a tuning pass chose (Scanner's `candidate`).
    StageRow& uses_tuner() {
        info_.uses_tuner = true;
        return *this;
    }
    /// Its role in the table (a progression step unless said otherwise).
    StageRow& role(cudatutorial::StageRole role) {
        info_.role = role;
        return *this;
    }
    operator StageInfo() const { return info_; }  // NOLINT(google-explicit-constructor)

  private:
    StageInfo info_;
};

StageRow stage(std::string id, std::string name) {
    return StageRow(std::move(id), std::move(name));
}

std::vector<StageInfo> make_stages() {
    using cudatutorial::StageRole;
    using namespace detail;
    return {
        stage("1", "hillis_steele")
            .idea("log2(2B) doubling steps in a shared double buffer: 2B log2(2B) - (2B - 1) "
                  "adds")
            .source("stages/stage1_hillis_steele.cu")
            .launcher(launch_hillis_steele),
        stage("2", "blelloch")
            .idea("up-sweep and down-sweep of a tree: about 4B adds, bank conflicts")
            .source("stages/stage2_blelloch.cu")
            .launcher(launch_blelloch),
        stage("3", "blelloch_padded")
            .idea("stage 2 with a padding word every 32: no bank conflicts")
            .source("stages/stage3_blelloch_padded.cu")
            .launcher(launch_blelloch_padded),
        stage("4", "warp_shuffle")
            .idea("warp scans in registers (__shfl_up_sync), then the warps' totals")
            .source("stages/stage4_warp_shuffle.cu")
            .launcher(launch_warp_shuffle),
        stage("5", "reduce_then_scan")
            .idea("reduce tiles, scan totals, scan tiles from their carry: 3n moved, not 4n")
            .source("stages/stage5_reduce_then_scan.cu")
            .launcher(launch_reduce_then_scan)
            .method(Method::kReduceThenScan),
        stage("6", "decoupled_lookback")
            .idea("one pass: each tile's carry from its predecessors' status words")
            .source("stages/stage6_decoupled_lookback.cu")
            .launcher(launch_decoupled_lookback)
            .method(Method::kSinglePass),
        stage("6x", "lookback_by_block_index_WRONG")
            .idea("tile from blockIdx, assuming blocks start in order: waits that cannot end, "
                  "cut off by the time limit")
            .source("stages/stage6x_lookback_by_block_index.cu")
            .launcher(launch_lookback_by_block_index)
            .method(Method::kSinglePass)
            .role(StageRole::kExpectedFailure),
        stage("7", "vectorized_lookback")
            .idea("stage 6 with int4 loads, several vectors per thread, the shape tuned per run")
            .source("stages/stage7_vectorized_lookback.cu")
            .launcher(launch_vectorized_lookback)
            .method(Method::kSinglePass)
            .items_per_thread_at(vectorized_items_per_thread)
            .uses_tuner(),
        stage(kCubStageId, "cub_device_scan")
            .idea("cub::DeviceScan::InclusiveSum / ExclusiveSum (the baseline)")
            .source("stages/scan_cub_baseline.cu")
            .method(Method::kCub)
            .items_per_thread(0)
            .role(StageRole::kBaseline),
        stage(kCopyStageId, "device_to_device_copy")
            .idea("cudaMemcpyAsync of the n values: the same bytes as a scan, no adds (the "
                  "ceiling)")
            .source("scanner.cpp")
            .method(Method::kCopy)
            .items_per_thread(0)
            .role(StageRole::kBaseline),
    };
}

}  // namespace

const std::vector<StageInfo>& stages() {
    static const std::vector<StageInfo> list = make_stages();
    return list;
}

const StageInfo* find_stage(const std::string& id) {
    return cudatutorial::find_stage_in(stages(), id);
}

}  // namespace scan
