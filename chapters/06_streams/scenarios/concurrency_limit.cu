// Scenario 5: how many kernels can run at once? K blocking streams, one long single-block kernel
// in each, nothing in the default stream. No stream rule orders these kernels, and one block
// each is far below what the SMs could hold, so the limit seen is the device's own: the number
// of grids it keeps resident at a time (the CUDA Programming Guide's technical specifications
// list 128 for compute capability 9.0). The kernels beyond the limit wait for a slot to free up,
// which shows as a second wave in the profile. Both builds behave the same here.
// Look at: "at most ... at once" and the plateau of the profile.
#include <vector>

#include "cudatutorial/check.hpp"
#include "scenario_kit.cuh"

namespace streams::STREAMS_BUILD {

ScenarioRun run_concurrency_limit(const ScenarioConfig& config) {
    const int count = config.probe_kernels;
    std::vector<cudatutorial::CudaStream> created;
    created.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        created.emplace_back(cudaStreamDefault);
    }
    const std::uint64_t duration = to_ns(config.probe_us);

    KernelSlots slots(count, config.n, config.salt);
    LegacyStreamSpan span;
    span.start();
    for (int i = 0; i < count; ++i) {
        const std::string index = std::to_string(i);
        slots.launch(i, "g" + index, Role::kWorker, created[static_cast<std::size_t>(i)].get(),
                     "s" + index + " blocking", StreamKind::kBlocking, 0, duration);
    }
    span.stop();
    return slots.finish(span);
}

}  // namespace streams::STREAMS_BUILD
