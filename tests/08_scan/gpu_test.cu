// GPU tests of chapter 8: every stage against the CPU reference over edge sizes x block sizes x
// inclusive/exclusive x data (random, max), repeated runs of one Scanner, every candidate of
// stage 7 (few resident blocks looping over many tiles among them) and its tuning pass, a size
// past 2^31 for the single-pass stages and CUB, the labelled wrong stage 6x (BugDemo: left out
// of the sanitizer runs), the executable end to end, and the timing table of stage 7's
// candidates (opt-in: CT_SCAN_TUNING=1).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adaptive_lookback.hpp"
#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "gpu_test.hpp"
#include "process.hpp"
#include "scan.hpp"
#include "stages/lookback_candidates.hpp"
#include "stages/scan_launchers.hpp"

namespace ct = cudatutorial;
using cudatutorial::testing::sanitizing;
using scan::Kind;
using scan::Pattern;
using scan::Value;

namespace {

constexpr Kind kKinds[] = {Kind::kInclusive, Kind::kExclusive};

/// Edge sizes around warps, tiles and powers of two, a partial last tile, sizes that are not a
/// multiple of 4 (stage 7's vectors); under compute-sanitizer (racecheck is ~100x slower) small.
std::vector<std::size_t> test_sizes() {
    if (sanitizing()) {
        return {1, 31, 33, 1025, 4097, (1u << 14) + 3};
    }
    return {1,
            2,
            31,
            32,
            33,
            1023,
            1024,
            1025,
            4095,
            4096,
            4097,
            65535,
            65536,
            65537,
            (1u << 20) - 1,
            1u << 20,
            (1u << 20) + 1,
            (1u << 22) + 3,
            3 * 5 * 7 * 9 * 11 * 13 * 17};
}

std::vector<int> test_blocks(std::size_t n) {
    if (sanitizing()) {
        return {32, 256};
    }
    if (n >= (1u << 20)) {
        return {32, 256, 1024};
    }
    return {32, 64, 128, 256, 512, 1024};
}

/// The look-back's wait limit: the default, or a minute under compute-sanitizer, whose tools slow
/// the blocks a waiting block depends on.
std::uint64_t wait_limit() {
    return sanitizing() ? std::uint64_t{60'000'000'000} : scan::kDefaultWaitLimitNs;
}

std::string trace(const std::string& stage, std::size_t n, int block, Kind kind, Pattern p) {
    return "stage " + stage + ", n " + std::to_string(n) + ", block " + std::to_string(block) +
           ", " + scan::kind_name(kind) + ", " + scan::pattern_name(p);
}

/// Poisons d_out, runs `scanner` once, and returns "" or what is wrong.
std::string run_and_check(const scan::Scanner& scanner, const ct::DeviceBuffer<Value>& d_in,
                          ct::DeviceBuffer<Value>& d_out, const std::vector<Value>& want) {
    d_out.fill_bytes(scan::poison_byte(want.front()));
    scanner.run(d_in.data(), d_out.data(), nullptr);
    CT_CHECK(cudaDeviceSynchronize());
    const std::string error = scanner.device_error();
    if (!error.empty()) {
        return error;
    }
    const std::vector<Value> got = d_out.to_host();
    return scan::describe_mismatch(got.data(), want.data(), want.size());
}

}  // namespace

TEST(ScanGpu, EveryStageMatchesTheReference) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    int checked = 0;
    for (Pattern pattern : {Pattern::kRandom, Pattern::kMax}) {
        for (std::size_t n : test_sizes()) {
            const std::vector<Value> input = scan::make_input(pattern, n, 11 + n);
            const ct::DeviceBuffer<Value> d_in(input);
            ct::DeviceBuffer<Value> d_out(n);  // exactly n: a write past the end is an error
            for (Kind kind : kKinds) {
                const std::vector<Value> want = scan::reference_scan(input, kind);
                for (const scan::StageInfo& stage : scan::stages()) {
                    if (stage.role == ct::StageRole::kExpectedFailure ||
                        stage.method == scan::Method::kCopy) {
                        continue;  // 6x: see ScanBugDemo; the copy is no scan
                    }
                    const bool library = stage.method == scan::Method::kCub;
                    for (int block : test_blocks(n)) {
                        if (library && block != 256) {
                            continue;
                        }
                        SCOPED_TRACE(trace(stage.id, n, block, kind, pattern));
                        const scan::Scanner scanner(stage.id, n, block, kind, wait_limit());
                        ASSERT_EQ(run_and_check(scanner, d_in, d_out, want), "");
                        ++checked;
                    }
                }
            }
        }
    }
    std::printf("checked %d (stage, n, block, kind, data) combinations\n", checked);
}

// A Scanner is built once and run many times (the table's timed runs): each run must start from
// scratch. The single-pass stages keep state between runs (the tile counter, which the last
// tile resets; the status words, which a new generation invalidates), stage 5 and the frame
// reuse their totals buffers.
TEST(ScanGpu, RepeatedRunsStartFromScratch) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::vector<std::size_t> sizes = sanitizing()
                                               ? std::vector<std::size_t>{4097}
                                               : std::vector<std::size_t>{4097, (1u << 20) + 5};
    for (std::size_t n : sizes) {
        const std::vector<Value> input = scan::make_input(Pattern::kRandom, n, 5);
        const ct::DeviceBuffer<Value> d_in(input);
        ct::DeviceBuffer<Value> d_out(n);
        for (Kind kind : kKinds) {
            const std::vector<Value> want = scan::reference_scan(input, kind);
            for (const char* id : {"4", "5", "6", "7", "cub"}) {
                const scan::Scanner scanner(id, n, 128, kind, wait_limit());
                for (int repeat = 0; repeat < (sanitizing() ? 2 : 5); ++repeat) {
                    SCOPED_TRACE(trace(id, n, 128, kind, Pattern::kRandom) + ", run " +
                                 std::to_string(repeat));
                    ASSERT_EQ(run_and_check(scanner, d_in, d_out, want), "");
                }
            }
        }
    }
}

TEST(ScanGpu, CopyCeilingCopies) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::vector<Value> input = scan::make_input(Pattern::kRandom, 100003, 9);
    const ct::DeviceBuffer<Value> d_in(input);
    ct::DeviceBuffer<Value> d_out(input.size());
    const scan::Scanner copy(scan::kCopyStageId, input.size(), 256, Kind::kInclusive);
    EXPECT_EQ(run_and_check(copy, d_in, d_out, input), "");
}

namespace {

/// The workspace of one launch of stage 7's candidate (what a Scanner owns), for launches with a
/// resident grid of the test's choosing, which a Scanner does not offer.
struct CandidateWorkspace {
    ct::DeviceBuffer<unsigned long long> status;
    ct::DeviceBuffer<unsigned int> counter{1};
    ct::DeviceBuffer<unsigned int> error{1};
    unsigned int generation = 0;

    CandidateWorkspace(std::size_t n, int candidate)
        : status(scan::config::tiles(n, scan::detail::candidate_tile_items(candidate))) {
        status.fill_bytes(0);
        counter.fill_bytes(0);
        error.fill_bytes(0);
    }

    scan::detail::LaunchArgs args(const Value* in, Value* out, std::size_t n, Kind kind,
                                  int candidate, unsigned int grid) {
        scan::detail::LaunchArgs a;
        a.in = in;
        a.out = out;
        a.n = n;
        a.exclusive = kind == Kind::kExclusive;
        a.tile_status = status.data();
        a.tile_counter = counter.data();
        a.error_flag = error.data();
        a.generation = ++generation;
        a.wait_limit_ns = wait_limit();
        a.candidate = candidate;
        a.resident_grid = grid;
        return a;
    }

    unsigned int error_flag() const {
        unsigned int flag = 0;
        error.copy_to_host(&flag, 1);
        return flag;
    }
};

/// Sizes for stage 7's candidates: edges around warps, powers of two, partial last tiles (of
/// every tile size, 4,096 to 16,384 values), n not a multiple of 4, and (not under the
/// sanitizer) enough tiles that the resident blocks loop several times each. Under the sanitizer:
/// four small sizes, random data only.
std::vector<std::size_t> candidate_sizes() {
    if (sanitizing()) {
        return {1, 33, 1025, (1u << 14) + 3};
    }
    return {1,
            31,
            32,
            33,
            1023,
            1024,
            1025,
            4095,
            4097,
            16383,
            16385,
            65535,
            65537,
            (1u << 20) - 1,
            (1u << 20) + 1,
            (1u << 22) + 3,
            3 * 5 * 7 * 9 * 11 * 13 * 17,
            (1u << 24) + 5};
}

}  // namespace

// Every candidate the tuning pass may choose, through the Scanner as the executable runs it:
// each size, both kinds, random and all-0xFFFFFFFF data, two runs of each Scanner (the counter
// must be back at 0 after a run, whichever block took the last ticket).
TEST(ScanGpu, EveryStage7CandidateMatchesTheReference) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    int checked = 0;
    const std::vector<Pattern> patterns =
        sanitizing() ? std::vector<Pattern>{Pattern::kRandom}
                     : std::vector<Pattern>{Pattern::kRandom, Pattern::kMax};
    for (Pattern pattern : patterns) {
        for (std::size_t n : candidate_sizes()) {
            const std::vector<Value> input = scan::make_input(pattern, n, 23 + n);
            const ct::DeviceBuffer<Value> d_in(input);
            ct::DeviceBuffer<Value> d_out(n);
            for (Kind kind : kKinds) {
                const std::vector<Value> want = scan::reference_scan(input, kind);
                for (int c = 0; c < scan::detail::kLookbackCandidateCount; ++c) {
                    if (!scan::detail::candidate_fits(c)) {
                        continue;  // more shared memory per block than this GPU gives
                    }
                    const scan::Scanner scanner("7", n, 256, kind, wait_limit(), c);
                    for (int repeat = 0; repeat < 2; ++repeat) {
                        SCOPED_TRACE(scan::detail::describe_candidate(c) + ", n " +
                                     std::to_string(n) + ", " + scan::kind_name(kind) + ", " +
                                     scan::pattern_name(pattern) + ", run " +
                                     std::to_string(repeat));
                        ASSERT_EQ(run_and_check(scanner, d_in, d_out, want), "");
                        ++checked;
                    }
                }
            }
        }
    }
    std::printf("checked %d (candidate, n, kind, data, run) combinations\n", checked);
}

// The resident candidates with a grid of 1, 2 and 3 blocks over many tiles: every block loops,
// holds a ticket while it scans another tile, and the last ticket (not the last tile) resets
// the counter. Small enough for compute-sanitizer's racecheck, which checks the barriers around
// the shared ticket and the warps' offsets between one tile and the next.
TEST(ScanGpu, FewResidentBlocksLoopOverManyTiles) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    for (int c = 0; c < scan::detail::kLookbackCandidateCount; ++c) {
        if (!scan::detail::kLookbackCandidates[c].resident) {
            continue;
        }
        // 5 tiles and a partial sixth; n not a multiple of 4.
        const std::size_t n =
            5 * static_cast<std::size_t>(scan::detail::candidate_tile_items(c)) + 7;
        const std::vector<Value> input = scan::make_input(Pattern::kRandom, n, 31);
        const ct::DeviceBuffer<Value> d_in(input);
        ct::DeviceBuffer<Value> d_out(n);
        for (Kind kind : kKinds) {
            const std::vector<Value> want = scan::reference_scan(input, kind);
            CandidateWorkspace workspace(n, c);
            for (unsigned int grid : {1u, 2u, 3u}) {
                for (int repeat = 0; repeat < 2; ++repeat) {
                    SCOPED_TRACE(scan::detail::describe_candidate(c) + ", grid " +
                                 std::to_string(grid) + ", " + scan::kind_name(kind) + ", run " +
                                 std::to_string(repeat));
                    d_out.fill_bytes(scan::poison_byte(want.front()));
                    scan::detail::launch_vectorized_lookback(
                        workspace.args(d_in.data(), d_out.data(), n, kind, c, grid));
                    CT_CHECK(cudaDeviceSynchronize());
                    ASSERT_EQ(workspace.error_flag(), 0u);
                    const std::vector<Value> got = d_out.to_host();
                    ASSERT_EQ(scan::describe_mismatch(got.data(), want.data(), n), "");
                }
            }
        }
    }
}

// The tuning pass times every candidate, checks each, and chooses one of them; a check that
// fails stops it with the candidate's name.
TEST(ScanGpu, TuningPassChecksAndTimesEveryCandidate) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "timing under compute-sanitizer measures the tool";
    }
    ct::select_device(0);
    const std::size_t n = 300007;
    const std::vector<Value> input = scan::make_input(Pattern::kRandom, n, 41);
    const std::vector<Value> want = scan::reference_scan(input, Kind::kExclusive);
    const ct::DeviceBuffer<Value> d_in(input);
    ct::DeviceBuffer<Value> d_out(n);
    int checks = 0;
    scan::adaptive::OutputCheck check;
    check.poison = [&] { d_out.fill_bytes(scan::poison_byte(want.front())); };
    check.verify = [&] {
        ++checks;
        const std::vector<Value> got = d_out.to_host();
        return scan::describe_mismatch(got.data(), want.data(), n);
    };
    const scan::adaptive::TuningResult r =
        scan::adaptive::tune_lookback(d_in.data(), d_out.data(), n, Kind::kExclusive, check, 3);
    int fitting = 0;
    for (int c = 0; c < scan::detail::kLookbackCandidateCount; ++c) {
        fitting += scan::detail::candidate_fits(c) ? 1 : 0;
    }
    EXPECT_EQ(checks, fitting);
    ASSERT_EQ(r.candidates.size(), static_cast<std::size_t>(fitting));
    EXPECT_EQ(r.skipped.size(),
              static_cast<std::size_t>(scan::detail::kLookbackCandidateCount - fitting));
    EXPECT_EQ(r.chosen, r.candidates.front().candidate);
    EXPECT_EQ(r.runner_up, r.candidates[1].candidate);
    for (const scan::adaptive::TunedCandidate& c : r.candidates) {
        EXPECT_GT(c.median_ms, 0.0) << scan::detail::describe_candidate(c.candidate);
    }
    // The chosen candidate, handed to a Scanner, is right too.
    const scan::Scanner chosen("7", n, 256, Kind::kExclusive, wait_limit(), r.chosen);
    EXPECT_EQ(run_and_check(chosen, d_in, d_out, want), "");

    scan::adaptive::OutputCheck wrong = check;
    wrong.verify = [] { return std::string("made up"); };
    try {
        scan::adaptive::tune_lookback(d_in.data(), d_out.data(), n, Kind::kExclusive, wrong, 1);
        ADD_FAILURE() << "a failed check must stop the tuning pass";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(scan::detail::describe_candidate(0)),
                  std::string::npos)
            << e.what();
    }
}

namespace {

// The input past 2^31 values: value(i) = a*i + b (mod 2^32), made on the device, whose scans
// have a closed form, so that the 8 GiB result can be checked in chunks on many host threads
// without an 8 GiB reference.
constexpr Value kSlope = 2654435761u;
constexpr Value kOffset = 12345u;

__global__ void fill_linear(Value* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        out[i] = kSlope * static_cast<Value>(i) + kOffset;
    }
}

/// in[0] + ... + in[i] modulo 2^32: a i(i+1)/2 + b (i+1) (i(i+1) fits in 64 bits for i < 2^32).
Value linear_inclusive(std::uint64_t i) {
    const std::uint64_t triangle = i * (i + 1) / 2;
    return static_cast<Value>(std::uint64_t{kSlope} * triangle + std::uint64_t{kOffset} * (i + 1));
}

/// "" or the first index where d_out differs from the closed form, reading it back in chunks.
std::string check_linear(const ct::DeviceBuffer<Value>& d_out, std::size_t n, Kind kind) {
    constexpr std::size_t kChunk = std::size_t{1} << 26;  // 256 MiB
    ct::PinnedBuffer<Value> host(kChunk);
    for (std::size_t begin = 0; begin < n; begin += kChunk) {
        const std::size_t count = std::min(kChunk, n - begin);
        CT_CHECK(cudaMemcpy(host.data(), d_out.data() + begin, count * sizeof(Value),
                            cudaMemcpyDeviceToHost));
        std::atomic<std::size_t> first{n};
        ct::parallel_for_ranges(count, [&](std::size_t lo, std::size_t hi) {
            for (std::size_t k = lo; k < hi; ++k) {
                const std::uint64_t i = begin + k;
                const Value inclusive = linear_inclusive(i);
                const Value want = kind == Kind::kInclusive
                                       ? inclusive
                                       : inclusive - (kSlope * static_cast<Value>(i) + kOffset);
                if (host[k] != want) {
                    std::size_t seen = first.load();
                    while (i < seen && !first.compare_exchange_weak(seen, i)) {
                    }
                    return;
                }
            }
        });
        if (first.load() < n) {
            const std::size_t i = first.load();
            return "first wrong value at " + std::to_string(i) + ": got " +
                   std::to_string(host[i - begin]);
        }
    }
    return "";
}

}  // namespace

// N = 2^31 + 33 values (8 GiB in, 8 GiB out): element indices and tile offsets pass 2^31 - 1,
// and N is no multiple of 4 (stage 7's scalar tail). The seed's `int i = blockIdx.x *
// blockDim.x + threadIdx.x` would turn negative here.
TEST(ScanGpuLarge, SinglePassStagesAndCubPast2To31) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "16 GiB under compute-sanitizer would take far too long";
    }
    ct::select_device(0);
    const std::size_t n = (std::size_t{1} << 31) + 33;
    const std::size_t needed = 2 * n * sizeof(Value) + (std::size_t{512} << 20);
    if (ct::free_device_memory() < needed) {
        GTEST_SKIP() << "needs " << ct::format_bytes(static_cast<double>(needed))
                     << " of free device memory";
    }
    ct::DeviceBuffer<Value> d_in(n);
    ct::DeviceBuffer<Value> d_out(n);
    fill_linear<<<1024, 256>>>(d_in.data(), n);
    CT_CHECK_LAUNCH();
    const std::vector<std::pair<const char*, Kind>> runs = {{"6", Kind::kInclusive},
                                                            {"7", Kind::kInclusive},
                                                            {"7", Kind::kExclusive},
                                                            {"cub", Kind::kInclusive},
                                                            {"cub", Kind::kExclusive}};
    for (const auto& [id, kind] : runs) {
        SCOPED_TRACE(std::string("stage ") + id + ", " + scan::kind_name(kind));
        const scan::Scanner scanner(id, n, 256, kind);
        d_out.fill_bytes(0xff);
        scanner.run(d_in.data(), d_out.data(), nullptr);
        CT_CHECK(cudaDeviceSynchronize());
        ASSERT_EQ(scanner.device_error(), "");
        EXPECT_EQ(check_linear(d_out, n, kind), "");
    }
}

// Stage 6x takes its tile from blockIdx.x in reverse, with far more tiles than can be resident:
// its waits cannot end, the time limit ends them, the error flag says so, and the device is
// fine afterwards. Excluded from the sanitizer runs by its name (BugDemo).
TEST(ScanBugDemo, LookbackByBlockIndexTimesOutAndTheDeviceRecovers) {
    CT_REQUIRE_GPU();
    ct::select_device(0);
    const std::size_t n = std::size_t{1} << 24;  // 32768 tiles of 512: no GPU holds them all
    const std::vector<Value> input = scan::make_input(Pattern::kRandom, n, 17);
    const std::vector<Value> want = scan::reference_scan(input, Kind::kInclusive);
    const ct::DeviceBuffer<Value> d_in(input);
    ct::DeviceBuffer<Value> d_out(n);

    const scan::Scanner wrong("6x", n, 256, Kind::kInclusive);
    const auto start = std::chrono::steady_clock::now();
    const std::string failure = run_and_check(wrong, d_in, d_out, want);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("stage 6x: %s after %.2f s\n", failure.c_str(), seconds);
    EXPECT_NE(failure.find("timed out"), std::string::npos) << failure;
    const double limit_s = static_cast<double>(scan::kDefaultWaitLimitNs) / 1e9;
    EXPECT_LT(seconds, limit_s + 5.0);

    // Run again: it waits out the limit again (the flag is per run; one left over from the first
    // run would make every wait give up at once, and a timed run would measure nothing).
    const auto again = std::chrono::steady_clock::now();
    const std::string second = run_and_check(wrong, d_in, d_out, want);
    const double second_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count();
    EXPECT_NE(second.find("timed out"), std::string::npos) << second;
    EXPECT_GT(second_seconds, 0.9 * limit_s);

    // The same buffers, the right stage: it passes, the device is usable.
    const scan::Scanner right("6", n, 256, Kind::kInclusive);
    EXPECT_EQ(run_and_check(right, d_in, d_out, want), "");
}

TEST(ScanGpu, ExecutableTablePassesEndToEnd) {
    CT_REQUIRE_GPU();
    if (sanitizing()) {
        GTEST_SKIP() << "the executable runs stage 6x, whose failure is the point";
    }
    for (const char* args : {"--n 100003 --reps 3 --warmup 1",
                             "--n 4099 --kind exclusive --data max --block 64 --reps 2"}) {
        SCOPED_TRACE(args);
        const auto result = ct::testing::run_process(std::string(SCAN_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 0) << result.output;
        for (const char* word : {"copy", "% of copy", "cub", "6x", "PASS", "stage 7 runs"}) {
            EXPECT_NE(result.output.find(word), std::string::npos) << word << "\n" << result.output;
        }
    }
}

// Opt-in (CT_SCAN_TUNING=1): every candidate of stage 7 timed at 2^28 values, beside stage 6,
// CUB and the copy, as the harness times the table (more runs than the executable's tuning pass).
TEST(ScanGpuTuning, Stage7Candidates) {
    CT_REQUIRE_GPU();
    const char* enabled = std::getenv("CT_SCAN_TUNING");
    if (enabled == nullptr || std::string(enabled) != "1" || sanitizing()) {
        GTEST_SKIP() << "a timing table, not a check: run with CT_SCAN_TUNING=1";
    }
    const ct::DeviceInfo device = ct::select_device(0);
    const std::size_t n = std::size_t{1} << 28;
    const std::vector<Value> input = scan::make_input(Pattern::kRandom, n, 1);
    const ct::DeviceBuffer<Value> d_in(input);
    ct::DeviceBuffer<Value> d_out(n);
    ct::BenchmarkConfig config;
    config.warmup = 5;
    config.repetitions = 30;
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(Value);
    std::printf("%s, n = 2^28, median of %d\n", device.name.c_str(), config.repetitions);
    const auto time = [&](const std::string& what, const scan::Scanner& scanner) {
        const ct::Stats stats = ct::time_repeated(
            [&](cudaStream_t s) { scanner.run(d_in.data(), d_out.data(), s); }, config);
        std::printf("  %-52s %8.4f ms  %7.1f GB/s\n", what.c_str(), stats.median_ms,
                    bytes / (stats.median_ms * 1e-3) / 1e9);
        EXPECT_EQ(scanner.device_error(), "") << what;
    };
    for (const char* id : {"copy", "cub", "5", "6", "7"}) {
        time(std::string("stage ") + id, scan::Scanner(id, n, 256, Kind::kInclusive));
    }
    for (int c = 0; c < scan::detail::kLookbackCandidateCount; ++c) {
        if (!scan::detail::candidate_fits(c)) {
            continue;
        }
        const scan::Scanner scanner("7", n, 256, Kind::kInclusive, wait_limit(), c);
        time(scan::detail::describe_candidate(c) + " (grid " +
                 std::to_string(scanner.launches().front().grid) + ")",
             scanner);
    }
}
