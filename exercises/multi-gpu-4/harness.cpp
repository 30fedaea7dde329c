// Exercise multi-gpu-4's harness: runs the one-shot all-reduce of one_shot_barrier.cu on two
// GPUs of this process (peer access, one stream each, like chapter 7's OneProcessTeam) and
// checks every call's result, bit for bit, against the exact sum on the CPU.
//
// It is built to catch a barrier that is nearly right (README.md):
//   - many calls back to back with no host in between, each with a new input, so that a stale
//     staging slot (the previous call's data in that half, or the poison put there first) never
//     holds the right answer by luck;
//   - a message of 1 MiB + 4 B by default, pushed by few blocks, so that stores are still on the
//     link when a flag that does not wait for them lands;
//   - one GPU made late on two calls out of three (late_peer.cu), alternating which, so that the
//     other is already spinning when the late one signals;
//   - call numbers that start just below 2^32, so that every run crosses the wrap-around;
//   - with --hold-back-us, every warp but warp 0 (whose threads signal) starts its stores late,
//     so that a signal that does not wait for the whole block is read before they are issued;
//   - a watchdog: a barrier that never opens ends the run with a FAIL after --hang-seconds.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "multi_gpu.hpp"
#include "one_shot_exercise.hpp"

namespace ct = cudatutorial;
namespace mg = multi_gpu;
namespace ex = one_shot_exercise;

namespace {

constexpr int kRanks = 2;

struct Options {
    std::uint64_t n = (std::uint64_t{1} << 18) + 1;  // 1 MiB + 4 B
    int calls = 48;
    int blocks = 0;
    int threads = 512;
    int late_us = 20;
    int hold_back_us = 0;
    int wrap_after = 7;
    double hang_seconds = 10;
    std::uint64_t seed = ct::kDefaultSeed;
    ct::CommonOptions common;
};

void add_options(CLI::App& app, Options& o) {
    ct::add_size_option(app, "--n", o.n, "floats per GPU to all-reduce (1 to 2^26)");
    app.add_option("--calls", o.calls, "calls checked back to back, each with a new input")
        ->check(CLI::Range(2, 4096))
        ->capture_default_str();
    app.add_option("--blocks", o.blocks,
                   "blocks per GPU (0: one per 4 x threads floats; never more than fit at once)")
        ->check(CLI::Range(0, mg::kMaxPeerBlocks))
        ->capture_default_str();
    app.add_option("--threads", o.threads, "threads per block (a power of two, 32 to 1024)")
        ->capture_default_str();
    app.add_option("--late-us", o.late_us,
                   "microseconds by which one GPU is late, on two calls out of three (0: never)")
        ->check(CLI::Range(0, 100000))
        ->capture_default_str();
    app.add_option("--hold-back-us", o.hold_back_us,
                   "microseconds by which every warp but warp 0 (which signals) starts its stores "
                   "late, on every call (0: never)")
        ->check(CLI::Range(0, 10000))
        ->capture_default_str();
    app.add_option("--wrap-after", o.wrap_after,
                   "calls before the call number wraps around from 2^32 - 1 to 0")
        ->check(CLI::Range(0, 1 << 30))
        ->capture_default_str();
    app.add_option("--hang-seconds", o.hang_seconds,
                   "a run not finished after this long is a barrier that never opens (FAIL)")
        ->check(CLI::Range(0.1, 3600.0))
        ->capture_default_str();
    app.add_option("--seed", o.seed, "seed of the inputs (call k uses seed + k)")
        ->capture_default_str();
    ct::add_common_options(app, o.common, ct::L2FlushOption::kNotListed);
}

// One GPU's buffers. The staging area starts poisoned (all bits set: a NaN), so that a slot read
// before the peer's stores arrive never sums to the right bits.
struct Rank {
    ct::DeviceBuffer<float> send, recv, inputs, results, staging;
    ct::DeviceBuffer<std::uint32_t> flags, counters;
};

Rank make_rank(const Options& o, std::size_t capacity, std::uint32_t first_counter) {
    const std::size_t n = o.n;
    Rank r{
        ct::DeviceBuffer<float>(n),
        ct::DeviceBuffer<float>(n),
        ct::DeviceBuffer<float>(n * o.calls),
        ct::DeviceBuffer<float>(n * o.calls),
        ct::DeviceBuffer<float>(2 * kRanks * capacity),
        ct::DeviceBuffer<std::uint32_t>(std::vector<std::uint32_t>(mg::kFlagWords, first_counter)),
        ct::DeviceBuffer<std::uint32_t>(
            std::vector<std::uint32_t>(mg::kMaxPeerBlocks, first_counter))};
    CT_CHECK(cudaMemset(r.staging.data(), 0xff, r.staging.size() * sizeof(float)));
    CT_CHECK(cudaMemset(r.recv.data(), 0xff, n * sizeof(float)));
    return r;
}

// Which GPU is late before call k: none, GPU 1, GPU 0, none, ... (-1: none).
int late_gpu(int call) {
    return call % 3 == 0 ? -1 : (call % 3 == 1 ? 1 : 0);
}

// Waits for every GPU's stream, at most `seconds`. False: still running (a barrier that never
// opens: the kernels spin for ever, and only ending the process stops them).
bool finished_within(const mg::GpuSet& gpus, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
        bool done = true;
        for (int g = 0; g < gpus.size(); ++g) {
            const mg::DeviceGuard guard(gpus.device(g));
            const cudaError_t state = cudaStreamQuery(gpus.stream(g));
            if (state == cudaErrorNotReady) {
                done = false;
            } else {
                CT_CHECK(state);
            }
        }
        if (done) {
            return true;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// The first call whose result differs, on any GPU, from the exact sum; empty: none.
std::string first_mismatch(const std::vector<Rank>& ranks, const Options& o,
                           std::uint32_t first_seq) {
    const std::size_t n = o.n;
    std::vector<std::vector<float>> got;
    for (int g = 0; g < kRanks; ++g) {
        const mg::DeviceGuard guard(g);
        got.push_back(ranks[g].results.to_host());
    }
    for (int call = 0; call < o.calls; ++call) {
        const std::vector<float> expected = mg::allreduce_expected(o.seed + call, kRanks, n);
        for (int g = 0; g < kRanks; ++g) {
            const float* result = got[g].data() + static_cast<std::size_t>(call) * n;
            if (std::memcmp(result, expected.data(), n * sizeof(float)) == 0) {
                continue;
            }
            std::size_t wrong = 0;
            std::size_t first = n;
            for (std::size_t i = 0; i < n; ++i) {
                if (std::memcmp(&result[i], &expected[i], sizeof(float)) != 0) {
                    first = std::min(first, i);
                    ++wrong;
                }
            }
            const int late = late_gpu(call);
            std::ostringstream why;
            why << "GPU " << g << ", call " << call << " of " << o.calls << " (call number "
                << static_cast<std::uint32_t>(first_seq + call) << ", "
                << (late < 0 ? "no GPU late" : "GPU " + std::to_string(late) + " late")
                << "): " << wrong << " of " << n << " floats wrong, the first at " << first << ": "
                << result[first] << " instead of " << expected[first]
                << (result[first] != result[first] ? " (the staging poison: a slot read before "
                                                     "the peer's stores arrived)"
                                                   : "");
            return why.str();
        }
    }
    return {};
}

/// Every call's argument block: rank g sends from its own buffers into every peer's staging.
std::vector<ex::OneShotArgs> make_args(const Options& o, std::vector<Rank>& ranks,
                                       std::size_t capacity) {
    std::vector<ex::OneShotArgs> args(kRanks);
    for (int g = 0; g < kRanks; ++g) {
        ex::OneShotArgs& a = args[g];
        a.rank = g;
        a.ranks = kRanks;
        a.send = ranks[g].send.data();
        a.recv = ranks[g].recv.data();
        for (int p = 0; p < kRanks; ++p) {
            a.flags[p] = ranks[p].flags.data();
            a.staging[p] = ranks[p].staging.data();
        }
        a.counters = ranks[g].counters.data();
        a.n = o.n;
        a.capacity = capacity;
        a.hold_back_ns = static_cast<std::uint32_t>(o.hold_back_us) * 1000u;
    }
    return args;
}

/// The header: the size, the launch, the hold-back and the call numbers the run crosses.
ct::RunInfo describe(const Options& o, unsigned blocks, std::uint32_t first_seq) {
    ct::RunInfo info = ct::make_run_info("one_shot_barrier_exercise",
                                         "exercise multi-gpu-4: the one-shot all-reduce's flag "
                                         "barrier on GPUs 0 and 1",
                                         ct::query_device(0));
    info.peak_bandwidth_gbs = 0;  // GB/s here is message bytes per call over two GPUs
    info.set("n", std::to_string(o.n) + " floats (" + ct::format_bytes(o.n * 4.0) + ")");
    info.set("launch", std::to_string(blocks) + " x " + std::to_string(o.threads));
    if (o.hold_back_us > 0) {
        info.set("hold-back", "warps 1 and up store " + std::to_string(o.hold_back_us) +
                                  " us late on every call");
    }
    info.set("calls", std::to_string(o.calls) + " back to back, call numbers " +
                          std::to_string(first_seq) + " to " +
                          std::to_string(static_cast<std::uint32_t>(first_seq + o.calls - 1)));
    return info;
}

/// Whether two GPUs with peer access are here; if not, says so and gives the exit code.
int missing_gpus() {
    const int count = ct::cuda_device_count();
    if (count < kRanks) {
        std::cout << "not checked: exercise multi-gpu-4 needs two GPUs in one process; this "
                     "machine has "
                  << count << "\n";
        return ct::to_int(ct::ExitCode::kCudaError);
    }
    return 0;
}

/// Calls `on_timeout` from a thread of its own unless it is destroyed within `seconds`: the
/// guard of a wait that a barrier that never opens would make endless.
class Watchdog {
  public:
    Watchdog(double seconds, std::function<void()> on_timeout)
        : thread_([this, seconds, on_timeout = std::move(on_timeout)] {
              std::unique_lock<std::mutex> lock(mutex_);
              if (!done_changed_.wait_for(lock, std::chrono::duration<double>(seconds),
                                          [this] { return done_; })) {
                  on_timeout();
              }
          }) {}
    ~Watchdog() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        done_changed_.notify_all();
        thread_.join();
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

  private:
    std::mutex mutex_;
    std::condition_variable done_changed_;
    bool done_ = false;
    std::thread thread_;  // last: started once the members it reads exist
};

/// The call with no GPU late, timed as every row is (time_stage, benchmark.hpp): GPU 0's stream
/// forks to GPU 1's, both launch, GPU 0's joins, and CUDA events on GPU 0's stream bracket it;
/// the result is checked before and after the timed calls.
ct::StageHooks timed_call(const Options& o, const mg::GpuSet& gpus, const mg::ForkJoin& order,
                          std::vector<Rank>& ranks, std::vector<ex::OneShotArgs>& args,
                          unsigned blocks) {
    for (ex::OneShotArgs& a : args) {
        a.hold_back_ns = 0;  // the time of the call itself, not of the test's delay
    }
    ct::StageHooks hooks;
    hooks.launch = [&, blocks](cudaStream_t) {
        order.fork();
        for (int g = 0; g < kRanks; ++g) {
            const mg::DeviceGuard on(g);
            ex::launch_one_shot(args[g], blocks, static_cast<unsigned>(o.threads), gpus.stream(g));
        }
        order.join();
    };
    hooks.verify = [&] {
        // send still holds the last call's input: every timed call recomputes its sum.
        const std::vector<float> expected =
            mg::allreduce_expected(o.seed + o.calls - 1, kRanks, o.n);
        for (int g = 0; g < kRanks; ++g) {
            const mg::DeviceGuard on(g);
            if (std::memcmp(ranks[g].recv.to_host().data(), expected.data(), o.n * sizeof(float)) !=
                0) {
                return ct::Verification{false, "GPU " + std::to_string(g) + ": wrong"};
            }
        }
        return ct::Verification::pass();
    };
    hooks.bytes = o.n * 4.0;
    return hooks;
}

int run(const Options& o) {
    if (o.n < 1 || o.n > (std::uint64_t{1} << 26)) {
        throw ct::UsageError("--n must be 1 to 2^26 floats");
    }
    ct::require_power_of_two_block(o.threads, 32, 1024, "--threads");
    if (const int code = missing_gpus(); code != 0) {
        return code;
    }
    const mg::GpuSet gpus({0, 1});
    if (!gpus.all_peers_enabled()) {
        std::cout << "not checked: exercise multi-gpu-4 needs peer access between GPUs 0 and 1, "
                     "which they do not have\n";
        return ct::to_int(ct::ExitCode::kCudaError);
    }
    const std::size_t n = o.n;
    const std::size_t capacity = (n + 3) / 4 * 4;
    // Call k has the number first_seq + k: the counters start where call wrap_after is number 0.
    const std::uint32_t first_counter =
        ~std::uint32_t{0} - static_cast<std::uint32_t>(o.wrap_after);
    const std::uint32_t first_seq = first_counter + 1;

    std::vector<Rank> ranks;
    unsigned resident = mg::kMaxPeerBlocks;
    for (int g = 0; g < kRanks; ++g) {
        const mg::DeviceGuard guard(g);
        ranks.push_back(make_rank(o, capacity, first_counter));
        std::vector<float> all;
        all.reserve(n * o.calls);
        for (int call = 0; call < o.calls; ++call) {
            const std::vector<float> input = mg::allreduce_input(o.seed + call, g, n);
            all.insert(all.end(), input.begin(), input.end());
        }
        ranks.back().inputs.copy_from_host(all);
        resident = std::min(resident, ex::one_shot_resident_blocks(o.threads));
    }
    const std::size_t wanted = (capacity / 4 + o.threads - 1) / o.threads;
    const unsigned blocks =
        static_cast<unsigned>(std::min<std::size_t>(o.blocks > 0 ? o.blocks : wanted, resident));
    std::vector<ex::OneShotArgs> args = make_args(o, ranks, capacity);
    gpus.synchronize_devices();

    // Every call on each GPU's own stream: a new input into send, maybe a delay, the call, and
    // a copy of the result. The streams order each GPU's work; only the flags order the GPUs.
    const auto call_on = [&](int g, int call, bool late) {
        const mg::DeviceGuard guard(g);
        const cudaStream_t stream = gpus.stream(g);
        CT_CHECK(cudaMemcpyAsync(ranks[g].send.data(), ranks[g].inputs.data() + call * n,
                                 n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
        CT_CHECK(cudaMemsetAsync(ranks[g].recv.data(), 0xff, n * sizeof(float), stream));
        if (late) {
            ex::launch_late_peer_delay(static_cast<unsigned>(o.late_us), stream);
        }
        ex::launch_one_shot(args[g], blocks, static_cast<unsigned>(o.threads), stream);
        CT_CHECK(cudaMemcpyAsync(ranks[g].results.data() + call * n, ranks[g].recv.data(),
                                 n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    };
    for (int call = 0; call < o.calls; ++call) {
        for (int g = 0; g < kRanks; ++g) {
            call_on(g, call, o.late_us > 0 && late_gpu(call) == g);
        }
    }

    ct::TableRun table(describe(o, blocks, first_seq), o.common);
    const ct::StageDescriptor stage(
        "4", "one_shot (your flag barrier)",
        "push into every peer's staging, one system-scope release/acquire flag barrier, sum in "
        "rank order");
    const auto columns = [&](ct::ResultRow& row) {
        row.with("calls", std::to_string(o.calls)).with("blocks", std::to_string(blocks));
    };
    // A FAIL for calls still running after --hang-seconds. The kernels spin on: only ending the
    // process stops them (destructors would wait for them, cudaFree first).
    const auto end_hung = [&](const std::string& what) {
        table.could_not_run(stage,
                            what + " did not finish within " + ct::format_fixed(o.hang_seconds, 1) +
                                " s: a barrier that never opens (a flag never stored, a wait for "
                                "the wrong word, or a comparison that fails when the call number "
                                "wraps around)",
                            columns);
        const int code = table.finish();
        std::cout.flush();
        std::_Exit(code);
    };
    if (!finished_within(gpus, o.hang_seconds)) {
        end_hung("the calls");
    }
    const std::string mismatch = first_mismatch(ranks, o, first_seq);
    if (!mismatch.empty()) {
        table.could_not_run(stage, mismatch, columns);  // a wrong barrier is not timed
        return table.finish();
    }
    const mg::ForkJoin order(gpus);
    ct::StageHooks hooks = timed_call(o, gpus, order, ranks, args, blocks);
    hooks.extras = columns;
    ct::BenchmarkConfig timing = o.common.benchmark_config();
    timing.stream = gpus.stream(0);
    const mg::DeviceGuard on_first(0);  // the events and the waits are GPU 0's
    ct::ResultRow row;
    {
        // The watchdog holds its lock while it ends the run, so the row is added only after it
        // is disarmed (its destructor), never while it writes the table.
        const Watchdog watchdog(o.hang_seconds, [&] { end_hung("the timed calls"); });
        row = ct::time_stage(stage, hooks, timing);
    }
    table.add(std::move(row));
    return table.finish();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Exercise multi-gpu-4: the one-shot all-reduce's flag barrier, checked on two "
        "GPUs (exercises/multi-gpu-4/README.md)"};
    Options o;
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
