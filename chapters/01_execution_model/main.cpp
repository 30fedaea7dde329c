// Chapter 1, the execution model: what this GPU is, read from the runtime.
#include <iostream>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "device_query.hpp"

namespace ct = cudatutorial;

int main(int argc, char** argv) {
    CLI::App app{"Chapter 1 - the CUDA execution model: device query"};
    int device = 0;
    app.add_option("--device", device, "CUDA device ordinal")
        ->check(CLI::Range(0, 1023))
        ->capture_default_str();
    return ct::run_program(app, argc, argv, [&] {
        const ct::DeviceInfo info = ct::select_device(device);
        std::vector<std::vector<std::string>> cells = {{"property", "value", "note"}};
        for (const auto& line : execution_model::device_query_lines(info)) {
            cells.push_back({line.property, line.value, line.note});
        }
        std::cout << "== execution_model: device query ==\n";
        ct::print_aligned(std::cout, cells, {0, 1, 2});
        return ct::to_int(ct::ExitCode::kSuccess);
    });
}
