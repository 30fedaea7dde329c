// The stage list: ids and names unique, in table order, with the roles the table's columns
// depend on, and every stage's file present (and every stage file in the list).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scan.hpp"
#include "stage_rows.hpp"

using cudatutorial::StageRole;

TEST(ScanRegistry, TheStageListIsTheRowsOfTheStageFiles) {
    cudatutorial::testing::expect_rows_from_stage_files(scan::stages(), "08_scan");
    // The steps first, in the order of their files, then the two baselines.
    const auto& list = scan::stages();
    ASSERT_GE(list.size(), 2u);
    EXPECT_EQ(list[list.size() - 2].id, scan::kCubStageId);
    EXPECT_EQ(list.back().id, scan::kCopyStageId);
    for (std::size_t i = 0; i + 2 < list.size(); ++i) {
        EXPECT_EQ(list[i].source.rfind("stages/stage" + list[i].id + "_", 0), 0u)
            << list[i].id << " is in " << list[i].source;
    }
}

TEST(ScanRegistry, RolesKeepBaselinesAndTheWrongStageOutOfTheChain) {
    for (const scan::StageInfo& stage : scan::stages()) {
        const StageRole want = stage.id == "6x" ? StageRole::kExpectedFailure
                               : stage.id == "cub" || stage.id == "copy" ? StageRole::kBaseline
                                                                         : StageRole::kProgression;
        EXPECT_EQ(stage.role, want) << stage.id;
        EXPECT_EQ(stage.launch == nullptr, stage.method == scan::Method::kCub) << stage.id;
        EXPECT_TRUE(stage.by_default) << stage.id;
    }
    EXPECT_EQ(scan::find_stage("6x")->method, scan::Method::kSinglePass);
    EXPECT_EQ(scan::find_stage("vectorized_lookback"), scan::find_stage("7"));  // by name too
    EXPECT_EQ(scan::find_stage(std::to_string(scan::stages().size() + 1)), nullptr);
}
