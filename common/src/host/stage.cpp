#include "cudatutorial/stage.hpp"

#include <algorithm>
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

void print_stage_list(std::ostream& out, const std::vector<StageGroup>& groups) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (!groups[g].title.empty()) {
            out << (g ? "\n" : "") << groups[g].title << ":\n";
        }
        print_stage_list(out, groups[g].stages);
    }
}

void print_stage_list_json(std::ostream& out, const std::string& program,
                           const std::vector<StageGroup>& groups) {
    out << "{\n  \"program\": " << json_string(program) << ",\n  \"groups\": [";
    for (std::size_t g = 0; g < groups.size(); ++g) {
        out << (g ? "," : "") << "\n    {\"title\": " << json_string(groups[g].title)
            << ", \"stages\": [";
        const auto& stages = groups[g].stages;
        for (std::size_t i = 0; i < stages.size(); ++i) {
            out << (i ? "," : "") << "\n      {\"id\": " << json_string(stages[i]->id)
                << ", \"name\": " << json_string(stages[i]->name)
                << ", \"role\": " << json_string(role_name(stages[i]->role))
                << ", \"idea\": " << json_string(stages[i]->idea) << "}";
        }
        out << (stages.empty() ? "]}" : "\n    ]}");
    }
    out << (groups.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

void require_known_stages(const std::vector<StageGroup>& registries,
                          const std::vector<std::string>& wanted, const std::string& option) {
    if (wanted.empty() || wanted == std::vector<std::string>{"all"}) {
        return;
    }
    std::string ids;
    for (const StageGroup& group : registries) {
        for (const StageDescriptor* stage : group.stages) {
            ids += (ids.empty() ? "" : ", ") + stage->id;
        }
    }
    for (const std::string& text : wanted) {
        const bool known = std::any_of(registries.begin(), registries.end(), [&](const auto& g) {
            return std::any_of(g.stages.begin(), g.stages.end(), [&](const StageDescriptor* s) {
                return text == s->id || text == s->name;
            });
        });
        if (!known) {
            throw UsageError(option, "'" + text + "' is not a stage (ids: " + ids +
                             ", a stage's name, all, or list)");
        }
    }
}

bool stage_chosen(const StageDescriptor& stage, const std::vector<std::string>& wanted) {
    if (wanted.empty() || wanted == std::vector<std::string>{"all"}) {
        return true;
    }
    return std::any_of(wanted.begin(), wanted.end(), [&](const std::string& text) {
        return text == stage.id || text == stage.name;
    });
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
