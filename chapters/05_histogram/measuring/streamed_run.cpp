// The streamed path of the executable (streamed_run.hpp): an input above --in-memory-max is
// counted chunk by chunk through StreamedCounter, and the table puts the end-to-end rate next to
// the three things that can bound it, each measured in the same run: the pinned host-to-device
// copy of one chunk (the link), stage 8 on one chunk already on the device (the kernel), and the
// reader's rate while it fills the pinned buffers (the file, the page cache or the generator).
#include "streamed_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "streamed_pipeline.hpp"
#include "streamed_source.hpp"

namespace histogram {

namespace ct = cudatutorial;

namespace {

// A generated input up to half the host's memory is generated once into pinned memory (the
// "already in host memory" case); a larger one is generated chunk by chunk as it streams.
std::uint64_t host_resident_limit() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0
               ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 2
               : 0;
}

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

std::string chunks_text(std::uint64_t count, std::uint64_t chunk_bytes) {
    return std::to_string(count) + " x " + ct::format_bytes(static_cast<double>(chunk_bytes));
}

std::string gbs_text(double gbs) {
    return ct::format_fixed(gbs, 1) + " GB/s";
}

std::optional<double> row_gbs(const ct::ResultRow& row) {
    if (!row.timed || row.stats.median_ms <= 0 || row.bytes <= 0) {
        return std::nullopt;
    }
    return ct::bandwidth_gbs(row.bytes, row.stats.median_ms);
}

}  // namespace

void add_streamed_options(CLI::App& app, StreamedSettings& settings) {
    ct::add_size_option(app, "--chunk", settings.chunk_bytes,
                        "bytes per chunk of a streamed input (1 to 2^31; two device buffers and "
                        "three pinned host buffers of this size)");
    ct::add_size_option(app, "--in-memory-max", settings.in_memory_max,
                        "inputs up to this size are copied to the device whole and run through "
                        "every stage; larger ones are streamed in chunks through stage 8 (0: "
                        "stream every input; at most 2^32 - 1)");
    app.add_option("--stream-reps", settings.reps, "timed runs of each streamed row")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
}

bool streams_input(const StreamedSettings& settings, const std::string& input_path,
                   std::uint64_t n) {
    ct::require_range(settings.chunk_bytes, 1, kMaxChunkBytes, "--chunk");
    ct::require_range(settings.in_memory_max, 0, kMaxInputBytes, "--in-memory-max");
    const std::uint64_t bytes = input_path.empty() ? n : input_file_size(input_path);
    // 0 streams every input, the empty one too (it streams as zero chunks: an all-zero histogram).
    return bytes > settings.in_memory_max || settings.in_memory_max == 0;
}

int run_streamed(const StreamedRequest& request) {
    if (request.stages_given) {
        throw ct::UsageError(
            "--stage",
            "an input above --in-memory-max is streamed in chunks and counted by stage " +
                std::string(kStreamedStageId) +
                " only; leave --stage out or raise --in-memory-max");
    }
    if (request.atomic_latency) {
        throw ct::UsageError("--atomic-latency",
                             "applies to inputs counted in memory (up to --in-memory-max)");
    }
    std::unique_ptr<ByteSource> source;
    std::optional<Distribution> distribution;
    if (!request.input_path.empty()) {
        source = open_file_source(request.input_path);  // unreadable: exit 2 before the GPU
    } else {
        distribution = parse_distribution(request.dist);
    }

    const ct::DeviceInfo device = ct::select_device(request.common.device);
    ct::require_block_size(request.block, device);

    std::string preparation = "none (the file is read inside every timed run)";
    if (distribution) {
        if (request.n <= host_resident_limit()) {
            double generation_ms = 0;
            source = make_pinned_source(*distribution, request.n, request.seed, &generation_ms);
            preparation = "generated into pinned host memory in " +
                          ct::format_fixed(generation_ms / 1e3, 2) + " s (not timed)";
        } else {
            source = make_generated_source(*distribution, request.n, request.seed);
            preparation = "none (above half the host memory: generated inside every timed run)";
        }
    }
    const std::uint64_t n = source->size();
    const ChunkPlan plan(n, request.settings.chunk_bytes);
    ct::require_device_memory(
        static_cast<std::size_t>(2 * plan.buffer_bytes()) + (1 << 20),
        "two device buffers of --chunk " + std::to_string(request.settings.chunk_bytes) + " bytes");

    const auto reference_start = std::chrono::steady_clock::now();
    const Histogram64 reference = reference_histogram64(*source, request.binning);
    const double reference_ms = ms_since(reference_start);

    StreamedCounter counter(*source, request.settings.chunk_bytes, request.binning, request.block,
                            request.grid);

    ct::RunInfo info =
        ct::make_run_info("histogram", "parallel histogram, streamed in chunks", device);
    info.set("input", distribution ? request.dist + ", seed " + std::to_string(request.seed)
                                   : "file " + request.input_path);
    info.set("bytes", ct::describe_size(n));
    info.set("bins", request.binning.describe());
    info.set("chunks", plan.count() == 0
                           ? "none (empty input)"
                           : chunks_text(plan.count(), plan.buffer_bytes()) +
                                 (plan.length(plan.count() - 1) != plan.buffer_bytes()
                                      ? ", the last " +
                                            std::to_string(plan.length(plan.count() - 1)) + " bytes"
                                      : ""));
    info.set("pipeline", "stage " + std::string(kStreamedStageId) +
                             " per chunk, 2 non-blocking streams, 2 device buffers, " +
                             (counter.pinned_slots()
                                  ? std::to_string(counter.pinned_slots()) + " pinned host buffers"
                                  : std::string("no staging")) +
                             ", 64-bit totals");
    info.set("source", source->describe());
    info.set("host preparation", preparation);
    info.set("reference", "64-bit, 1 GiB slices on " + std::to_string(reader_threads()) +
                              " host threads, " + ct::format_fixed(reference_ms / 1e3, 2) +
                              " s (not timed)");
    info.set("block", std::to_string(request.block));
    info.set("grid", request.grid ? std::to_string(request.grid) : "auto");
    info.set("reps", std::to_string(request.common.repetitions) + " (one chunk), " +
                         std::to_string(request.settings.reps) + " (whole input)");
    ct::TableRun table(info, request.common);

    // This section teaches its own timing (a pipeline, not stages): measure() and make_row(),
    // then the rows go into the table with the columns that compare them.
    std::vector<ct::ResultRow> rows;
    rows.reserve(4);  // add_row returns pointers into it
    const auto add_row = [&](const std::string& id, const std::string& name,
                             const ct::Measurement& measurement, double bytes,
                             const std::string& chunks) {
        ct::ResultRow row = ct::make_row(id, name, measurement, bytes);
        row.in_progression = false;
        row.with("chunks", chunks);
        row.with("runs", std::to_string(measurement.stats.samples));
        rows.push_back(std::move(row));
        return &rows.back();
    };
    const ct::BenchmarkConfig chunk_config = table.options().benchmark_config();

    // One chunk: the link's rate from pinned memory, and the kernel's rate on the device.
    if (plan.count() > 0) {
        const auto first_length = static_cast<std::size_t>(plan.length(0));
        std::vector<unsigned char> first(first_length);
        source->read(0, first_length, first.data());
        counter.stage_first_chunk();
        const ct::Measurement copy = ct::measure(
            [&](cudaStream_t stream) { counter.copy_first_chunk(stream); },
            [&] {
                return counter.chunk_on_device(0) == first
                           ? ct::Verification::pass()
                           : ct::Verification::fail("chunk 0 on the device differs from the input");
            },
            chunk_config);
        add_row("h2d", "pinned_h2d_copy", copy, static_cast<double>(first_length),
                chunks_text(1, first_length));

        const Histogram first_reference = reference_histogram(first, request.binning);
        const ct::Measurement kernel =
            ct::measure([&](cudaStream_t stream) { counter.count_first_chunk(stream); },
                        [&] {
                            const Comparison comparison = compare_histograms(
                                first_reference, counter.first_chunk_counts(), request.binning);
                            return comparison.equal ? ct::Verification::pass()
                                                    : ct::Verification::fail(comparison.detail);
                        },
                        chunk_config);
        add_row("kernel", "stage8_one_chunk", kernel, static_cast<double>(first_length),
                chunks_text(1, first_length));
    }

    // The whole input: copies alone, then copies and counting. These runs wait on the host for
    // the reader, so the stream must not be held while they are queued (benchmark.hpp).
    ct::BenchmarkConfig whole_config = chunk_config;
    whole_config.repetitions = request.settings.reps;
    whole_config.warmup = std::min(chunk_config.warmup, 1);
    whole_config.hold_stream = false;
    const std::string all_chunks = chunks_text(plan.count(), plan.buffer_bytes());

    PipelineStats copy_stats;
    const ct::Measurement copies = ct::measure(
        [&](cudaStream_t stream) { copy_stats = counter.run(stream, false); },
        [&] {
            // The last two chunks are still in the two device buffers.
            for (std::uint64_t i = plan.count() > 2 ? plan.count() - 2 : 0; i < plan.count(); ++i) {
                std::vector<unsigned char> expected(static_cast<std::size_t>(plan.length(i)));
                source->read(plan.offset(i), expected.size(), expected.data());
                if (counter.chunk_on_device(i) != expected) {
                    return ct::Verification::fail("chunk " + std::to_string(i) +
                                                  " on the device differs from the input");
                }
            }
            return ct::Verification::pass();
        },
        whole_config);
    ct::ResultRow* copies_row =
        add_row("copies", "streamed_copies_only", copies, static_cast<double>(n), all_chunks);

    counter.poison_totals();
    PipelineStats count_stats;
    const ct::Measurement streamed = ct::measure(
        [&](cudaStream_t stream) { count_stats = counter.run(stream, true); },
        [&] {
            const std::string detail =
                compare_histograms64(reference, counter.totals(), request.binning);
            return detail.empty() ? ct::Verification::pass() : ct::Verification::fail(detail);
        },
        whole_config);
    ct::ResultRow* streamed_row =
        add_row("streamed", "streamed_end_to_end", streamed, static_cast<double>(n), all_chunks);

    const auto source_rate = [&](const PipelineStats& stats) -> std::optional<double> {
        if (source->pinned() != nullptr || stats.fill_ms <= 0) {
            return std::nullopt;
        }
        return ct::bandwidth_gbs(static_cast<double>(n), stats.fill_ms);
    };
    for (auto [row, stats] : {std::pair{copies_row, &copy_stats}, {streamed_row, &count_stats}}) {
        const std::optional<double> rate = source_rate(*stats);
        row->with("source GB/s", source->pinned() ? std::string("pinned")
                                 : rate           ? ct::format_fixed(*rate, 1)
                                                  : "–");
        row->with("GPU waited ms", ct::format_fixed(stats->starved_ms, 1));
    }
    // Plain doubles, 0 when unmeasured: GCC's -Wmaybe-uninitialized misreads optionals here.
    const double link_gbs = rows.size() == 4 ? row_gbs(rows[0]).value_or(0) : 0;
    for (ct::ResultRow& row : rows) {
        const double gbs = row_gbs(row).value_or(0);
        row.with("% of H2D",
                 gbs > 0 && link_gbs > 0 ? ct::format_fixed(100.0 * gbs / link_gbs, 1) : "–");
    }
    for (ct::ResultRow& row : rows) {
        table.add(row);
    }

    // What bounds the end-to-end rate, the slowest of source, link and kernel: a note under the
    // table (in every format).
    const double end_to_end = row_gbs(*streamed_row).value_or(0);
    const double kernel_gbs = rows.size() == 4 ? row_gbs(rows[1]).value_or(0) : 0;
    const double filled = source_rate(count_stats).value_or(0);
    if (end_to_end > 0 && link_gbs > 0 && kernel_gbs > 0) {
        std::ostringstream out;
        out << "End to end " << gbs_text(end_to_end) << " = "
            << ct::format_fixed(100.0 * end_to_end / link_gbs, 1) << "% of the pinned H2D copy ("
            << gbs_text(link_gbs) << ", one chunk); kernel alone " << gbs_text(kernel_gbs);
        if (filled > 0) {
            out << "; the source filled the pinned buffers at " << gbs_text(filled)
                << " (the GPU side waited " << ct::format_fixed(count_stats.starved_ms, 1)
                << " ms for it)";
        }
        if (copies_row->timed && copies_row->stats.median_ms > 0) {
            out << ". Total time = "
                << ct::format_fixed(streamed_row->stats.median_ms / copies_row->stats.median_ms, 3)
                << "x the copies alone.";
        }
        std::string bound = "the link (host-to-device copies)";
        double slowest = link_gbs;
        if (kernel_gbs < slowest) {
            bound = "the kernel";
            slowest = kernel_gbs;
        }
        if (filled > 0 && filled < slowest) {
            bound = request.input_path.empty() ? "the host generator" : "reading the file";
        }
        out << " Bounded by " << bound << ".";
        table.add_note(out.str());
    }
    const int status = table.finish();
    std::cout << "\nTotals (64-bit):";
    for (int b = 0; b < request.binning.bins() && b < 32; ++b) {
        std::cout << (b % 8 ? "  " : "\n  ") << request.binning.label(b) << " "
                  << reference[static_cast<std::size_t>(b)];
    }
    std::cout << (request.binning.bins() > 32 ? "\n  ...\n" : "\n");
    return status;
}

}  // namespace histogram
