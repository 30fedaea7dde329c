// The stage list: one row per stage, in table order, each field named. A new stage is its file in
// stages/ plus one row here (docs/extending.md).
#include <string>
#include <vector>

#include "scan.hpp"
#include "stages/scan_launchers.hpp"

namespace scan {
namespace {

StageInfo row(std::string id, std::string name, std::string idea) {
    StageInfo s;
    s.id = std::move(id);
    s.name = std::move(name);
    s.idea = std::move(idea);
    return s;
}

std::vector<StageInfo> make_stages() {
    std::vector<StageInfo> v;
    {
        StageInfo s = row("1", "hillis_steele",
                          "log2(2B) doubling steps in a shared double buffer: 2B log2(2B) adds");
        s.method = Method::kScanThenPropagate;
        s.items_per_thread = 2;
        s.source = "stages/stage1_hillis_steele.cu";
        s.launch = detail::launch_hillis_steele;
        v.push_back(s);
    }
    {
        StageInfo s = row("2", "blelloch",
                          "up-sweep and down-sweep of a tree: about 4B adds, bank conflicts");
        s.method = Method::kScanThenPropagate;
        s.items_per_thread = 2;
        s.source = "stages/stage2_blelloch.cu";
        s.launch = detail::launch_blelloch;
        v.push_back(s);
    }
    {
        StageInfo s =
            row("3", "blelloch_padded", "stage 2 with a padding word every 32: no bank conflicts");
        s.method = Method::kScanThenPropagate;
        s.items_per_thread = 2;
        s.source = "stages/stage3_blelloch_padded.cu";
        s.launch = detail::launch_blelloch_padded;
        v.push_back(s);
    }
    {
        StageInfo s = row("4", "warp_shuffle",
                          "warp scans in registers (__shfl_up_sync), then the warps' totals");
        s.method = Method::kScanThenPropagate;
        s.items_per_thread = 2;
        s.source = "stages/stage4_warp_shuffle.cu";
        s.launch = detail::launch_warp_shuffle;
        v.push_back(s);
    }
    {
        StageInfo s =
            row("5", "reduce_then_scan",
                "reduce tiles, scan totals, scan tiles from their carry: 3n moved, not 4n");
        s.method = Method::kReduceThenScan;
        s.items_per_thread = 2;
        s.source = "stages/stage5_reduce_then_scan.cu";
        s.launch = detail::launch_reduce_then_scan;
        v.push_back(s);
    }
    {
        StageInfo s = row("6", "decoupled_lookback",
                          "one pass: each tile's carry from its predecessors' status words");
        s.method = Method::kSinglePass;
        s.items_per_thread = 2;
        s.source = "stages/stage6_decoupled_lookback.cu";
        s.launch = detail::launch_decoupled_lookback;
        v.push_back(s);
    }
    {
        StageInfo s = row("6x", "lookback_by_block_index_WRONG",
                          "tile from blockIdx, assuming blocks start in order: waits that "
                          "cannot end, cut off by the time limit");
        s.role = cudatutorial::StageRole::kExpectedFailure;
        s.method = Method::kSinglePass;
        s.items_per_thread = 2;
        s.source = "stages/stage6x_lookback_by_block_index.cu";
        s.launch = detail::launch_lookback_by_block_index;
        v.push_back(s);
    }
    {
        StageInfo s = row("7", "vectorized_lookback",
                          "stage 6 with int4 loads and several vectors per thread");
        s.method = Method::kSinglePass;
        s.items_per_thread_at = detail::vectorized_items_per_thread;
        s.source = "stages/stage7_vectorized_lookback.cu";
        s.launch = detail::launch_vectorized_lookback;
        v.push_back(s);
    }
    {
        StageInfo s = row(kCubStageId, "cub_device_scan",
                          "cub::DeviceScan::InclusiveSum / ExclusiveSum (the baseline)");
        s.role = cudatutorial::StageRole::kBaseline;
        s.method = Method::kCub;
        s.items_per_thread = 0;
        s.source = "stages/scan_cub_baseline.cu";
        v.push_back(s);
    }
    {
        StageInfo s = row(kCopyStageId, "device_to_device_copy",
                          "cudaMemcpyAsync of the n values: the same bytes as a scan, no adds "
                          "(the ceiling)");
        s.role = cudatutorial::StageRole::kBaseline;
        s.method = Method::kCopy;
        s.items_per_thread = 0;
        s.source = "scanner.cpp";
        v.push_back(s);
    }
    return v;
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
