/// @file stage_rows.hpp
/// @brief The check of a stage list the build collects from a chapter's stage files
/// (cmake/StageList.cmake): every row names its file, which exists; every stage file holds a row;
/// ids and names are unique. It derives what it checks from the list and the folder, so a new
/// stage file needs no edit here.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace cudatutorial::testing {

/// `rows`: the chapter's stage list; `chapter`: its folder under chapters/ ("03_reduction");
/// `prefix`: the names of the files in stages/ that are stages ("stage": stage<digit>*.cu, as the
/// build's glob).
template <typename Row>
void expect_rows_from_stage_files(const std::vector<Row>& rows, const std::string& chapter,
                                  const std::string& prefix = "stage") {
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(CT_SOURCE_DIR) / "chapters" / chapter;
    std::set<std::string> ids;
    std::set<std::string> names;
    std::set<std::string> sources;
    for (const Row& row : rows) {
        EXPECT_TRUE(ids.insert(row.id).second) << "two rows have the id " << row.id;
        EXPECT_TRUE(names.insert(row.name).second) << "two rows have the name " << row.name;
        EXPECT_FALSE(row.idea.empty()) << row.id;
        ASSERT_FALSE(row.source.empty()) << row.id << " names no file";
        EXPECT_TRUE(fs::is_regular_file(folder / row.source)) << row.source;
        sources.insert(row.source);
    }
    for (const auto& entry : fs::directory_iterator(folder / "stages")) {
        const std::string file = entry.path().filename().string();
        const bool numbered = file.size() > prefix.size() && file.rfind(prefix, 0) == 0 &&
                              std::isdigit(static_cast<unsigned char>(file[prefix.size()]));
        if (numbered && entry.path().extension() == ".cu") {
            EXPECT_TRUE(sources.count("stages/" + file))
                << "stages/" << file << " is in no row of the stage list";
        }
    }
}

}  // namespace cudatutorial::testing
