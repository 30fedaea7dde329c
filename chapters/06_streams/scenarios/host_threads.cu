// Scenario 4: N host threads (std::thread), each launching one worker kernel on the default
// stream (stream 0) and then synchronizing that stream (the seed's multi-thread example).
//
//   legacy build     - there is one legacy default stream per device, shared by all host threads:
//                      the workers run one at a time, in whatever order the threads got there.
//   per-thread build - each host thread has its own default stream: the workers may all run at
//                      once. The stream ids in the timeline show it: one id for all threads
//                      against N different ones.
// The threads meet at a barrier before launching, so that thread start-up does not decide the
// result; before it, each launches an empty kernel on its default stream and waits for it, so
// that what the runtime sets up on a thread's first launch (in the per-thread build: the thread's
// default stream) is done before the measured launch.
// (The seed's version also passed each thread a copy of an uninitialized pointer, allocated into
// the copy, and freed the uninitialized originals in main; here the buffers belong to the run.)
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

#include "cudatutorial/check.hpp"
#include "scenario_kit.cuh"

namespace streams::STREAMS_BUILD {

ScenarioRun run_host_threads(const ScenarioConfig& config) {
    const int count = config.streams;
    const std::uint64_t duration = to_ns(config.kernel_us);
    KernelSlots slots(count, config.n, config.salt);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(count));
    std::atomic<int> arrived{0};

    const auto body = [&](int t) {
        std::exception_ptr error;
        std::uint64_t id = 0;
        try {
            // The current device is a per-host-thread setting: a new thread starts on device 0.
            CT_CHECK(cudaSetDevice(config.device));
            slots.prime_stream(t, 0);
            id = stream_id_of(0);
        } catch (...) {
            error = std::current_exception();
        }
        // Every thread arrives, even one that failed, so that no thread waits forever.
        arrived.fetch_add(1);
        while (arrived.load() < count) {
            std::this_thread::yield();
        }
        if (!error) {
            try {
                slots.launch_with_id(t, "t" + std::to_string(t + 1), Role::kWorker, 0, id,
                                     default_stream_label(t + 1), default_stream_kind(), t + 1,
                                     duration);
                CT_CHECK(cudaStreamSynchronize(0));  // stream 0 as this build means it
            } catch (...) {
                error = std::current_exception();
            }
        }
        errors[static_cast<std::size_t>(t)] = error;
    };

    LegacyStreamSpan span;
    span.start();
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(count));
    try {
        for (int t = 0; t < count; ++t) {
            threads.emplace_back(body, t);
        }
    } catch (...) {  // a thread could not be started: release the others from the barrier
        arrived.fetch_add(count);
        for (auto& thread : threads) {
            thread.join();
        }
        throw;
    }
    for (auto& thread : threads) {
        thread.join();
    }
    span.stop();
    for (const auto& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
    return slots.finish(span);
}

}  // namespace streams::STREAMS_BUILD
