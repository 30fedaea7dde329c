// The stage list: ids and names unique, in table order, with the roles the table's columns
// depend on, and every stage's file present (and every stage file in the list).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "scan.hpp"

namespace fs = std::filesystem;
using cudatutorial::StageRole;

TEST(ScanRegistry, IdsInTableOrderAndUnique) {
    std::vector<std::string> ids;
    std::set<std::string> names;
    for (const scan::StageInfo& stage : scan::stages()) {
        ids.push_back(stage.id);
        EXPECT_TRUE(names.insert(stage.name).second) << stage.name;
        EXPECT_FALSE(stage.idea.empty()) << stage.id;
    }
    EXPECT_EQ(ids,
              (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "6x", "7", "cub", "copy"}));
}

TEST(ScanRegistry, RolesKeepBaselinesAndTheWrongStageOutOfTheChain) {
    for (const scan::StageInfo& stage : scan::stages()) {
        const StageRole want = stage.id == "6x" ? StageRole::kExpectedFailure
                               : stage.id == "cub" || stage.id == "copy" ? StageRole::kBaseline
                                                                         : StageRole::kProgression;
        EXPECT_EQ(stage.role, want) << stage.id;
        const bool library =
            stage.method == scan::Method::kCub || stage.method == scan::Method::kCopy;
        EXPECT_EQ(stage.launch == nullptr, library) << stage.id;
        EXPECT_TRUE(stage.by_default) << stage.id;
    }
    EXPECT_EQ(scan::find_stage("6x")->method, scan::Method::kSinglePass);
    EXPECT_EQ(scan::find_stage("vectorized_lookback"), scan::find_stage("7"));  // by name too
    EXPECT_EQ(scan::find_stage("8"), nullptr);
}

TEST(ScanRegistry, EveryStageFileIsNamedAndExists) {
    const fs::path chapter = SCAN_CHAPTER_DIR;
    std::set<std::string> named;
    for (const scan::StageInfo& stage : scan::stages()) {
        ASSERT_FALSE(stage.source.empty()) << stage.id;
        EXPECT_TRUE(fs::is_regular_file(chapter / stage.source)) << stage.source;
        named.insert(stage.source);
    }
    for (const auto& entry : fs::directory_iterator(chapter / "stages")) {
        if (entry.path().extension() == ".cu") {
            const std::string file = "stages/" + entry.path().filename().string();
            EXPECT_TRUE(named.count(file)) << file << " is in no row of the stage list";
        }
    }
}
