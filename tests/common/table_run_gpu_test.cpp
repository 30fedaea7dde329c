// TableRun::run() on a GPU: the stage hooks in their order around the timed runs, the options'
// timing and a stage's own, and a header that the stages leave as it was given. Skipped without
// a GPU.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/table_run.hpp"
#include "gpu_test.hpp"

namespace ct = cudatutorial;

namespace {

ct::RunInfo test_info() {
    ct::RunInfo info;
    info.program = "table_run_gpu_test";
    info.title = "table run on a GPU";
    info.set("N", "256");
    return info;
}

}  // namespace

TEST(TableRunGpu, HooksRunInTheirOrderAroundTheTimedRuns) {
    CT_REQUIRE_GPU();
    ct::CommonOptions options;
    options.warmup = 2;
    options.repetitions = 4;
    ct::TableRun run(test_info(), options);
    ct::DeviceBuffer<int> out(256);

    std::vector<std::string> calls;
    ct::StageHooks hooks;
    hooks.poison = [&] { calls.push_back("poison"); };
    hooks.launch = [&](cudaStream_t stream) {
        calls.push_back("launch");
        out.fill_bytes_async(0, stream);
    };
    hooks.verify = [&] {
        calls.push_back("verify");
        return ct::Verification::pass();
    };
    hooks.bytes = 1024;
    hooks.extras = [&](ct::ResultRow& row) {
        calls.push_back("extras");
        row.with("runs", std::to_string(row.stats.samples));
    };
    hooks.group = "1 KiB";
    const ct::ResultRow& row =
        run.run({"1", "memset", "one memset", ct::StageRole::kProgression}, hooks);

    // One validated run, 2 warm-up runs, 4 timed runs; verified before and after timing.
    std::vector<std::string> expected = {"poison", "launch", "verify"};
    expected.insert(expected.end(), 6, "launch");
    expected.insert(expected.end(), {"verify", "extras"});
    EXPECT_EQ(calls, expected);
    EXPECT_TRUE(row.passed) << row.detail;
    EXPECT_EQ(row.id, "1");
    EXPECT_EQ(row.group, "1 KiB");
    EXPECT_EQ(row.stats.samples, 4);
    EXPECT_EQ(row.extra_value("runs"), "4");
    EXPECT_EQ(run.table().rows().size(), 1u);
    ASSERT_EQ(run.info().parameters.size(), 1u);  // what a stage needs is set up before the table
    EXPECT_EQ(run.info().parameters[0].first, "N");
}

TEST(TableRunGpu, AStageMayTimeFewerRuns) {
    CT_REQUIRE_GPU();
    ct::CommonOptions options;
    options.warmup = 1;
    options.repetitions = 5;
    ct::TableRun run(test_info(), options);
    ct::DeviceBuffer<int> out(256);

    ct::StageHooks hooks;
    hooks.launch = [&](cudaStream_t stream) { out.fill_bytes_async(0, stream); };
    hooks.verify = [] { return ct::Verification::pass(); };
    run.run({"10", "first", "", ct::StageRole::kProgression}, hooks);
    hooks.adjust_timing = [](ct::BenchmarkConfig& config) { config.repetitions = 2; };
    const ct::ResultRow& second = run.run({"11", "second", "", ct::StageRole::kProgression}, hooks);

    EXPECT_EQ(run.table().rows()[0].stats.samples, 5);
    EXPECT_EQ(second.stats.samples, 2);
    // The second stage's change is its own: a third stage without it times the options' runs.
    hooks.adjust_timing = nullptr;
    const ct::ResultRow& third = run.run({"12", "third", "", ct::StageRole::kProgression}, hooks);
    EXPECT_EQ(third.stats.samples, 5);
}

TEST(TableRunGpu, ARoundTripStageIsTimedOnTheHostOneCallAtATime) {
    CT_REQUIRE_GPU();
    ct::CommonOptions options;
    options.warmup = 1;
    options.repetitions = 3;
    ct::TableRun run(test_info(), options);
    ct::DeviceBuffer<int> out(256);
    ct::CudaStream stream;

    int calls = 0;
    bool poisoned = false;
    ct::StageHooks hooks;
    hooks.poison = [&] { poisoned = true; };
    hooks.round_trip = [&] {
        ++calls;
        out.fill_bytes_async(0, stream.get());
        CT_CHECK(cudaStreamSynchronize(stream.get()));
    };
    hooks.verify = [] { return ct::Verification::pass(); };
    hooks.bytes = ct::MemoryTraffic().writes<int>(256);
    const ct::ResultRow& row =
        run.run({"rt", "memset_and_wait", "", ct::StageRole::kProgression}, hooks);

    EXPECT_TRUE(poisoned);
    EXPECT_EQ(calls, 1 + 1 + 3);  // the validated call, one warm-up call, three timed calls
    EXPECT_TRUE(row.passed) << row.detail;
    EXPECT_TRUE(row.timed);
    EXPECT_EQ(row.stats.samples, 3);
    EXPECT_DOUBLE_EQ(row.bytes, 1024.0);

    ct::StageHooks neither;
    neither.verify = [] { return ct::Verification::pass(); };
    EXPECT_THROW(run.run({"x", "nothing", "", ct::StageRole::kProgression}, neither),
                 std::logic_error);
    ct::StageHooks both = hooks;
    both.launch = [&](cudaStream_t s) { out.fill_bytes_async(0, s); };
    EXPECT_THROW(run.run({"y", "both", "", ct::StageRole::kProgression}, both), std::logic_error);
}
