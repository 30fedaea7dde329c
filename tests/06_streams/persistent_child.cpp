// A host that goes away: starts a persistent kernel, runs a few tasks (each receipt checked), then
// ends the process with std::_Exit, which runs no destructor and no atexit handler, so the
// kernel's guard never rings the stop: what a crash looks like to the GPU. The GPU test
// (persistent_gpu_test.cpp) runs it and checks that the exit did not hang and that the GPU is
// usable afterwards.
//   streams_persistent_child [tasks]     exit 0 after the tasks, 1 on a wrong receipt, 3 on error
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "cudatutorial/device_info.hpp"
#include "round_trip.hpp"
#include "scenarios/persistent_kernel.hpp"

int main(int argc, char** argv) {
    namespace sp = streams::persistent;
    const int tasks = argc > 1 ? std::atoi(argv[1]) : 5;
    try {
        cudatutorial::select_device(0);
        const auto initial = sp::initial_values(4096, 11);
        sp::Limits limits;
        limits.idle_limit_ms = 1000;
        sp::PersistentKernel kernel(initial, limits);
        for (int t = 1; t <= tasks; ++t) {
            const std::string problem = sp::check_receipt(initial, t, kernel.run_task());
            if (!problem.empty()) {
                std::fprintf(stderr, "%s\n", problem.c_str());
                return 1;  // the guard stops the kernel on this way out
            }
        }
        std::printf("ran %d tasks, leaving the kernel running\n", tasks);
        std::fflush(stdout);
        std::_Exit(0);  // no destructor runs: the kernel is never told to stop
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 3;
    }
}
