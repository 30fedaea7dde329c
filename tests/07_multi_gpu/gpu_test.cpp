// Chapter 7 on real GPUs: every all-reduce stage, the sharded reduction and the sharded
// histogram against the CPU, for odd sizes and every number of GPUs from 1 to what the machine
// has; then the one-process-per-GPU mode. Multi-GPU cases skip with a message below 2 GPUs.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "multi_gpu.hpp"
#include "peer_team.hpp"
#include "persistent_allreduce.hpp"
#include "process.hpp"
#include "sharded.hpp"

namespace ct = cudatutorial;
namespace mg = multi_gpu;

namespace {

#define CT_REQUIRE_GPUS(count)                                                \
    do {                                                                      \
        CT_REQUIRE_GPU();                                                     \
        if (ct::cuda_device_count() < (count)) {                              \
            GTEST_SKIP() << "needs " << (count) << " GPUs, this machine has " \
                         << ct::cuda_device_count();                          \
        }                                                                     \
    } while (0)

std::vector<int> first_devices(int count) {
    std::vector<int> devices;
    for (int i = 0; i < count; ++i) {
        devices.push_back(i);
    }
    return devices;
}

// 1, 7, G - 1, a size just past a power of two, and (not under a sanitizer) a larger one.
std::vector<std::size_t> sizes_for(int G) {
    std::vector<std::size_t> sizes = {1, 7, static_cast<std::size_t>(std::max(G - 1, 1)), 1031,
                                      (std::size_t{1} << 20) + 3};
    if (!ct::testing::sanitizing()) {
        sizes.push_back((std::size_t{1} << 22) + 5);
    }
    return sizes;
}

void check_allreduce(int G, const mg::AllReduceStage& stage, std::size_t n) {
    SCOPED_TRACE(testing::Message() << "stage " << stage.id << ", G " << G << ", n " << n);
    if (stage.make_resident != nullptr) {
        return;  // stage 10: resident, made and tested on its own (PersistentAllReduce below)
    }
    const mg::GpuSet gpus(first_devices(G));
    if (stage.needs_peer_access && !gpus.all_peers_enabled()) {
        GTEST_SKIP() << "no peer access between all GPUs";
    }
    std::vector<ct::DeviceBuffer<float>> send;
    std::vector<ct::DeviceBuffer<float>> recv;
    std::vector<const float*> send_ptr;
    std::vector<float*> recv_ptr;
    for (int g = 0; g < G; ++g) {
        const mg::DeviceGuard guard(g);
        send.emplace_back(mg::allreduce_input(11, g, n));
        recv.emplace_back(n);
        recv.back().fill_bytes(0xff);  // NaN: an element never written fails
        send_ptr.push_back(send.back().data());
        recv_ptr.push_back(recv.back().data());
    }
    gpus.synchronize_devices();
    const std::vector<float> expected = mg::allreduce_expected(11, G, n);
    const auto reducer = mg::make_all_reducer(stage, gpus, n);
    for (int run = 0; run < 2; ++run) {  // twice: state left by the first run must not matter
        reducer->run(send_ptr, recv_ptr);
        gpus.synchronize();
        for (int g = 0; g < G; ++g) {
            const std::vector<float> got = recv[g].to_host();
            ASSERT_EQ(std::memcmp(got.data(), expected.data(), n * sizeof(float)), 0)
                << "GPU " << g << ", run " << run << ": first element " << got[0] << " expected "
                << expected[0];
        }
    }
    // The inputs are never modified (out of place).
    for (int g = 0; g < G; ++g) {
        EXPECT_EQ(send[g].to_host(), mg::allreduce_input(11, g, n));
    }
}

}  // namespace

namespace {

// Every stage with a new input before every call and no wait between
// calls: a rank that ran ahead into the wrong staging half, or read a peer's input before it was
// final, would return a sum of the wrong inputs. Sizes: one float, 4100 bytes, 1 MiB + 4 bytes.
void check_back_to_back(int G, const mg::AllReduceStage& stage, std::size_t n) {
    SCOPED_TRACE(testing::Message() << "stage " << stage.id << ", G " << G << ", n " << n);
    const mg::GpuSet gpus(first_devices(G));
    if (stage.needs_peer_access && !gpus.all_peers_enabled()) {
        GTEST_SKIP() << "no peer access between all GPUs";
    }
    constexpr int kCalls = 6;
    const std::uint64_t seeds[2] = {21, 22};
    std::vector<ct::DeviceBuffer<float>> send, recv, inputs, results;
    std::vector<const float*> send_ptr;
    std::vector<float*> recv_ptr;
    for (int g = 0; g < G; ++g) {
        const mg::DeviceGuard guard(g);
        send.emplace_back(n);
        recv.emplace_back(n);
        std::vector<float> both = mg::allreduce_input(seeds[0], g, n);
        const std::vector<float> second = mg::allreduce_input(seeds[1], g, n);
        both.insert(both.end(), second.begin(), second.end());
        inputs.emplace_back(both);
        results.emplace_back(n * kCalls);
        send_ptr.push_back(send.back().data());
        recv_ptr.push_back(recv.back().data());
    }
    gpus.synchronize_devices();
    // In one process, the form the table runs: stages 1-3 with events, the others on a team
    // (their team forms of stages 2 and 3 run in the ranks tests).
    const auto reducer = mg::make_all_reducer(stage, gpus, n);
    // run() is ordered after GPU 0's stream only (a captured graph runs every GPU's kernel from
    // GPU 0's stream): the join and the fork carry each GPU's own copies across.
    const mg::ForkJoin order(gpus);
    for (int call = 0; call < kCalls; ++call) {
        for (int g = 0; g < G; ++g) {
            const mg::DeviceGuard guard(g);
            CT_CHECK(cudaMemcpyAsync(send[g].data(), inputs[g].data() + (call % 2) * n,
                                     n * sizeof(float), cudaMemcpyDeviceToDevice, gpus.stream(g)));
        }
        order.join();
        reducer->run(send_ptr, recv_ptr);
        order.fork();
        for (int g = 0; g < G; ++g) {
            const mg::DeviceGuard guard(g);
            CT_CHECK(cudaMemcpyAsync(results[g].data() + call * n, recv[g].data(),
                                     n * sizeof(float), cudaMemcpyDeviceToDevice, gpus.stream(g)));
        }
    }
    gpus.synchronize();
    const std::vector<float> expected[2] = {mg::allreduce_expected(seeds[0], G, n),
                                            mg::allreduce_expected(seeds[1], G, n)};
    for (int g = 0; g < G; ++g) {
        const std::vector<float> got = results[g].to_host();
        for (int call = 0; call < kCalls; ++call) {
            ASSERT_EQ(
                std::memcmp(got.data() + call * n, expected[call % 2].data(), n * sizeof(float)), 0)
                << "GPU " << g << ", call " << call;
        }
    }
}

std::vector<std::size_t> odd_peer_sizes() {
    return {1, 1025, (std::size_t{1} << 18) + 1};  // 4 B, 4100 B, 1 MiB + 4 B
}

std::vector<std::string> stage_ids() {
    std::vector<std::string> ids;
    for (const mg::AllReduceStage& stage : mg::allreduce_stages()) {
        if (stage.make_resident == nullptr) {  // stage 10 has tests of its own (below)
            ids.push_back(stage.id);
        }
    }
    return ids;
}

class AllReduceStage : public testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(AllReduceStage, BackToBackWithChangingInputsOnOneAndTwoGpus) {
    CT_REQUIRE_GPUS(1);
    const mg::AllReduceStage* stage = mg::find_allreduce_stage(GetParam());
    ASSERT_NE(stage, nullptr);
    for (int G = 1; G <= std::min(ct::cuda_device_count(), 2); ++G) {
        for (std::size_t n : odd_peer_sizes()) {
            check_back_to_back(G, *stage, n);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(MultiGpuAllReduce, AllReduceStage, testing::ValuesIn(stage_ids()),
                         [](const testing::TestParamInfo<std::string>& info) {
                             return "stage_" + info.param;
                         });

TEST(MultiGpuAllReduce, EveryStageOnOneGpuCopiesTheInput) {
    CT_REQUIRE_GPUS(1);
    for (const mg::AllReduceStage& stage : mg::allreduce_stages()) {
        for (std::size_t n : {std::size_t{1}, std::size_t{1031}}) {
            check_allreduce(1, stage, n);
        }
    }
}

TEST(MultiGpuAllReduce, EveryStageMatchesTheCpuForEveryGpuCount) {
    CT_REQUIRE_GPUS(2);
    for (int G = 2; G <= ct::cuda_device_count(); ++G) {
        for (const mg::AllReduceStage& stage : mg::allreduce_stages()) {
            for (std::size_t n : sizes_for(G)) {
                check_allreduce(G, stage, n);
            }
        }
    }
}

namespace {

std::vector<mg::Combine> combines_for(const mg::GpuSet& gpus) {
    std::vector<mg::Combine> combines = {mg::Combine::kHost};
    if (gpus.size() > 1 && gpus.all_peers_enabled()) {
        combines.push_back(mg::Combine::kPeer);
    }
    if (gpus.size() > 1 && mg::nccl_available()) {
        combines.push_back(mg::Combine::kNccl);
    }
    return combines;
}

void check_sharded_reduction(int G, std::size_t n, const std::string& stage) {
    const mg::GpuSet gpus(first_devices(G));
    const std::vector<int> host = reduction::make_input(reduction::Pattern::kRandom, n, 3);
    const int expected = reduction::reference_sum(host);
    const auto shards = mg::upload_shards(gpus, host);
    const mg::DeviceGuard guard(0);
    ct::DeviceBuffer<int> total(1);
    for (mg::Combine combine : combines_for(gpus)) {
        SCOPED_TRACE(testing::Message() << "G " << G << " n " << n << " stage " << stage
                                        << " combine " << mg::combine_name(combine));
        const mg::ShardedReduction job(gpus, shards, stage, 256, combine);
        for (int run = 0; run < 2; ++run) {
            total.fill_bytes(0xff);
            gpus.synchronize_devices();
            job.run(total.data());
            gpus.synchronize();
            int got = 0;
            total.copy_to_host(&got, 1);
            ASSERT_EQ(got, expected) << "run " << run;
        }
    }
}

void check_sharded_histogram(int G, std::size_t n, const histogram::Binning& binning) {
    const mg::GpuSet gpus(first_devices(G));
    const auto host = histogram::generate_input(histogram::Distribution::kRandomBytes, n, 5);
    const histogram::Histogram expected = histogram::reference_histogram(host, binning);
    const auto shards = mg::upload_shards(gpus, host);
    const mg::DeviceGuard guard(0);
    ct::DeviceBuffer<unsigned int> total(static_cast<std::size_t>(binning.bins()));
    for (mg::Combine combine : combines_for(gpus)) {
        SCOPED_TRACE(testing::Message() << "G " << G << " n " << n << " " << binning.describe()
                                        << " combine " << mg::combine_name(combine));
        const mg::ShardedHistogram job(gpus, shards, "8", binning, 256, combine);
        for (int run = 0; run < 2; ++run) {
            total.fill_bytes(0xff);
            gpus.synchronize_devices();
            job.run(total.data());
            gpus.synchronize();
            const histogram::Comparison c =
                histogram::compare_histograms(expected, total.to_host(), binning);
            ASSERT_TRUE(c.equal) << c.detail;
        }
    }
}

}  // namespace

TEST(MultiGpuSharded, ReductionMatchesTheCpuForEveryGpuCount) {
    CT_REQUIRE_GPUS(1);
    for (int G = 1; G <= ct::cuda_device_count(); ++G) {
        for (std::size_t n : sizes_for(G)) {
            check_sharded_reduction(G, n, "12");
        }
        check_sharded_reduction(G, 1031, "cub");
    }
}

TEST(MultiGpuSharded, HistogramMatchesTheCpuForEveryGpuCount) {
    CT_REQUIRE_GPUS(1);
    for (int G = 1; G <= ct::cuda_device_count(); ++G) {
        for (std::size_t n : sizes_for(G)) {
            check_sharded_histogram(G, n, histogram::Binning::bytes());
            check_sharded_histogram(G, n, histogram::Binning::letters(4));
        }
    }
}

TEST(MultiGpuSharded, CombiningNeedsWhatItUses) {
    CT_REQUIRE_GPUS(1);
    const mg::GpuSet one({0});
    EXPECT_NO_THROW(mg::PartialCombiner(one, 1, mg::Combine::kHost));
    EXPECT_THROW(mg::GpuSet({0, 0}), ct::UsageError);
    EXPECT_THROW(mg::GpuSet({ct::cuda_device_count()}), ct::UsageError);
}

// ---- Stage 10: the resident kernel -----------------------------------------------------------

namespace {

// Stage 10 on the first G GPUs, seven calls, a new input before every call (copied on a stream of
// the test's own, which does not wait for the resident kernel, and waited for), every call's
// output read back and checked bit for bit on every GPU: a block that ran ahead into a buffer its
// peer was still emptying, or a completion published before the output, would show here.
void check_persistent(int G, std::size_t n) {
    SCOPED_TRACE(testing::Message() << "stage 10, G " << G << ", n " << n);
    const mg::GpuSet gpus(first_devices(G));
    if (!gpus.all_peers_enabled()) {
        GTEST_SKIP() << "no peer access between all GPUs";
    }
    constexpr int kCalls = 7;
    const std::uint64_t seeds[2] = {31, 32};
    std::vector<ct::DeviceBuffer<float>> send, recv;
    std::vector<std::unique_ptr<ct::CudaStream>> copies;
    std::vector<const float*> send_ptr;
    std::vector<float*> recv_ptr;
    for (int g = 0; g < G; ++g) {
        const mg::DeviceGuard guard(g);
        send.emplace_back(n);
        recv.emplace_back(n);
        recv.back().fill_bytes(0xff);
        copies.push_back(std::make_unique<ct::CudaStream>(cudaStreamNonBlocking));
        send_ptr.push_back(send.back().data());
        recv_ptr.push_back(recv.back().data());
    }
    gpus.synchronize_devices();
    const std::vector<float> expected[2] = {mg::allreduce_expected(seeds[0], G, n),
                                            mg::allreduce_expected(seeds[1], G, n)};
    mg::OneProcessTeam team(gpus);
    mg::PersistentAllReduce stage(team, send_ptr, recv_ptr, n);
    std::vector<float> got(n);
    for (int call = 0; call < kCalls; ++call) {
        for (int g = 0; g < G; ++g) {
            const mg::DeviceGuard guard(g);
            const std::vector<float> input = mg::allreduce_input(seeds[call % 2], g, n);
            CT_CHECK(cudaMemcpyAsync(send[g].data(), input.data(), n * sizeof(float),
                                     cudaMemcpyHostToDevice, copies[g]->get()));
            CT_CHECK(cudaStreamSynchronize(copies[g]->get()));
        }
        stage.call();
        for (int g = 0; g < G; ++g) {
            const mg::DeviceGuard guard(g);
            CT_CHECK(cudaMemcpyAsync(got.data(), recv[g].data(), n * sizeof(float),
                                     cudaMemcpyDeviceToHost, copies[g]->get()));
            CT_CHECK(cudaStreamSynchronize(copies[g]->get()));
            ASSERT_EQ(std::memcmp(got.data(), expected[call % 2].data(), n * sizeof(float)), 0)
                << "GPU " << g << ", call " << call;
        }
    }
    stage.finish();
    for (int g = 0; g < G; ++g) {
        EXPECT_EQ(stage.state(g), mg::ResidentState::kStopped) << "GPU " << g;
    }
}

}  // namespace

TEST(PersistentAllReduce, EveryCallWithANewInputOnOneAndTwoGpus) {
    CT_REQUIRE_GPUS(1);
    if (ct::testing::sanitizing()) {
        GTEST_SKIP() << "a sanitizer may hold the launch until the kernel ends; the queued test "
                        "runs under it instead";
    }
    // 4 B; 7 floats (a tail only); 4100 B; 256 KiB - 12 B (32 blocks, a tail of 1); 256 KiB.
    for (int G = 1; G <= std::min(ct::cuda_device_count(), 2); ++G) {
        for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1025}, std::size_t{65533},
                              std::size_t{65536}}) {
            check_persistent(G, n);
        }
    }
}

namespace {

// Stage 10 on the first G GPUs with `calls` calls and the stop posted before the launch, so the
// kernels run them back to back and end without the host; then every GPU's output checked bit
// for bit and every kernel's end. A block that ran ahead into a staging buffer its peer was still
// emptying would lose a value there: its partner's spin would then trap the kernel.
void check_queued(int G, std::size_t n, std::uint64_t calls, const mg::ResidentLimits& limits) {
    SCOPED_TRACE(testing::Message() << "G " << G << ", n " << n << ", " << calls << " calls");
    const mg::GpuSet gpus(first_devices(G));
    if (!gpus.all_peers_enabled()) {
        GTEST_SKIP() << "no peer access between all GPUs";
    }
    std::vector<ct::DeviceBuffer<float>> send, recv;
    std::vector<const float*> send_ptr;
    std::vector<float*> recv_ptr;
    for (int g = 0; g < G; ++g) {
        const mg::DeviceGuard guard(g);
        send.emplace_back(mg::allreduce_input(33, g, n));
        recv.emplace_back(n);
        recv.back().fill_bytes(0xff);
        send_ptr.push_back(send.back().data());
        recv_ptr.push_back(recv.back().data());
    }
    gpus.synchronize_devices();
    mg::OneProcessTeam team(gpus);
    {
        mg::PersistentAllReduce stage(team, send_ptr, recv_ptr, n, limits, calls);
        stage.finish();
        for (int g = 0; g < G; ++g) {
            EXPECT_EQ(stage.state(g), mg::ResidentState::kStopped);
        }
    }
    const std::vector<float> expected = mg::allreduce_expected(33, G, n);
    for (int g = 0; g < G; ++g) {
        EXPECT_EQ(std::memcmp(recv[g].to_host().data(), expected.data(), n * sizeof(float)), 0)
            << "GPU " << g;
    }
}

// One GPU under compute-sanitizer (a tool that holds each launch until its kernel ends would keep
// the second GPU's kernel from ever meeting the first), else up to two.
int queued_gpus() {
    return ct::testing::sanitizing() ? 1 : std::min(ct::cuda_device_count(), 2);
}

}  // namespace

TEST(PersistentAllReduce, QueuedCallsRunAndStopWithoutTheHost) {
    CT_REQUIRE_GPU();
    // The calls and the stop are posted before the launch, so the kernel never waits for the
    // host: what runs under compute-sanitizer.
    for (int G = 1; G <= queued_gpus(); ++G) {
        for (std::size_t n : {std::size_t{1}, std::size_t{4103}}) {
            check_queued(G, n, 5, {});
        }
    }
}

TEST(PersistentAllReduce, QueuedCallsWithAStragglingBlockStayInStep) {
    CT_REQUIRE_GPU();
    // The last block of each GPU starts every call 30 us late, 32 blocks, 64 calls queued: the
    // others would run calls ahead of it, count its call as finished without it and tell the
    // peers so, but for the grid barrier before each call.
    mg::ResidentLimits limits;
    limits.straggler_us = 30;
    const std::uint64_t calls = ct::testing::sanitizing() ? 4 : 64;
    for (int G = 1; G <= queued_gpus(); ++G) {
        check_queued(G, mg::kPersistentMaxBytes / sizeof(float), calls, limits);
    }
}

TEST(PersistentAllReduce, ACallPostedAsTheIdleLimitRunsOutCompletesOrIsRefused) {
    CT_REQUIRE_GPU();
    if (ct::testing::sanitizing()) {
        GTEST_SKIP() << "a sanitizer may hold the launch until the kernel ends";
    }
    // A call posted around the moment the kernel's idle limit runs out, at 25 moments from 1 ms
    // before to 1 ms after it: either block 0 took it and every block runs it, or the kernel has
    // ended and the call says so at once. Never a call that block 0 took and the other blocks,
    // gone on their own idle timers, leave unfinished (the host's wait would run out).
    const mg::GpuSet gpus({0});
    const std::size_t n = mg::kPersistentMaxBytes / sizeof(float);  // 32 blocks
    ct::DeviceBuffer<float> send(mg::allreduce_input(35, 0, n));
    ct::DeviceBuffer<float> recv(n);
    mg::OneProcessTeam team(gpus);
    mg::ResidentLimits limits;
    limits.idle_limit_ms = 20;
    int completed = 0;
    for (int moment = 0; moment < 25; ++moment) {
        const auto wait = std::chrono::microseconds(19000 + 2000 * moment / 24);
        SCOPED_TRACE(testing::Message() << "posted " << wait.count() << " us after the start");
        mg::PersistentAllReduce stage(team, {send.data()}, {recv.data()}, n, limits);
        std::this_thread::sleep_for(wait);
        try {
            stage.call();
            ++completed;
            stage.finish();
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("idle limit"), std::string::npos) << e.what();
            EXPECT_THROW(stage.finish(), std::runtime_error);  // ended, but not by the stop
        }
    }
    std::printf("%d of 25 calls completed, the others refused by an ended kernel\n", completed);
}

TEST(PersistentAllReduce, EndsItselfWhenNoCallComesAndSaysSo) {
    CT_REQUIRE_GPU();
    if (ct::testing::sanitizing()) {
        GTEST_SKIP() << "a sanitizer may hold the launch until the kernel ends";
    }
    const mg::GpuSet gpus({0});
    ct::DeviceBuffer<float> send(mg::allreduce_input(34, 0, 64));
    ct::DeviceBuffer<float> recv(64);
    mg::OneProcessTeam team(gpus);
    mg::ResidentLimits limits;
    limits.idle_limit_ms = 50;
    mg::PersistentAllReduce stage(team, {send.data()}, {recv.data()}, 64, limits);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    EXPECT_EQ(stage.state(0), mg::ResidentState::kIdleLimit);
    try {
        stage.call();
        ADD_FAILURE() << "a call to a kernel that has ended returned";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("idle limit"), std::string::npos) << e.what();
    }
    EXPECT_THROW(stage.finish(), std::runtime_error);  // it ended, but not by the stop
}

TEST(PersistentAllReduce, RefusesSizesItDoesNotRun) {
    CT_REQUIRE_GPU();
    const mg::GpuSet gpus({0});
    const std::size_t too_many = mg::kPersistentMaxBytes / sizeof(float) + 1;
    ct::DeviceBuffer<float> send(too_many);
    ct::DeviceBuffer<float> recv(too_many);
    mg::OneProcessTeam team(gpus);
    for (std::size_t n : {std::size_t{0}, too_many}) {
        EXPECT_THROW(mg::PersistentAllReduce(team, {send.data()}, {recv.data()}, n),
                     std::invalid_argument)
            << n;
    }
    mg::ResidentLimits impatient;  // a host that would give up before the kernel's own 10 s
    impatient.host_wait_ms = 10000;
    EXPECT_THROW(mg::PersistentAllReduce(team, {send.data()}, {recv.data()}, 64, impatient),
                 std::invalid_argument);
}

TEST(MultiGpuRoundTrip, OneProcessVerifiesEveryRow) {
    CT_REQUIRE_GPU();
    const std::string args = " --section roundtrip --sizes 4,4100,262144 --reps 2 --warmup 1";
    const auto result = ct::testing::run_process(std::string(MULTI_GPU_BIN) + args);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* text : {"one_shot_sentinel", "persistent", "round-trip floor"}) {
        EXPECT_NE(result.output.find(text), std::string::npos) << text << "\n" << result.output;
    }
}

namespace {

#define CT_REQUIRE_NCCL()                             \
    do {                                              \
        if (!mg::nccl_available()) {                  \
            GTEST_SKIP() << "this build has no NCCL"; \
        }                                             \
    } while (0)

// Runs the chapter with `args` (one process per GPU): exit 0, every rank verified. Returns what
// it printed.
std::string run_ranks_verified(const std::string& args) {
    const auto result = ct::testing::run_process(std::string(MULTI_GPU_BIN) + args);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("every rank verified"), std::string::npos) << result.output;
    return result.output;
}

}  // namespace

TEST(MultiGpuRanks, RoundTripsVerifyOnEveryRank) {
    CT_REQUIRE_GPUS(2);
    CT_REQUIRE_NCCL();
    const std::string output =
        run_ranks_verified(" --ranks 2 --section roundtrip --sizes 4,4100 --reps 2 --warmup 1");
    EXPECT_NE(output.find("persistent"), std::string::npos) << output;
}

TEST(MultiGpuRanks, TwoProcessesVerifyTheirResults) {
    CT_REQUIRE_GPUS(2);
    CT_REQUIRE_NCCL();
    // Odd sizes (4 B, 4100 B, 1 MiB + 4 B): every stage that runs in one process per GPU (the
    // peer-memory stages through CUDA IPC, and NCCL) is verified on every rank.
    const std::string output =
        run_ranks_verified(" --ranks 2 --n 1048579 --sizes 4,4100,1048580,4Mi --reps 3 --warmup 1");
    // "% of link" has its yardstick in this mode too: rank 0 measures the copy rate.
    EXPECT_NE(output.find("link (GPU 0 -> 1, measured)"), std::string::npos) << output;
    for (const char* name : {"ring_memcpy", "ring_peer_kernel", "one_shot", "one_shot_sentinel",
                             "two_shot", "size_rule", "size_rule_graph", "size_rule_pdl"}) {
        EXPECT_NE(output.find(name), std::string::npos) << name << "\n" << output;
    }
}

TEST(MultiGpuRanks, CallsBackToBackVerifyToo) {
    CT_REQUIRE_GPUS(2);
    CT_REQUIRE_NCCL();
    // --batch: several calls per sample with no host or event between them, where stage 9's
    // kernels overlap the previous call's; every stage is verified after its timed runs too.
    const std::string output =
        run_ranks_verified(" --ranks 2 --sizes 4,4100,1048580 --reps 3 --batch 4");
    EXPECT_NE(output.find("calls per sample"), std::string::npos) << output;
    EXPECT_NE(output.find("size_rule_pdl"), std::string::npos) << output;
}

TEST(MultiGpuRanks, NetworkSectionRunsNcclOverNvlinkAndOverSockets) {
    CT_REQUIRE_GPUS(2);
    if (!mg::nccl_available()) {
        GTEST_SKIP() << "this build has no NCCL";
    }
    const std::string args = " --stage network --sizes 4,4100 --reps 2 --warmup 1";
    const auto result = ct::testing::run_process(std::string(MULTI_GPU_BIN) + args);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("nccl_allreduce_nvlink"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("nccl_allreduce_sockets"), std::string::npos) << result.output;
}

TEST(MultiGpuRanks, RejectsMoreRanksThanGpusAndSectionOptions) {
    CT_REQUIRE_GPUS(1);
    if (!mg::nccl_available()) {
        GTEST_SKIP() << "this build has no NCCL";
    }
    const std::string bin = MULTI_GPU_BIN;
    const int too_many = ct::cuda_device_count() + 1;
    for (const std::string& args :
         {" --ranks " + std::to_string(too_many), std::string(" --ranks 1 --section topology")}) {
        const auto result = ct::testing::run_process(bin + args);
        EXPECT_EQ(result.exit_code, 2) << args << "\n" << result.output;
    }
}

TEST(MultiGpuRanks, MpirunStartsTheRanks) {
    CT_REQUIRE_GPUS(2);
    const std::string mpirun = MULTI_GPU_MPIRUN;
    if (mpirun.empty() || !mg::nccl_available()) {
        GTEST_SKIP() << "this build has no MPI (or no NCCL)";
    }
    // --allow-run-as-root and --oversubscribe are Open MPI's (the GPU machines run as root).
    if (ct::testing::run_process(mpirun + " --version").output.find("Open MPI") ==
        std::string::npos) {
        GTEST_SKIP() << mpirun << " is not Open MPI's";
    }
    const std::string command = mpirun + " --allow-run-as-root --oversubscribe -np 2 " +
                                MULTI_GPU_BIN + " --n 1048579 --sizes 4Ki --reps 3 --warmup 1";
    const auto result = ct::testing::run_process(command);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("launched by"), std::string::npos) << result.output;
}
