#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cudatutorial/stage.hpp"
#include "stage_list.hpp"

namespace ct = cudatutorial;

namespace {

struct TestStage : ct::StageDescriptor {
    bool by_default = true;
};

std::vector<TestStage> registry() {
    std::vector<TestStage> stages(4);
    stages[0].id = "1";
    stages[0].name = "first_idea";
    stages[0].idea = "the first idea";
    stages[1].id = "5v";
    stages[1].name = "historical_form";
    stages[1].idea = "a data race since Volta";
    stages[1].role = ct::StageRole::kExpectedFailure;
    stages[1].by_default = false;
    stages[2].id = "2";
    stages[2].name = "second_idea";
    stages[3].id = "cub";
    stages[3].name = "cub_baseline";
    stages[3].role = ct::StageRole::kBaseline;
    return stages;
}

std::vector<std::string> ids(const std::vector<const TestStage*>& stages) {
    std::vector<std::string> result;
    for (const TestStage* stage : stages) {
        result.push_back(stage->id);
    }
    return result;
}

}  // namespace

TEST(StageSelection, AllTakesTheDefaultStagesInRegistryOrder) {
    const auto stages = registry();
    const auto by_default = [](const TestStage& s) { return s.by_default; };
    EXPECT_EQ(ids(ct::select_stages<TestStage>(stages, {}, "--stage", by_default)),
              (std::vector<std::string>{"1", "2", "cub"}));
    EXPECT_EQ(ids(ct::select_stages<TestStage>(stages, {"all"}, "--stage", by_default)),
              (std::vector<std::string>{"1", "2", "cub"}));
    EXPECT_EQ(ids(ct::select_stages<TestStage>(stages, {"all"}, "--stage")),
              (std::vector<std::string>{"1", "5v", "2", "cub"}));
}

TEST(StageSelection, IdsAndNamesInAnyOrderEachOnceInTableOrder) {
    const auto stages = registry();
    EXPECT_EQ(
        ids(ct::select_stages<TestStage>(stages, {"cub", "first_idea", "1", "5v"}, "--stage")),
        (std::vector<std::string>{"1", "5v", "cub"}));
}

TEST(StageSelection, AnUnknownStageIsAUsageErrorNamingTheOptionAndTheIds) {
    const auto stages = registry();
    try {
        ct::select_stages<TestStage>(stages, {"1", "13"}, "--stage");
        FAIL() << "no error";
    } catch (const ct::UsageError& error) {
        const std::string text = error.what();
        EXPECT_EQ(error.option(), "--stage");
        EXPECT_NE(text.find("--stage: '13' is not a stage"), std::string::npos) << text;
        EXPECT_NE(text.find("1, 5v, 2, cub"), std::string::npos) << text;
    }
}

TEST(StageSelection, SplitListDropsEmptyItems) {
    EXPECT_EQ(ct::split_list("1,,3,cub,"), (std::vector<std::string>{"1", "3", "cub"}));
    EXPECT_TRUE(ct::split_list("").empty());
}

TEST(StageRoles, DecideTheRowFlags) {
    const auto stages = registry();
    ct::ResultRow progression;
    progression.passed = true;
    ct::apply_stage(stages[0], progression);
    EXPECT_EQ(progression.id, "1");
    EXPECT_EQ(progression.idea, "the first idea");
    EXPECT_TRUE(progression.in_progression);
    EXPECT_FALSE(progression.expected_failure);

    ct::ResultRow baseline;
    baseline.passed = true;
    ct::apply_stage(stages[3], baseline);
    EXPECT_FALSE(baseline.in_progression);
    EXPECT_FALSE(baseline.expected_failure);

    ct::ResultRow failed_demo;
    failed_demo.passed = false;
    failed_demo.detail = "sum 3, expected 4";
    ct::apply_stage(stages[1], failed_demo);
    EXPECT_TRUE(failed_demo.expected_failure);
    EXPECT_FALSE(failed_demo.in_progression);
    EXPECT_EQ(failed_demo.detail,
              "sum 3, expected 4; a labelled bug demonstration: a data race since Volta");

    // A race that happened to give the right sum proves nothing: the row says so, and a pass
    // is a pass (not an "expected failure").
    ct::ResultRow lucky_demo;
    lucky_demo.passed = true;
    ct::apply_stage(stages[1], lucky_demo);
    EXPECT_FALSE(lucky_demo.expected_failure);
    EXPECT_NE(lucky_demo.detail.find("matched this time, but"), std::string::npos);
}

TEST(StageList, ShowsIdNameRoleAndIdea) {
    std::ostringstream out;
    ct::print_stage_list(out, ct::descriptors(registry()));
    const std::string text = out.str();
    EXPECT_NE(text.find("id"), std::string::npos);
    EXPECT_NE(text.find("5v"), std::string::npos);
    EXPECT_NE(text.find("expected failure"), std::string::npos);
    EXPECT_NE(text.find("a data race since Volta"), std::string::npos);
    EXPECT_NE(text.find("baseline"), std::string::npos);
}

TEST(StageList, GroupsGetTheirTitles) {
    const auto stages = registry();
    std::ostringstream out;
    ct::print_stage_list(out, {{"Byte stages (--section stages)", {&stages[0], &stages[1]}},
                               {"Wide (--section wide)", {&stages[3]}}});
    const std::string text = out.str();
    EXPECT_EQ(text.rfind("Byte stages (--section stages):\n", 0), 0u) << text;
    EXPECT_NE(text.find("\nWide (--section wide):\n"), std::string::npos) << text;
    EXPECT_NE(text.find("cub_baseline"), std::string::npos) << text;
}

TEST(StageList, JsonParsesAndHoldsEveryField) {
    auto stages = registry();
    stages[0].idea = "an idea with \"quotes\", a backslash \\ and a\nnew line";
    stages[2].idea = "the second idea";
    stages[3].idea = "the library";
    std::ostringstream out;
    ct::print_stage_list_json(out, "test_program",
                              {{"First \"group\"", ct::descriptors(stages)}, {"Empty", {}}});
    const std::string text = out.str();
    EXPECT_NE(text.find("\"role\": \"expected failure\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"id\": \"5v\""), std::string::npos) << text;
    // Python's json module reads it back (the empty group aside, which no chapter has, the
    // shape check passes too).
    std::ostringstream one_group;
    ct::print_stage_list_json(one_group, "test_program", {{"", ct::descriptors(stages)}});
    const std::string path = ::testing::TempDir() + "stage_list_test.json";
    std::ofstream(path) << one_group.str();
    const auto check =
        ct::testing::run_process(std::string(CT_PYTHON) + " " + CT_CHECK_STAGE_LIST_SCRIPT + " " +
                                 path + " test_program 1 5v 2 cub");
    EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << one_group.str();
    std::ofstream(path) << text;
    const auto parse = ct::testing::run_process(
        std::string(CT_PYTHON) + " -c 'import json,sys; json.load(open(sys.argv[1]))' " + path);
    EXPECT_EQ(parse.exit_code, 0) << parse.output << "\n" << text;
    std::remove(path.c_str());
}
