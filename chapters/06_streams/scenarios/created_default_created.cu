// Scenarios 1 and 2: a kernel in a created stream s, then one in the default stream (stream 0),
// then one more in s.
//
// Scenario 1, s created blocking (cudaStreamDefault, what cudaStreamCreate gives):
//   legacy build     - the middle kernel goes to the legacy default stream, which waits for s and
//                      makes s wait for it: k1, k2, k3 run one after another.
//   per-thread build - stream 0 is this thread's own default stream, an ordinary stream: k2 may
//                      run beside k1 and k3.
// Scenario 2, s created with cudaStreamNonBlocking: s takes no part in the legacy stream's
//   implicit barrier, so k2 may overlap k1 and k3 in BOTH builds.
// In every case k1 and k3 share s and stay in order. Look at: the overlap count (0 of 3, or 2 of
// 3), and at the legacy-stream event of scenario 2, which stops before k3 has finished.
#include "cudatutorial/check.hpp"
#include "scenario_kit.cuh"

namespace streams::STREAMS_BUILD {
namespace {

ScenarioRun three_launches(const ScenarioConfig& config, unsigned int stream_flags) {
    const bool non_blocking = stream_flags == cudaStreamNonBlocking;
    cudatutorial::CudaStream s(stream_flags);
    const std::string s_label = non_blocking ? "s non-blocking" : "s blocking";
    const StreamKind s_kind = non_blocking ? StreamKind::kNonBlocking : StreamKind::kBlocking;
    const std::uint64_t duration = to_ns(config.kernel_us);
    const cudaStream_t default_stream = 0;  // what the seed's kernel<<<1, 64>>> launches on

    KernelSlots slots(3, config.n, config.salt);
    LegacyStreamSpan span;
    span.start();
    slots.launch(0, "k1", Role::kWorker, s.get(), s_label, s_kind, 0, duration);
    slots.launch(1, "k2", Role::kWorker, default_stream, default_stream_label(0),
                 default_stream_kind(), 0, duration);
    slots.launch(2, "k3", Role::kWorker, s.get(), s_label, s_kind, 0, duration);
    span.stop();
    return slots.finish(span);
}

}  // namespace

ScenarioRun run_created_default_created(const ScenarioConfig& config) {
    return three_launches(config, cudaStreamDefault);
}

ScenarioRun run_non_blocking_stream(const ScenarioConfig& config) {
    // EXERCISE BEGIN: scenario 1's three launches, with s created so that k2 (in the
    // EXERCISE HINT: legacy default stream) may overlap k1 and k3 in the legacy build too
    return three_launches(config, cudaStreamNonBlocking);
    // EXERCISE STUB: return three_launches(config, cudaStreamDefault);
    // EXERCISE END
}

}  // namespace streams::STREAMS_BUILD
