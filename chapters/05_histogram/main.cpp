// Chapter 5, the parallel histogram: from global atomics to privatized, vectorized,
// bank-conflict-free shared-memory histograms, against CUB. Host code only: the kernels are in
// stages/*.cu, reached through histogram.hpp.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "adaptive_counts.hpp"
#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/sections.hpp"
#include "cudatutorial/table_run.hpp"
#include "histogram.hpp"
#include "streamed_run.hpp"
#include "wide_histogram.hpp"
#include "wide_section.hpp"

namespace ct = cudatutorial;
namespace hg = histogram;

namespace {

struct Options {
    ct::CommonOptions common;
    std::string bins = "letters";
    int bin_width = 4;
    bool bin_width_given = false;
    std::string input_path;
    std::string dist = "uniform";
    std::uint64_t n = std::uint64_t{1} << 28;
    std::uint64_t seed = ct::kDefaultSeed;
    std::vector<std::string> stages;
    int block = 256;
    int grid = 0;
    int slow_reps = 3;
    bool atomic_latency = false;
    hg::StreamedSettings streamed;  // --chunk, --in-memory-max, --stream-reps
    // --section: none named runs the stages, then the wide section when no stages-only option
    // was given.
    std::vector<std::string> sections;
    std::vector<int> wide_bins{65536};
    bool n_given = false;
    bool wide_bins_given = false;
};

std::string with_commas(std::uint64_t value) {
    std::string digits = std::to_string(value);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
        digits.insert(static_cast<std::size_t>(i), ",");
    }
    return digits;
}

// The histogram as a text bar chart; 256 byte bins are shown 16 values per line.
void print_chart(std::ostream& out, const hg::Histogram& counts, const hg::Binning& binning,
                 std::uint64_t n) {
    std::vector<std::pair<std::string, std::uint64_t>> lines;
    if (binning.bins() <= 32) {
        for (int b = 0; b < binning.bins(); ++b) {
            lines.emplace_back(binning.label(b), counts[static_cast<std::size_t>(b)]);
        }
    } else {
        for (int first = 0; first < binning.bins(); first += 16) {
            std::uint64_t sum = 0;
            for (int b = first; b < first + 16; ++b) {
                sum += counts[static_cast<std::size_t>(b)];
            }
            lines.emplace_back(binning.label(first) + "-" + binning.label(first + 15).substr(2),
                               sum);
        }
    }
    std::uint64_t largest = 1;
    for (const auto& line : lines) {
        largest = std::max(largest, line.second);
    }
    const std::uint64_t total = hg::total_count(counts);
    out << "\nHistogram of the input (" << with_commas(n) << " bytes, " << with_commas(total)
        << " counted, " << binning.describe() << ")\n";
    std::size_t label_width = 0;
    std::size_t count_width = 0;
    for (const auto& line : lines) {
        label_width = std::max(label_width, line.first.size());
        count_width = std::max(count_width, with_commas(line.second).size());
    }
    for (const auto& line : lines) {
        constexpr int kBarWidth = 50;
        const int bar = static_cast<int>(
            (static_cast<double>(line.second) * kBarWidth + largest / 2) / largest);
        char percent[16];
        std::snprintf(percent, sizeof percent, "%5.1f%%",
                      total ? 100.0 * static_cast<double>(line.second) / total : 0.0);
        std::string count = with_commas(line.second);
        out << "  " << line.first << std::string(label_width - line.first.size(), ' ') << " "
            << std::string(count_width - count.size(), ' ') << count << " " << percent << " "
            << std::string(static_cast<std::size_t>(bar), '#') << "\n";
    }
}

void print_atomic_arithmetic(std::ostream& out, const hg::AtomicLatency& latency,
                             const ct::ResultTable& table, const hg::Histogram& reference,
                             const ct::DeviceInfo& device) {
    const auto used_bins = static_cast<int>(
        std::count_if(reference.begin(), reference.end(), [](unsigned c) { return c != 0; }));
    const std::uint64_t atomics = hg::total_count(reference);
    char line[256];
    out << "\nAtomic latency, one thread, each atomicAdd waiting for the previous one ("
        << latency.iterations << " in a row):\n";
    std::snprintf(line, sizeof line,
                  "  same address (stays in L2):        %7.1f ns = %6.0f SM cycles\n"
                  "  scattered over %s (mostly DRAM): %7.1f ns = %6.0f SM cycles\n",
                  latency.same_address_ns, latency.same_address_cycles,
                  ct::format_bytes(static_cast<double>(latency.scattered_bytes)).c_str(),
                  latency.scattered_ns, latency.scattered_cycles);
    out << line;
    std::snprintf(line, sizeof line,
                  "  shared-memory counter (ATOMS):     %7.1f ns = %6.0f SM cycles\n"
                  "  plain shared loads, same chain:    %7.1f ns = %6.0f SM cycles\n",
                  latency.shared_atomic_ns, latency.shared_atomic_cycles, latency.shared_load_ns,
                  latency.shared_load_cycles);
    out << line;
    out << "The seed's model: an address completes one atomic per latency, so\n";
    for (const auto& [what, ns] : {std::pair<const char*, double>{"L2", latency.same_address_ns},
                                   {"DRAM", latency.scattered_ns}}) {
        const double per_bin = 1e9 / ns;
        std::snprintf(line, sizeof line,
                      "  %-4s latency: %8.2f M atomics/s per bin, x %d bins used = %8.2f M/s: "
                      "%s counted bytes would take %.3f s\n",
                      what, per_bin / 1e6, std::max(used_bins, 1),
                      per_bin * std::max(used_bins, 1) / 1e6, with_commas(atomics).c_str(),
                      atomics / (per_bin * std::max(used_bins, 1)));
        out << line;
    }
    for (std::size_t i = 0; i < table.rows().size(); ++i) {
        const ct::ResultRow& row = table.rows()[i];
        // The stages with one global atomic per byte (slow) that count correctly (not the race).
        const hg::Stage* stage = hg::find_stage(row.id);
        const bool global_atomics =
            stage && stage->slow && stage->role == ct::StageRole::kProgression;
        if (global_atomics && row.timed && row.stats.median_ms > 0) {
            const double per_second = atomics / (row.stats.median_ms * 1e-3);
            std::snprintf(line, sizeof line,
                          "Measured, stage %s: %.3f ms = %.2f G atomics/s, %.3f G/s per used bin "
                          "(%.2f ns per atomic per bin, %.1f SM clocks at %.0f MHz)\n",
                          row.id.c_str(), row.stats.median_ms, per_second / 1e9,
                          per_second / std::max(used_bins, 1) / 1e9,
                          1e9 * std::max(used_bins, 1) / per_second,
                          device.sm_clock_khz * 1e-6 * 1e9 * std::max(used_bins, 1) / per_second,
                          device.sm_clock_khz / 1e3);
            out << line;
        }
    }
}

// --section wide: 16-bit values, up to 65,536 bins (measuring/wide_section.cpp). Byte-only
// options are refused rather than ignored.
void refuse_byte_only_options(const Options& options) {
    const char* byte_only = options.bins != "letters"     ? "--bins"
                            : options.bin_width_given     ? "--bin-width"
                            : !options.input_path.empty() ? "--input"
                            : options.atomic_latency      ? "--atomic-latency"
                                                          : nullptr;
    if (byte_only != nullptr) {
        throw ct::UsageError(byte_only,
                             "applies to --section stages (bytes); --section wide takes "
                             "--wide-bins");
    }
}

int run_wide(const Options& options) {
    refuse_byte_only_options(options);
    hg::WideSectionOptions wide;
    wide.common = options.common;
    wide.bins = options.wide_bins;
    wide.dist = options.dist;
    if (options.n_given) {
        wide.n = options.n;
    }
    wide.seed = options.seed;
    wide.kernels = options.stages;
    wide.block = options.block;
    wide.grid = options.grid;
    wide.slow_reps = options.slow_reps;
    return hg::run_wide_section(wide);
}

// Why `--section all` runs the stages only, or "" when the wide section follows them: options
// that mean something else (or nothing) to 16-bit values keep the run to the byte histograms.
std::string why_stages_only(const Options& options) {
    if (options.bins != "letters" || options.bin_width_given || !options.input_path.empty() ||
        options.atomic_latency || options.n_given || !options.stages.empty()) {
        return "--bins, --bin-width, --input, --atomic-latency, --n and --stage describe the "
               "byte stages";
    }
    try {
        hg::parse_wide_distribution(options.dist);
    } catch (const std::invalid_argument&) {
        return "--dist " + options.dist + " has no 16-bit form";
    }
    return "";
}

int run_stages(const Options& options);

// What the sections of one run share: the options, and the sections asked for.
struct Run {
    const Options& o;
    std::vector<std::string> sections;
};

const ct::SectionTable<Run>& section_table();

int stages_section(Run& r) {
    Options stages = r.o;
    stages.common = section_table().files_for(r.o.common, r.sections, "stages");
    return run_stages(stages);
}

int wide_section(Run& r) {
    Options wide = r.o;
    wide.common = section_table().files_for(r.o.common, r.sections, "wide");
    if (section_table().wanted(r.sections, "stages")) {
        std::cout << "\n";
    }
    return run_wide(wide);
}

const ct::SectionTable<Run>& section_table() {
    using ct::section;
    static const ct::SectionTable<Run> table({
        section<Run>("stages", "the byte histograms: stages 1-8 and CUB (--stage, --bins)",
                     stages_section),
        section<Run>("wide",
                     "16-bit values into up to 65,536 bins: global atomics, privatization, "
                     "thread-block clusters, CUB (--wide-bins)",
                     wide_section),
    });
    return table;
}

int run(const Options& options) {
    if (options.stages == std::vector<std::string>{"list"}) {  // registry information: no GPU
        return ct::list_stages(
            options.common, "histogram",
            {{"Byte stages (--section stages)", ct::descriptors(hg::stages())},
             {"Wide kernels (--section wide)", ct::descriptors(hg::wide_kernels())}});
    }
    // One warp to 1,024 threads, the limit of every GPU, is known without a device: --block 16
    // or 2048 exits with 2 on a machine without a GPU too. The device's own limit is checked
    // once it is open.
    ct::require_power_of_two_block(options.block);
    Run r{options, options.sections};
    const bool wide = section_table().wanted(r.sections, "wide");
    const bool stages = section_table().wanted(r.sections, "stages");
    // No --section: a stages-only option keeps the run to the stages, and says so.
    const std::string stages_only =
        options.sections.empty() ? why_stages_only(options) : std::string();
    if (stages && !wide && options.wide_bins_given) {
        throw ct::UsageError("--wide-bins",
                             "applies to the wide section, which does not run here (--section "
                             "stages)");
    }
    if (!stages_only.empty()) {
        if (options.wide_bins_given) {
            throw ct::UsageError("--wide-bins",
                                 "applies to the wide section, which does not run "
                                 "here (" +
                                     stages_only + ")");
        }
        r.sections = {"stages"};
    }
    if (section_table().wanted(r.sections, "wide")) {
        refuse_byte_only_options(options);  // before the stages run, not after
    }
    const int status = section_table().run(r.sections, r);
    if (!stages_only.empty()) {
        std::cout << "\nThe wide section (16-bit values, up to 65,536 bins) did not run: "
                  << stages_only << "; run it with --section wide.\n";
    }
    return status;
}

// Stage 8 chooses its counters for this GPU and binning: a short tuning pass on this input,
// before any table row (measuring/adaptive_counts.hpp). The header says what it chose and why, and
// the workspace that every row's launch gets hands the choice to stage 8.
void tune_stage8(const hg::StageArgs& args, ct::RunInfo& info) {
    const hg::adaptive::TuningResult tuning = hg::adaptive::tune_raw_byte_counts(args);
    info.set("stage 8 runs", hg::adaptive::describe_variant(tuning.choice.variant));
    info.set("stage 8 why", tuning.choice.why + "; " + tuning.derived.why);
    info.set("stage 8 candidates (ms)", tuning.table);
    args.workspace->raw_count_variant = tuning.choice.variant;
    args.workspace->raw_count_binning = args.binning;
}

// The header of the stages' table: the input, its size, the binning, the launch shape, the runs.
ct::RunInfo stages_run_info(const Options& options, const ct::DeviceInfo& device,
                            const std::string& source, std::size_t n, const hg::Binning& binning) {
    ct::RunInfo info = ct::make_run_info("histogram", "parallel histogram", device);
    info.set("input", source);
    info.set("bytes", ct::describe_size(n));
    info.set("bins", binning.describe());
    info.set("block", std::to_string(options.block));
    info.set("grid", options.grid ? std::to_string(options.grid) : "auto (SMs x resident blocks)");
    info.set("reps", std::to_string(options.common.repetitions) + " (stages 1, 2, race: " +
                         std::to_string(std::min(options.slow_reps, options.common.repetitions)) +
                         ")");
    return info;
}

// How one stage runs in the table: launched on the shared arguments (`shape` keeps what the
// launch used), checked bin by bin against the CPU reference (the race demonstration is never
// presented as passing), the input's bytes for GB/s, its columns.
ct::StageHooks byte_stage_hooks(const hg::Stage& stage, const hg::StageArgs& args,
                                const hg::Histogram& reference,
                                ct::DeviceBuffer<unsigned int>& d_histogram, int slow_reps,
                                hg::LaunchShape& shape) {
    ct::StageHooks hooks;
    if (stage.slow) {
        hooks.adjust_timing = [slow_reps](ct::BenchmarkConfig& config) {
            config.repetitions = std::min(config.repetitions, slow_reps);
            config.warmup = std::min(config.warmup, 1);
        };
    }
    // A forgotten bin cannot look right.
    hooks.poison = [&d_histogram] { d_histogram.fill_bytes(0xff); };
    hooks.launch = [&stage, args, &shape](cudaStream_t stream) {
        shape = stage.launch(args, stream);
    };
    const bool race_demo = stage.role == ct::StageRole::kExpectedFailure;
    hooks.verify = [&reference, &d_histogram, binning = args.binning, race_demo]() {
        const hg::Comparison comparison =
            hg::compare_histograms(reference, d_histogram.to_host(), binning);
        if (race_demo) {  // never presented as passing, even when nothing was lost
            return ct::Verification::fail(
                comparison.equal ? std::string("no count lost this time (a race does not "
                                               "always show, which is what makes it "
                                               "dangerous)")
                                 : comparison.detail);
        }
        return comparison.equal ? ct::Verification::pass()
                                : ct::Verification::fail(comparison.detail);
    };
    hooks.bytes = ct::MemoryTraffic().reads<unsigned char>(args.n);
    hooks.extras = [&shape](ct::ResultRow& row) {
        row.with("grid x block", shape.describe());
        row.with("runs", std::to_string(row.stats.samples));
    };
    return hooks;
}

int run_stages(const Options& options) {
    // Everything that can be checked without a GPU first: bad input exits with 2.
    if (options.bins == "bytes" && options.bin_width_given) {
        throw ct::UsageError("--bin-width", "applies to --bins letters only (bytes have 256 bins)");
    }
    const hg::Binning binning =
        options.bins == "bytes" ? hg::Binning::bytes() : hg::Binning::letters(options.bin_width);
    const std::vector<const hg::Stage*> selected =
        ct::select_stages(hg::stages(), options.stages, "--stage");
    // Inputs above --in-memory-max (2^32 - 1 by default) stream through stage 8 in chunks.
    if (hg::streams_input(options.streamed, options.input_path, options.n)) {
        return hg::run_streamed({binning, options.input_path, options.dist, options.n, options.seed,
                                 options.block, options.grid, options.common, options.streamed,
                                 !options.stages.empty(), options.atomic_latency});
    }
    std::vector<unsigned char> host;
    std::string source;
    if (!options.input_path.empty()) {  // read before the device: a bad file exits with 2
        host = hg::read_input_file(options.input_path);
        source = "file " + options.input_path;
    }

    const ct::DeviceInfo device = ct::select_device(options.common.device);
    ct::require_block_size(options.block, device);

    if (options.input_path.empty()) {
        const hg::Distribution distribution = hg::parse_distribution(options.dist);
        host = hg::generate_input(distribution, options.n, options.seed);
        source = options.dist + ", seed " + std::to_string(options.seed);
    }
    const std::size_t n = host.size();
    const hg::Histogram reference = hg::reference_histogram(host, binning);

    ct::require_device_memory(n + static_cast<std::size_t>(binning.bins()) * 4 + (64 << 20),
                              "the input, the histogram and CUB's workspace");
    ct::DeviceBuffer<unsigned char> d_input(host);
    ct::DeviceBuffer<unsigned int> d_histogram(static_cast<std::size_t>(binning.bins()));
    hg::Workspace workspace;

    ct::RunInfo info = stages_run_info(options, device, source, n, binning);
    const hg::StageArgs args{d_input.data(), n,         d_histogram.data(), binning, options.block,
                             options.grid,   &workspace};
    if (std::any_of(selected.begin(), selected.end(),
                    [](const hg::Stage* s) { return s->uses_tuner; })) {
        tune_stage8(args, info);
    }
    ct::TableRun table(info, options.common);
    table.set_baseline("cub", "CUB");
    for (const hg::Stage* stage : selected) {
        hg::LaunchShape shape;
        table.run(hg::descriptor_for(*stage, binning),
                  byte_stage_hooks(*stage, args, reference, d_histogram, options.slow_reps, shape));
    }

    const int status = table.finish();
    print_chart(std::cout, reference, binning, n);
    if (options.atomic_latency) {
        print_atomic_arithmetic(std::cout, hg::measure_atomic_latency(), table.table(), reference,
                                device);
    }
    return status;
}

void add_options(CLI::App& app, Options& o) {
    app.add_option("--bins", o.bins,
                   "letters: 'a'-'z' in groups of --bin-width, other bytes ignored; bytes: 256 "
                   "bins, one per byte value")
        ->check(CLI::IsMember({"letters", "bytes"}))
        ->capture_default_str();
    app.add_option("--bin-width", o.bin_width, "letters per bin with --bins letters (1-26)")
        ->check(CLI::Range(1, 26))
        ->each([&o](const std::string&) { o.bin_width_given = true; })
        ->capture_default_str();
    auto* input = app.add_option("--input", o.input_path,
                                 "count the bytes of FILE (read in binary) instead of generated "
                                 "data");
    auto* dist =
        app.add_option("--dist", o.dist,
                       "generated input: uniform (random letters), skewed (English "
                       "letter frequencies), runs (runs of one letter, up to 128 Ki "
                       "long), one-letter (all 'a'), random-bytes")
            ->check(CLI::IsMember({"uniform", "skewed", "runs", "one-letter", "random-bytes"}))
            ->capture_default_str();
    auto* size = ct::add_size_option(app, "--n", o.n, "bytes to generate (0 allowed)")
                     ->each([&o](const std::string&) { o.n_given = true; });
    input->excludes(dist);
    input->excludes(size);
    ct::add_seed_option(app, o.seed, "the generated input");
    app.add_option("--stage", o.stages,
                   "stages to run, by id or name, comma-separated (1-8, race, cub; with --section "
                   "wide: global, private, cluster1/2/4/8/16, cub), all, or list (the stages and "
                   "their ideas, without a GPU; with --json: as JSON)")
        ->delimiter(',')
        ->default_str("all");
    app.add_option("--block", o.block, "threads per block of every stage (CUB picks its own)")
        ->check(ct::power_of_two_validator())
        ->capture_default_str();
    app.add_option("--grid", o.grid,
                   "blocks of every stage; 0 = automatic (SMs x resident blocks, capped by the "
                   "work)")
        ->check(CLI::Range(0, INT_MAX))
        ->capture_default_str();
    app.add_option("--slow-reps", o.slow_reps,
                   "timed runs of stages 1, 2, race (global atomics: 4-200 ms each at 2^28)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app.add_flag("--atomic-latency", o.atomic_latency,
                 "also measure one global atomic's latency and redo the seed's throughput "
                 "arithmetic with it");
    section_table().add_option_named(
        app, "--section", o.sections, false,
        " (with none named, a stages-only option keeps the run to the stages)");
    app.add_option("--wide-bins", o.wide_bins,
                   "bin counts of --section wide, comma-separated, each 1-65536 (--n then counts "
                   "16-bit values, default 2^27)")
        ->delimiter(',')
        ->check(CLI::Range(1, 65536))
        ->each([&o](const std::string&) { o.wide_bins_given = true; })
        ->default_str("65536");
    hg::add_streamed_options(app, o.streamed);
    ct::add_common_options(app, o.common);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 5 - parallel histogram: global atomics, coalescing, privatization, aggregation "
        "and beyond, against CUB"};
    Options options;
    add_options(app, options);
    return ct::run_program(app, argc, argv, [&] { return run(options); });
}
