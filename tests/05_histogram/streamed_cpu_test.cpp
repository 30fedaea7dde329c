// The streamed path's host side, no GPU: the chunking arithmetic against a byte-by-byte walk,
// the range generator against the whole-input generator, the file source at awkward offsets,
// the parallel reader's page-aligned pieces, the 64-bit reference against the 32-bit one, and
// the choice between in memory and streamed.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "chunking.hpp"
#include "cudatutorial/check.hpp"
#include "histogram.hpp"
#include "streamed_pipeline.hpp"
#include "streamed_run.hpp"
#include "streamed_source.hpp"

namespace hg = histogram;

namespace {

std::string temp_path(const std::string& name) {
    return ::testing::TempDir() + "histogram_streamed_" + name;
}

void write_file(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST(StreamedChunking, ChunksCoverEveryByteOnceInOrder) {
    for (const std::uint64_t n : {0ull, 1ull, 15ull, 16ull, 17ull, 1000ull, 1023ull, 1024ull,
                                  1025ull, 4097ull, 65535ull, 65536ull, 65537ull}) {
        for (const std::uint64_t chunk :
             {1ull, 7ull, 16ull, 17ull, 1000ull, 1024ull, 4096ull, 65536ull, 1ull << 31}) {
            SCOPED_TRACE("n " + std::to_string(n) + ", chunk " + std::to_string(chunk));
            const hg::ChunkPlan plan(n, chunk);
            std::uint64_t next = 0;  // the first byte no chunk has covered yet
            for (std::uint64_t i = 0; i < plan.count(); ++i) {
                ASSERT_EQ(plan.offset(i), next);
                ASSERT_GT(plan.length(i), 0u);
                ASSERT_LE(plan.length(i), chunk);
                if (i + 1 < plan.count()) {
                    ASSERT_EQ(plan.length(i), chunk);  // only the last chunk may be partial
                }
                next += plan.length(i);
            }
            EXPECT_EQ(next, n);
            EXPECT_EQ(plan.count(), (n + chunk - 1) / chunk);
            EXPECT_EQ(plan.length(plan.count()), 0u);  // past the end
            EXPECT_EQ(plan.buffer_bytes(), std::min(n, chunk));
        }
    }
}

TEST(StreamedChunking, LastPartialChunkAndHugeInputs) {
    const hg::ChunkPlan plan(3 * 1000 + 5, 1000);  // a last chunk shorter than one 16-byte load
    EXPECT_EQ(plan.count(), 4u);
    EXPECT_EQ(plan.length(3), 5u);
    EXPECT_EQ(plan.offset(3), 3000u);
    const hg::ChunkPlan tera(std::uint64_t{1} << 40, std::uint64_t{256} << 20);
    EXPECT_EQ(tera.count(), 4096u);
    EXPECT_EQ(tera.offset(4095) + tera.length(4095), std::uint64_t{1} << 40);
    const hg::ChunkPlan odd((std::uint64_t{1} << 40) + 3, std::uint64_t{1} << 31);
    EXPECT_EQ(odd.count(), 513u);
    EXPECT_EQ(odd.length(512), 3u);
    EXPECT_THROW(hg::ChunkPlan(10, 0), std::invalid_argument);
}

TEST(StreamedChunking, PiecesArePageAlignedAndCoverTheChunk) {
    for (const std::size_t length :
         {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097},
          std::size_t{100000}, (std::size_t{256} << 20) + 17}) {
        for (const std::size_t parts : {1, 2, 3, 7, 16}) {
            SCOPED_TRACE("length " + std::to_string(length) + ", parts " + std::to_string(parts));
            std::size_t next = 0;
            std::size_t largest = 0;
            std::size_t smallest = length;
            for (std::size_t p = 0; p < parts; ++p) {
                const hg::Piece piece = hg::aligned_piece(length, parts, 4096, p);
                ASSERT_EQ(piece.begin, next);
                ASSERT_LE(piece.begin, piece.end);
                if (piece.end < length) {
                    ASSERT_EQ(piece.end % 4096, 0u);
                }
                largest = std::max(largest, piece.end - piece.begin);
                smallest = std::min(smallest, piece.end - piece.begin);
                next = piece.end;
            }
            EXPECT_EQ(next, length);
            // One page more for some pieces, and the last one's page may be partial.
            EXPECT_LT(largest - smallest, 2 * 4096u) << "pieces as even as pages allow";
        }
    }
    EXPECT_EQ(hg::pieces_for(0, 16, 4 << 20), 1u);
    EXPECT_EQ(hg::pieces_for(1 << 20, 16, 4 << 20), 1u);
    EXPECT_EQ(hg::pieces_for(std::size_t{256} << 20, 16, 4 << 20), 16u);
    EXPECT_EQ(hg::pieces_for(std::size_t{9} << 20, 16, 4 << 20), 2u);
}

TEST(StreamedSource, RangesEqualTheWholeInputGenerator) {
    const std::size_t n = (std::size_t{1} << 19) + 77;  // several runs of up to 128 Ki
    for (const hg::Distribution d : hg::all_distributions()) {
        SCOPED_TRACE(hg::distribution_name(d));
        const std::vector<unsigned char> whole = hg::generate_input(d, n, 7);
        for (const std::size_t offset :
             {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{200003}, n - 16}) {
            std::vector<unsigned char> part(std::min<std::size_t>(70001, n - offset));
            hg::generate_range(d, 7, offset, part.size(), part.data());
            ASSERT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + offset))
                << "offset " << offset;
        }
        // The generated source (checkpointed runs), read out of order by the parallel reader.
        const auto source = hg::make_generated_source(d, n, 7);
        EXPECT_EQ(source->size(), n);
        std::vector<unsigned char> read(n);
        for (const std::size_t offset :
             {std::size_t{300000}, std::size_t{0}, std::size_t{150000}}) {
            const std::size_t length = std::min<std::size_t>(150000, n - offset);
            source->read(offset, length, read.data() + offset);
        }
        source->read(450000, n - 450000, read.data() + 450000);
        EXPECT_EQ(read, whole);
        std::vector<unsigned char> parallel(n);
        hg::read_parallel(*source, 0, n, parallel.data(), 8);
        EXPECT_EQ(parallel, whole);
    }
}

TEST(StreamedSource, FileIsReadAtAnyOffset) {
    const std::string path = temp_path("awkward.bin");
    const std::vector<unsigned char> bytes =
        hg::generate_input(hg::Distribution::kRandomBytes, (std::size_t{9} << 20) + 13, 3);
    write_file(path, bytes);
    EXPECT_EQ(hg::input_file_size(path), bytes.size());
    const auto source = hg::open_file_source(path);
    ASSERT_EQ(source->size(), bytes.size());
    std::vector<unsigned char> part(4099);
    source->read(bytes.size() - part.size(), part.size(), part.data());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), bytes.end() - 4099));
    std::vector<unsigned char> all(bytes.size());
    hg::read_parallel(*source, 0, all.size(), all.data(), 16);  // 2 pieces of >= 4 MiB
    EXPECT_EQ(all, bytes);
    std::vector<unsigned char> beyond(10);
    EXPECT_THROW(source->read(bytes.size() - 5, beyond.size(), beyond.data()),
                 cudatutorial::UsageError)
        << "a file shorter than its size at the start is an error, not silent zeros";
    std::remove(path.c_str());
}

TEST(StreamedSource, MissingFilesAndDirectoriesAreUsageErrors) {
    EXPECT_THROW(hg::input_file_size("/no/such/file.bin"), cudatutorial::UsageError);
    EXPECT_THROW(hg::input_file_size(::testing::TempDir()), cudatutorial::UsageError);
    EXPECT_THROW(hg::open_file_source("/no/such/file.bin"), cudatutorial::UsageError);
    const std::string empty = temp_path("empty.bin");
    write_file(empty, {});
    EXPECT_EQ(hg::input_file_size(empty), 0u);
    EXPECT_EQ(hg::open_file_source(empty)->size(), 0u);
    std::remove(empty.c_str());
}

TEST(StreamedReference, SixtyFourBitReferenceEqualsThirtyTwoBitOneOnAnySlicing) {
    const std::size_t n = (std::size_t{3} << 20) + 5;
    for (const hg::Binning& binning : {hg::Binning::letters(4), hg::Binning::bytes()}) {
        const std::vector<unsigned char> bytes =
            hg::generate_input(hg::Distribution::kRandomBytes, n, 11);
        const hg::Histogram expected = hg::reference_histogram(bytes, binning);
        const auto source = hg::make_generated_source(hg::Distribution::kRandomBytes, n, 11);
        for (const std::uint64_t slice : {std::uint64_t{1} << 30, std::uint64_t{1000003}}) {
            const hg::Histogram64 result = hg::reference_histogram64(*source, binning, slice);
            ASSERT_EQ(result.size(), expected.size());
            for (std::size_t b = 0; b < expected.size(); ++b) {
                EXPECT_EQ(result[b], expected[b]) << "bin " << b << ", slice " << slice;
            }
        }
    }
    EXPECT_THROW(
        hg::reference_histogram64(*hg::make_generated_source(hg::Distribution::kUniform, 10, 1),
                                  hg::Binning::bytes(), std::uint64_t{1} << 32),
        std::invalid_argument);
}

TEST(StreamedReference, ComparisonNamesTheBinsAboveThirtyTwoBits) {
    const hg::Binning binning = hg::Binning::letters(13);  // a-m, n-z
    const hg::Histogram64 reference = {(std::uint64_t{1} << 32) + 17, 5};
    EXPECT_EQ(hg::compare_histograms64(reference, reference, binning), "");
    const hg::Histogram64 wrapped = {17, 5};  // what 32-bit counters would have kept
    const std::string detail = hg::compare_histograms64(reference, wrapped, binning);
    EXPECT_NE(detail.find("'a-m' 17 instead of 4294967313"), std::string::npos) << detail;
    EXPECT_NE(hg::compare_histograms64(reference, {1, 2, 3}, binning), "");
}

TEST(StreamedChoice, InputsAboveTheInMemoryLimitStream) {
    hg::StreamedSettings settings;  // in memory up to 2^32 - 1
    EXPECT_FALSE(hg::streams_input(settings, "", 0));
    EXPECT_FALSE(hg::streams_input(settings, "", hg::kMaxInputBytes));
    EXPECT_TRUE(hg::streams_input(settings, "", hg::kMaxInputBytes + 1));
    EXPECT_TRUE(hg::streams_input(settings, "", std::uint64_t{1} << 40));
    settings.in_memory_max = 1000;
    EXPECT_FALSE(hg::streams_input(settings, "", 1000));
    EXPECT_TRUE(hg::streams_input(settings, "", 1001));
    settings.in_memory_max = 0;  // every input streams, the empty one too
    EXPECT_TRUE(hg::streams_input(settings, "", 0));
    const std::string path = temp_path("choice.bin");
    write_file(path, std::vector<unsigned char>(1001, 'a'));
    settings.in_memory_max = 1000;
    EXPECT_TRUE(hg::streams_input(settings, path, 0)) << "the file's size decides, not --n";
    settings.in_memory_max = 1001;
    EXPECT_FALSE(hg::streams_input(settings, path, 0));
    std::remove(path.c_str());
    EXPECT_THROW(hg::streams_input(settings, "/no/such/file.bin", 0), cudatutorial::UsageError);
    settings.chunk_bytes = 0;
    EXPECT_THROW(hg::streams_input(settings, "", 10), cudatutorial::UsageError);
    settings.chunk_bytes = hg::kMaxChunkBytes + 1;
    EXPECT_THROW(hg::streams_input(settings, "", 10), cudatutorial::UsageError);
    settings.chunk_bytes = hg::kMaxChunkBytes;
    settings.in_memory_max = hg::kMaxInputBytes + 1;
    EXPECT_THROW(hg::streams_input(settings, "", 10), cudatutorial::UsageError);
}
