// The streamed path of the executable (streamed_run.hpp): an input above --in-memory-max is
// counted chunk by chunk through StreamedCounter, and the table puts the end-to-end rate next to
// the three things that can bound it, each measured in the same run: the pinned host-to-device
// copy of one chunk (the link), stage 8 on one chunk already on the device (the kernel), and the
// reader's rate while it fills the pinned buffers (the file, the page cache or the generator).
#include "streamed_run.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
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
#include "cudatutorial/wall_clock.hpp"
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

namespace {

// Options that apply to inputs counted in memory only: refused for a streamed one (exit 2).
void refuse_in_memory_options(const StreamedRequest& request) {
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
}

// The bytes a streamed run counts, and how they were prepared (the table's header says it).
struct PreparedSource {
    std::unique_ptr<ByteSource> source;
    std::string preparation = "none (the file is read inside every timed run)";
    bool generated = false;
};

// A generated input up to half the host's memory is generated once into pinned memory; a larger
// one chunk by chunk inside every timed run. `distribution` empty: the file opened already.
void generate_if_needed(PreparedSource& prepared, const std::optional<Distribution>& distribution,
                        const StreamedRequest& request) {
    if (!distribution) {
        return;
    }
    prepared.generated = true;
    if (request.n <= host_resident_limit()) {
        double generation_ms = 0;
        prepared.source =
            make_pinned_source(*distribution, request.n, request.seed, &generation_ms);
        prepared.preparation = "generated into pinned host memory in " +
                               ct::format_fixed(generation_ms / 1e3, 2) + " s (not timed)";
    } else {
        prepared.source = make_generated_source(*distribution, request.n, request.seed);
        prepared.preparation =
            "none (above half the host memory: generated inside every timed run)";
    }
}

ct::RunInfo streamed_run_info(const StreamedRequest& request, const ct::DeviceInfo& device,
                              const PreparedSource& prepared, const ChunkPlan& plan,
                              const StreamedCounter& counter, double reference_ms) {
    const std::uint64_t n = prepared.source->size();
    ct::RunInfo info =
        ct::make_run_info("histogram", "parallel histogram, streamed in chunks", device);
    info.set("input", prepared.generated ? request.dist + ", seed " + std::to_string(request.seed)
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
    info.set("source", prepared.source->describe());
    info.set("host preparation", prepared.preparation);
    info.set("reference", "64-bit, 1 GiB slices on " + std::to_string(reader_threads()) +
                              " host threads, " + ct::format_fixed(reference_ms / 1e3, 2) +
                              " s (not timed)");
    info.set("block", std::to_string(request.block));
    info.set("grid", request.grid ? std::to_string(request.grid) : "auto");
    info.set("reps", std::to_string(request.common.repetitions) + " (one chunk), " +
                         std::to_string(request.settings.reps) + " (whole input)");
    return info;
}

// What the rows measured that the columns and the note below the table compare: the rates
// (GB/s, 0 when a row is missing or was not timed), the medians of the whole-input rows, and the
// pipeline's host-side facts of their last runs.
struct StreamedRates {
    double link_gbs = 0;        // h2d: the pinned copy of one chunk
    double kernel_gbs = 0;      // kernel: stage 8 on one chunk already on the device
    double end_to_end_gbs = 0;  // streamed: the whole input, read, copied and counted
    bool copies_timed = false;
    double copies_ms = 0;
    double streamed_ms = 0;
    PipelineStats copy_stats;
    PipelineStats count_stats;
};

// A row of the streamed table, by id and name. Not a registry's stage: its idea stays empty in
// the files, as it always was.
ct::StageDescriptor named_row(const char* id, const char* name) {
    ct::StageDescriptor row;
    row.id = id;
    row.name = name;
    return row;
}

// The source's rate while it filled the pinned buffers (none for a pinned source).
std::optional<double> source_rate(const ByteSource& source, const PipelineStats& stats) {
    if (source.pinned() != nullptr || stats.fill_ms <= 0) {
        return std::nullopt;
    }
    return ct::bandwidth_gbs(static_cast<double>(source.size()), stats.fill_ms);
}

// The source's rate and how long the GPU side waited for it: the whole-input rows' columns.
void add_source_columns(ct::ResultRow& row, const ByteSource& source, const PipelineStats& stats) {
    const std::optional<double> rate = source_rate(source, stats);
    row.with("source GB/s", source.pinned() ? std::string("pinned")
                            : rate          ? ct::format_fixed(*rate, 1)
                                            : "–");
    row.with("GPU waited ms", ct::format_fixed(stats.starved_ms, 1));
}

// The columns of every row: its chunks and runs, what `middle` adds, then its rate as % of the
// pinned H2D copy's (`link_gbs`, read when the row is made: the h2d row comes first). The rows
// are measured side by side, not as a progression: no x prev or x first.
std::function<void(ct::ResultRow&)> streamed_columns(
    std::string chunks, const double& link_gbs, std::function<void(ct::ResultRow&)> middle = {}) {
    return [chunks = std::move(chunks), &link_gbs, middle = std::move(middle)](ct::ResultRow& row) {
        row.in_progression = false;
        row.with("chunks", chunks);
        row.with("runs", std::to_string(row.stats.samples));
        if (middle) {
            middle(row);
        }
        // Plain doubles, 0 when unmeasured: GCC's -Wmaybe-uninitialized misreads optionals here.
        const double gbs = row_gbs(row).value_or(0);
        row.with("% of H2D",
                 gbs > 0 && link_gbs > 0 ? ct::format_fixed(100.0 * gbs / link_gbs, 1) : "–");
    };
}

// One chunk: the link's rate from pinned memory, and the kernel's rate on the device.
void add_one_chunk_rows(ct::TableRun& table, StreamedRates& rates, StreamedCounter& counter,
                        const ByteSource& source, const ChunkPlan& plan, const Binning& binning) {
    if (plan.count() == 0) {
        return;
    }
    const auto first_length = static_cast<std::size_t>(plan.length(0));
    std::vector<unsigned char> first(first_length);
    source.read(0, first_length, first.data());
    counter.stage_first_chunk();
    const std::string one_chunk = chunks_text(1, first_length);

    ct::StageHooks copy;
    copy.launch = [&](cudaStream_t stream) { counter.copy_first_chunk(stream); };
    copy.verify = [&] {
        return counter.chunk_on_device(0) == first
                   ? ct::Verification::pass()
                   : ct::Verification::fail("chunk 0 on the device differs from the input");
    };
    copy.bytes = ct::MemoryTraffic().reads<unsigned char>(first_length);
    const auto columns = streamed_columns(one_chunk, rates.link_gbs);
    copy.extras = [&](ct::ResultRow& row) {
        rates.link_gbs = row_gbs(row).value_or(0);  // the rate every row's "% of H2D" relates to
        columns(row);
    };
    table.run(named_row("h2d", "pinned_h2d_copy"), copy);

    const Histogram first_reference = reference_histogram(first, binning);
    ct::StageHooks kernel;
    kernel.launch = [&](cudaStream_t stream) { counter.count_first_chunk(stream); };
    kernel.verify = [&] {
        const Comparison comparison =
            compare_histograms(first_reference, counter.first_chunk_counts(), binning);
        return comparison.equal ? ct::Verification::pass()
                                : ct::Verification::fail(comparison.detail);
    };
    kernel.bytes = ct::MemoryTraffic().reads<unsigned char>(first_length);
    kernel.extras = streamed_columns(one_chunk, rates.link_gbs);
    rates.kernel_gbs =
        row_gbs(table.run(named_row("kernel", "stage8_one_chunk"), kernel)).value_or(0);
}

// The whole input: copies alone, then copies and counting, timed `reps` times. These runs wait
// on the host for the reader, so the stream must not be held while they are queued
// (benchmark.hpp).
void add_whole_input_rows(ct::TableRun& table, StreamedRates& rates, StreamedCounter& counter,
                          const ByteSource& source, const ChunkPlan& plan,
                          const Histogram64& reference, const Binning& binning, int reps) {
    const std::uint64_t n = source.size();
    const std::string all_chunks = chunks_text(plan.count(), plan.buffer_bytes());
    const auto whole_input_timing = [reps](ct::BenchmarkConfig& config) {
        config.repetitions = reps;
        config.warmup = std::min(config.warmup, 1);
        config.hold_stream = false;
    };

    ct::StageHooks copies;
    copies.adjust_timing = whole_input_timing;
    copies.launch = [&](cudaStream_t stream) { rates.copy_stats = counter.run(stream, false); };
    copies.verify = [&] {
        // The last two chunks are still in the two device buffers.
        for (std::uint64_t i = plan.count() > 2 ? plan.count() - 2 : 0; i < plan.count(); ++i) {
            std::vector<unsigned char> expected(static_cast<std::size_t>(plan.length(i)));
            source.read(plan.offset(i), expected.size(), expected.data());
            if (counter.chunk_on_device(i) != expected) {
                return ct::Verification::fail("chunk " + std::to_string(i) +
                                              " on the device differs from the input");
            }
        }
        return ct::Verification::pass();
    };
    copies.bytes = ct::MemoryTraffic().reads<unsigned char>(n);
    copies.extras = streamed_columns(all_chunks, rates.link_gbs, [&](ct::ResultRow& row) {
        add_source_columns(row, source, rates.copy_stats);
    });
    const ct::ResultRow& copies_row =
        table.run(named_row("copies", "streamed_copies_only"), copies);
    rates.copies_timed = copies_row.timed;
    rates.copies_ms = copies_row.stats.median_ms;

    ct::StageHooks streamed;
    streamed.adjust_timing = whole_input_timing;
    streamed.poison = [&] { counter.poison_totals(); };
    streamed.launch = [&](cudaStream_t stream) { rates.count_stats = counter.run(stream, true); };
    streamed.verify = [&] {
        const std::string detail = compare_histograms64(reference, counter.totals(), binning);
        return detail.empty() ? ct::Verification::pass() : ct::Verification::fail(detail);
    };
    streamed.bytes = ct::MemoryTraffic().reads<unsigned char>(n);
    streamed.extras = streamed_columns(all_chunks, rates.link_gbs, [&](ct::ResultRow& row) {
        add_source_columns(row, source, rates.count_stats);
    });
    const ct::ResultRow& streamed_row =
        table.run(named_row("streamed", "streamed_end_to_end"), streamed);
    rates.end_to_end_gbs = row_gbs(streamed_row).value_or(0);
    rates.streamed_ms = streamed_row.stats.median_ms;
}

// What bounds the end-to-end rate, the slowest of source, link and kernel: a note under the
// table (in every format); empty when a rate is missing.
std::string bound_note(const StreamedRates& rates, const ByteSource& source, bool generated) {
    const double end_to_end = rates.end_to_end_gbs;
    const double link_gbs = rates.link_gbs;
    const double kernel_gbs = rates.kernel_gbs;
    const double filled = source_rate(source, rates.count_stats).value_or(0);
    if (end_to_end <= 0 || link_gbs <= 0 || kernel_gbs <= 0) {
        return {};
    }
    std::ostringstream note;
    note << "End to end " << gbs_text(end_to_end) << " = "
         << ct::format_fixed(100.0 * end_to_end / link_gbs, 1) << "% of the pinned H2D copy ("
         << gbs_text(link_gbs) << ", one chunk); kernel alone " << gbs_text(kernel_gbs);
    if (filled > 0) {
        note << "; the source filled the pinned buffers at " << gbs_text(filled)
             << " (the GPU side waited " << ct::format_fixed(rates.count_stats.starved_ms, 1)
             << " ms for it)";
    }
    if (rates.copies_timed && rates.copies_ms > 0) {
        note << ". Total time = " << ct::format_fixed(rates.streamed_ms / rates.copies_ms, 3)
             << "x the copies alone.";
    }
    std::string bound = "the link (host-to-device copies)";
    double slowest = link_gbs;
    if (kernel_gbs < slowest) {
        bound = "the kernel";
        slowest = kernel_gbs;
    }
    if (filled > 0 && filled < slowest) {
        bound = generated ? "the host generator" : "reading the file";
    }
    note << " Bounded by " << bound << ".";
    return note.str();
}

void print_totals(const Histogram64& totals, const Binning& binning) {
    std::cout << "\nTotals (64-bit):";
    for (int b = 0; b < binning.bins() && b < 32; ++b) {
        std::cout << (b % 8 ? "  " : "\n  ") << binning.label(b) << " "
                  << totals[static_cast<std::size_t>(b)];
    }
    std::cout << (binning.bins() > 32 ? "\n  ...\n" : "\n");
}

}  // namespace

int run_streamed(const StreamedRequest& request) {
    refuse_in_memory_options(request);
    PreparedSource prepared;
    std::optional<Distribution> distribution;
    if (!request.input_path.empty()) {
        prepared.source = open_file_source(request.input_path);  // unreadable: exit 2 first
    } else {
        distribution = parse_distribution(request.dist);
    }
    const ct::DeviceInfo device = ct::select_device(request.common.device);
    ct::require_block_size(request.block, device);
    generate_if_needed(prepared, distribution, request);
    const ByteSource& source = *prepared.source;
    const ChunkPlan plan(source.size(), request.settings.chunk_bytes);
    ct::require_device_memory(
        static_cast<std::size_t>(2 * plan.buffer_bytes()) + (1 << 20),
        "two device buffers of --chunk " + std::to_string(request.settings.chunk_bytes) + " bytes");

    const auto reference_start = std::chrono::steady_clock::now();
    const Histogram64 reference = reference_histogram64(source, request.binning);
    const double reference_ms = cudatutorial::ms_since(reference_start);
    StreamedCounter counter(*prepared.source, request.settings.chunk_bytes, request.binning,
                            request.block, request.grid);
    ct::TableRun table(streamed_run_info(request, device, prepared, plan, counter, reference_ms),
                       request.common);

    StreamedRates rates;
    add_one_chunk_rows(table, rates, counter, source, plan, request.binning);
    add_whole_input_rows(table, rates, counter, source, plan, reference, request.binning,
                         request.settings.reps);
    if (const std::string note = bound_note(rates, source, prepared.generated); !note.empty()) {
        table.add_note(note);
    }
    const int status = table.finish();
    print_totals(reference, request.binning);
    return status;
}

}  // namespace histogram
