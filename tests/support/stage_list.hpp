/// @file stage_list.hpp
/// @brief The check every chapter's CLI test makes of `--stage list` and `--stage list --json`:
/// answered without a GPU, and the JSON parses (by Python's json module, through
/// tests/common/check_stage_list_json.py) and lists the expected ids.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "process.hpp"

namespace cudatutorial::testing {

/// Runs `binary --stage list` (exit 0, every id of `ids` in the table) and `binary --stage list
/// --json` (exit 0, nothing printed but the JSON, `program` and every id of `ids` in it).
/// `selector` replaces --stage to check an older name kept as an alias.
inline void expect_stage_list(const std::string& binary, const std::string& program,
                              const std::vector<std::string>& ids,
                              const std::string& selector = "--stage") {
    const ProcessResult text = run_process(binary + " " + selector + " list");
    EXPECT_EQ(text.exit_code, 0) << text.output;
    for (const std::string& id : ids) {
        EXPECT_NE(text.output.find(id), std::string::npos) << id << "\n" << text.output;
    }
    const ProcessResult json = run_process(binary + " " + selector + " list --json");
    EXPECT_EQ(json.exit_code, 0) << json.output;
    const std::string path = ::testing::TempDir() + program + "_stage_list.json";
    std::ofstream(path) << json.output;
    std::string command =
        std::string(CT_PYTHON) + " " + CT_CHECK_STAGE_LIST_SCRIPT + " " + path + " " + program;
    for (const std::string& id : ids) {
        command += " '" + id + "'";
    }
    const ProcessResult check = run_process(command);
    EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << json.output;
    std::remove(path.c_str());
}

}  // namespace cudatutorial::testing
