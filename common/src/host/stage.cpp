#include "cudatutorial/stage.hpp"

#include <sstream>

namespace cudatutorial {

const char* role_name(StageRole role) {
    switch (role) {
        case StageRole::kBaseline:
            return "baseline";
        case StageRole::kExpectedFailure:
            return "expected failure";
        default:
            return "progression";
    }
}

void apply_stage(const StageDescriptor& stage, ResultRow& row) {
    row.id = stage.id;
    row.name = stage.name;
    row.idea = stage.idea;
    row.in_progression = stage.role == StageRole::kProgression;
    if (stage.role == StageRole::kExpectedFailure) {
        // A bug demonstration (a data race is undefined behaviour): passing proves nothing,
        // failing is the lesson. Either way it must not decide the exit code.
        row.expected_failure = !row.passed;
        row.detail = (row.passed ? std::string("matched this time, but ") : row.detail + "; ") +
                     "a labelled bug demonstration: " + stage.idea;
    }
}

void print_stage_list(std::ostream& out, const std::vector<const StageDescriptor*>& stages) {
    std::vector<std::vector<std::string>> rows = {{"id", "name", "role", "idea"}};
    for (const StageDescriptor* stage : stages) {
        rows.push_back({stage->id, stage->name, role_name(stage->role), stage->idea});
    }
    print_aligned(out, rows, {0, 1, 2, 3});
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        if (!item.empty()) {
            items.push_back(item);
        }
    }
    return items;
}

}  // namespace cudatutorial
