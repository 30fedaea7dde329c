/// @file device_query.hpp
/// @brief Chapter 1: the device query, as (property, value, note) rows.
#pragma once

#include <string>
#include <vector>

#include "cudatutorial/device_info.hpp"

namespace execution_model {

/// One line of the device query.
struct QueryLine {
    std::string property;
    std::string value;
    std::string note;  ///< where the figure comes from, or what it means
};

/// Everything the textbook's device query printed, plus what today's GPUs add, for `device`.
std::vector<QueryLine> device_query_lines(const cudatutorial::DeviceInfo& device);

}  // namespace execution_model
