// The streaming pipeline on the GPU, with chunks made small on purpose so that many of them run
// on small data: every size and chunk size that puts a chunk boundary somewhere awkward (inside
// a 16-byte load, one byte after it, a last chunk of 1 byte), every distribution, both sources
// (pinned whole, and the reader thread filling pinned buffers), files through the executable,
// 64-bit totals, and a reader that fails. Counts are compared with reference_histogram over the
// whole input generated at once (not with the streamed path's own reference). Skipped without a
// GPU; CT_SANITIZE selects small sizes; CT_LARGE_TESTS=1 adds 2^32 + 17 bytes of one letter.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "gpu_test.hpp"
#include "histogram.hpp"
#include "process.hpp"
#include "streamed_pipeline.hpp"
#include "streamed_source.hpp"

namespace ct = cudatutorial;
namespace hg = histogram;

namespace {

using cudatutorial::testing::run_process;
using cudatutorial::testing::sanitizing;

hg::Histogram64 widen(const hg::Histogram& counts) {
    return hg::Histogram64(counts.begin(), counts.end());
}

bool large_tests() {
    const char* value = std::getenv("CT_LARGE_TESTS");
    return value != nullptr && std::string(value) == "1";
}

// Streams `source` twice through a fresh counter with poisoned totals; the second run must give
// the same totals (it clears them; it does not add to the first).
hg::Histogram64 stream_twice(const hg::ByteSource& source, std::uint64_t chunk,
                             const hg::Binning& binning, int block = 256, int grid = 0) {
    hg::StreamedCounter counter(source, chunk, binning, block, grid);
    counter.poison_totals();
    const hg::PipelineStats stats = counter.run(nullptr, true);
    EXPECT_EQ(stats.chunks, hg::ChunkPlan(source.size(), chunk).count());
    CT_CHECK(cudaDeviceSynchronize());
    const hg::Histogram64 first = counter.totals();
    counter.run(nullptr, true);
    CT_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(counter.totals(), first) << "a second run must not add to the first";
    return first;
}

std::string temp_path(const std::string& name) {
    return ::testing::TempDir() + "histogram_streamed_gpu_" + name;
}

void write_file(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
}

// A source that fails when a reader reaches `fail_at`, as a file on a failing disk would.
class FailingSource final : public hg::ByteSource {
  public:
    FailingSource(std::uint64_t n, std::uint64_t fail_at) : n_(n), fail_at_(fail_at) {}
    std::uint64_t size() const override { return n_; }
    void read(std::uint64_t offset, std::size_t length, unsigned char* out) const override {
        if (offset + length > fail_at_) {
            throw ct::UsageError("cannot read input file 'failing': read error: I/O error");
        }
        std::fill(out, out + length, 'q');
    }
    std::string describe() const override { return "failing"; }

  private:
    std::uint64_t n_;
    std::uint64_t fail_at_;
};

}  // namespace

TEST(StreamedGpu, SmallChunksOnAwkwardSizesMatchTheReference) {
    CT_REQUIRE_GPU();
    const std::vector<std::size_t> sizes =
        sanitizing() ? std::vector<std::size_t>{0, 1, 17, 1025, 4099}
                     : std::vector<std::size_t>{0,
                                                1,
                                                15,
                                                16,
                                                17,
                                                31,
                                                32,
                                                33,
                                                1000,
                                                1023,
                                                1024,
                                                1025,
                                                4097,
                                                65537,
                                                (std::size_t{1} << 20) + 3,
                                                std::size_t{3} << 20};
    const std::vector<std::uint64_t> chunks =
        sanitizing() ? std::vector<std::uint64_t>{1, 17, 1024}
                     : std::vector<std::uint64_t>{1, 15, 16, 17, 1000, 4099, 65536, 1 << 20};
    for (const hg::Distribution d : hg::all_distributions()) {
        for (const std::size_t n : sizes) {
            const std::vector<unsigned char> whole = hg::generate_input(d, n, 5);
            const auto generated = hg::make_generated_source(d, n, 5);
            const auto pinned = hg::make_pinned_source(d, n, 5, nullptr);
            for (const hg::Binning& binning : {hg::Binning::letters(4), hg::Binning::bytes()}) {
                const hg::Histogram64 expected = widen(hg::reference_histogram(whole, binning));
                for (const std::uint64_t chunk : chunks) {
                    if (n / chunk > 1100) {
                        continue;  // thousands of chunks of a few bytes say nothing more
                    }
                    SCOPED_TRACE(hg::distribution_name(d) + ", n " + std::to_string(n) +
                                 ", chunk " + std::to_string(chunk) + ", " + binning.describe());
                    EXPECT_EQ(stream_twice(*generated, chunk, binning), expected) << "reader";
                    EXPECT_EQ(stream_twice(*pinned, chunk, binning), expected) << "pinned";
                }
            }
        }
    }
}

TEST(StreamedGpu, SmallGridsAndBlocksCountEveryChunk) {
    CT_REQUIRE_GPU();
    // A grid of one block of 32 threads has fewer threads than a chunk's tail bytes at times.
    const std::size_t n = sanitizing() ? 5000 : (std::size_t{1} << 20) + 77;
    const auto source = hg::make_generated_source(hg::Distribution::kSkewed, n, 9);
    const hg::Binning binning = hg::Binning::letters(1);
    const hg::Histogram64 expected = widen(
        hg::reference_histogram(hg::generate_input(hg::Distribution::kSkewed, n, 9), binning));
    for (const auto& [block, grid] : {std::pair{32, 1}, {1024, 3}, {64, 0}}) {
        SCOPED_TRACE("block " + std::to_string(block) + ", grid " + std::to_string(grid));
        EXPECT_EQ(stream_twice(*source, 4099, binning, block, grid), expected);
    }
}

TEST(StreamedGpu, OneChunkProbesCopyAndCountTheFirstChunk) {
    CT_REQUIRE_GPU();
    const std::size_t n = 100003;
    const auto source = hg::make_generated_source(hg::Distribution::kRandomBytes, n, 2);
    const std::vector<unsigned char> whole =
        hg::generate_input(hg::Distribution::kRandomBytes, n, 2);
    const hg::Binning binning = hg::Binning::bytes();
    hg::StreamedCounter counter(*source, 40000, binning, 256, 0);
    counter.stage_first_chunk();
    counter.copy_first_chunk(nullptr);
    counter.count_first_chunk(nullptr);
    CT_CHECK(cudaDeviceSynchronize());
    const std::vector<unsigned char> first(whole.begin(), whole.begin() + 40000);
    EXPECT_EQ(counter.chunk_on_device(0), first);
    EXPECT_EQ(counter.first_chunk_counts(), hg::reference_histogram(first, binning));
    // Copies alone leave the last two chunks (1: 40000 bytes, 2: the last 20003) on the device.
    counter.run(nullptr, false);
    CT_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(counter.chunk_on_device(2),
              std::vector<unsigned char>(whole.begin() + 80000, whole.end()));
    EXPECT_EQ(counter.chunk_on_device(1),
              std::vector<unsigned char>(whole.begin() + 40000, whole.begin() + 80000));
}

TEST(StreamedGpu, AccumulationCarriesPastThirtyTwoBits) {
    CT_REQUIRE_GPU();
    const std::vector<unsigned int> chunk = {0xFFFFFFFFu, 1u, 0u, 7u, 0x80000000u};
    const std::vector<unsigned long long> start = {0xFFFFFFFFull, 1ull << 33, 0ull, 1ull << 40,
                                                   0x80000000ull};
    ct::DeviceBuffer<unsigned int> d_chunk(chunk);
    ct::DeviceBuffer<unsigned long long> d_total(start);
    hg::accumulate_counts(d_chunk.data(), d_total.data(), static_cast<int>(chunk.size()), nullptr);
    hg::accumulate_counts(d_chunk.data(), d_total.data(), static_cast<int>(chunk.size()), nullptr);
    CT_CHECK(cudaDeviceSynchronize());
    const std::vector<unsigned long long> expected = {0xFFFFFFFFull * 3, (1ull << 33) + 2, 0ull,
                                                      (1ull << 40) + 14, 0x80000000ull * 3};
    EXPECT_EQ(d_total.to_host(), expected);
}

TEST(StreamedGpu, AReaderErrorReachesTheCaller) {
    CT_REQUIRE_GPU();
    const FailingSource failing(10000, 6000);
    hg::StreamedCounter counter(failing, 1000, hg::Binning::letters(4), 256, 0);
    EXPECT_THROW(counter.run(nullptr, true), ct::UsageError);
    CT_CHECK(cudaDeviceSynchronize());
    const FailingSource fine(10000, 10000);  // the same pipeline shape, no failure
    hg::StreamedCounter again(fine, 1000, hg::Binning::letters(4), 256, 0);
    again.run(nullptr, true);
    CT_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(again.totals()[4], 10000u);  // 'q' is in bin q-t
}

TEST(StreamedGpu, FilesOfAwkwardSizesMatchTheReference) {
    CT_REQUIRE_GPU();
    const std::vector<std::size_t> sizes =
        sanitizing() ? std::vector<std::size_t>{0, 17, 4099}
                     : std::vector<std::size_t>{0, 17, 4099, 1000003, (std::size_t{5} << 20) + 5};
    for (const std::size_t n : sizes) {
        const std::vector<unsigned char> bytes =
            hg::generate_input(hg::Distribution::kRandomBytes, n, n);
        const std::string path = temp_path(std::to_string(n) + ".bin");
        write_file(path, bytes);
        const auto source = hg::open_file_source(path);
        for (const hg::Binning& binning : {hg::Binning::letters(4), hg::Binning::bytes()}) {
            const hg::Histogram64 expected = widen(hg::reference_histogram(bytes, binning));
            for (const std::uint64_t chunk : {std::uint64_t{4099}, std::uint64_t{1} << 20}) {
                SCOPED_TRACE("file of " + std::to_string(n) + " bytes, chunk " +
                             std::to_string(chunk) + ", " + binning.describe());
                EXPECT_EQ(stream_twice(*source, chunk, binning), expected);
                EXPECT_EQ(hg::reference_histogram64(*source, binning, 1000), expected);
            }
        }
        std::remove(path.c_str());
    }
}

TEST(StreamedGpu, TheExecutableStreamsFilesAndGeneratedInputs) {
    CT_REQUIRE_GPU();
    const std::string path = temp_path("exe.bin");
    write_file(path, hg::generate_input(hg::Distribution::kUniform, (std::size_t{2} << 20) + 9, 4));
    const std::string empty = temp_path("empty.bin");
    write_file(empty, {});
    const std::string quick = " --reps 2 --warmup 0 --stream-reps 2";
    const std::vector<std::string> runs = {
        "--input " + path + " --in-memory-max 0 --chunk 1000003",
        "--input " + path + " --in-memory-max 1Mi --chunk 1Mi --bins bytes",
        "--n 3000017 --in-memory-max 0 --chunk 65537 --dist runs",
        "--n 1000 --in-memory-max 0 --chunk 17 --dist one-letter --bins bytes",
    };
    const std::string markdown = temp_path("exe.md");
    for (const std::string& args : runs) {
        SCOPED_TRACE(args);
        std::remove(markdown.c_str());
        const auto result = run_process(std::string(HISTOGRAM_BIN) + " " + args + quick +
                                        " --markdown " + markdown);
        EXPECT_EQ(result.exit_code, 0) << result.output;
        EXPECT_NE(result.output.find("streamed_end_to_end"), std::string::npos) << result.output;
        EXPECT_EQ(result.output.find("FAIL"), std::string::npos) << result.output;
        EXPECT_NE(result.output.find("x the copies alone"), std::string::npos) << result.output;
        // What bounds the rate is a note of the table: in its Markdown file too.
        std::ifstream file(markdown);
        const std::string written{std::istreambuf_iterator<char>(file),
                                  std::istreambuf_iterator<char>()};
        EXPECT_NE(written.find("`streamed_end_to_end`"), std::string::npos) << written;
        EXPECT_NE(written.find(" Bounded by "), std::string::npos) << written;
    }
    std::remove(markdown.c_str());
    // An empty file streams as zero chunks and gives an all-zero histogram (exit 0).
    const auto zero = run_process(std::string(HISTOGRAM_BIN) + " --input " + empty +
                                  " --in-memory-max 0" + quick);
    EXPECT_EQ(zero.exit_code, 0) << zero.output;
    EXPECT_NE(zero.output.find("none (empty input)"), std::string::npos) << zero.output;
    EXPECT_NE(zero.output.find("a-d 0"), std::string::npos) << zero.output;
    EXPECT_EQ(zero.output.find("FAIL"), std::string::npos) << zero.output;
    std::remove(path.c_str());
    std::remove(empty.c_str());
}

TEST(StreamedGpu, LargeOneLetterInputCountsAboveThirtyTwoBits) {
    CT_REQUIRE_GPU();
    if (!large_tests() || sanitizing()) {
        GTEST_SKIP() << "set CT_LARGE_TESTS=1 to stream 2^32 + 17 bytes of 'a' (about 10 s)";
    }
    const std::uint64_t n = (std::uint64_t{1} << 32) + 17;
    const auto source = hg::make_generated_source(hg::Distribution::kOneLetter, n, 1);
    hg::StreamedCounter counter(*source, std::uint64_t{256} << 20, hg::Binning::letters(4), 256, 0);
    counter.poison_totals();
    counter.run(nullptr, true);
    CT_CHECK(cudaDeviceSynchronize());
    const hg::Histogram64 totals = counter.totals();
    EXPECT_EQ(totals[0], n) << "32-bit counters would have kept " << (n & 0xFFFFFFFFull);
    for (std::size_t b = 1; b < totals.size(); ++b) {
        EXPECT_EQ(totals[b], 0u);
    }
    // And through the executable, which verifies against its own 64-bit reference.
    const auto result = run_process(std::string(HISTOGRAM_BIN) +
                                    " --dist one-letter --n 4294967313 --reps 2 --warmup 0 "
                                    "--stream-reps 1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("a-d 4294967313"), std::string::npos) << result.output;
}
