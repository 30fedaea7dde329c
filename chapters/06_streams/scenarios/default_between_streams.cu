// Scenario 3: N blocking streams, one worker kernel in each, and after each launch a tiny dummy
// kernel in the default stream (the seed's multi-stream example).
//
//   legacy build     - every dummy goes to the legacy default stream: it waits for all the
//                      workers launched before it, and every worker launched after it waits for
//                      the dummy. The workers run one at a time although each has its own stream.
//   per-thread build - the dummies go to the main thread's per-thread default stream, which
//                      orders only its own work: all N workers may run at once.
// Look at: 0 of N(N-1)/2 worker pairs overlapping against all of them, and the wall time close
// to N kernel durations against close to one.
#include <vector>

#include "cudatutorial/check.hpp"
#include "scenario_kit.cuh"

namespace streams::STREAMS_BUILD {

ScenarioRun run_default_between_streams(const ScenarioConfig& config) {
    const int count = config.streams;
    std::vector<cudatutorial::CudaStream> created;
    created.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        created.emplace_back(cudaStreamDefault);  // blocking, like cudaStreamCreate
    }
    const std::uint64_t duration = to_ns(config.kernel_us);
    const cudaStream_t default_stream = 0;

    KernelSlots slots(2 * count, config.n, config.salt);
    LegacyStreamSpan span;
    span.start();
    for (int i = 0; i < count; ++i) {
        const std::string index = std::to_string(i);
        slots.launch(2 * i, "w" + index, Role::kWorker, created[static_cast<std::size_t>(i)].get(),
                     "s" + index + " blocking", StreamKind::kBlocking, 0, duration);
        slots.launch(2 * i + 1, "d" + index, Role::kDummy, default_stream, default_stream_label(0),
                     default_stream_kind(), 0, 0);
    }
    span.stop();
    return slots.finish(span);
}

}  // namespace streams::STREAMS_BUILD
