// Chapter 0, your first kernel: the smallest programs that teach what every later chapter
// assumes - a launch and its indices, device memory and copies, checking for errors, timing,
// shared memory and the barrier - each checked against the CPU every run; and, on request,
// managed memory and what its page migration costs.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/sections.hpp"
#include "cudatutorial/table_run.hpp"
#include "first_kernel.hpp"

namespace ct = cudatutorial;
namespace fk = first_kernel;

namespace {

struct Run;
// The chapter's sections as data (defined below, after the functions they run).
const ct::SectionTable<Run>& section_table();

// The index map's launch: small enough to print every thread, with a partial last block.
constexpr int kMapElements = 10;
constexpr int kMapBlock = 4;

struct Options {
    std::string program = "first_kernel";            ///< argv[0], for the child process of `errors`
    std::uint64_t n = (std::uint64_t{1} << 25) + 1;  // a multiple of no block size
    const CLI::Option* n_option = nullptr;           ///< to tell whether --n was given
    int block = 256;
    int grid = 0;    ///< the grid-stride stage's grid; 0: every SM's thread slots once
    int radius = 8;  // where the shared tile starts to pay on the H100 (the README's sweep)
    std::uint64_t canary = fk::kDefaultCanary;
    std::string stages = "all";
    std::vector<std::string> sections;
    std::uint64_t seed = ct::kDefaultSeed;
    bool illegal_address_child = false;  ///< hidden: the child side of the `errors` section
    ct::CommonOptions common;
};

void add_options(CLI::App& app, Options& o) {
    o.n_option = ct::add_size_option(
        app, "--n", o.n,
        "elements of the vector add and the stencil (1 to 2^34; the default is a multiple of no "
        "block size, so the last block is partial); the managed section's default is 2^24 + 1");
    app.add_option("--block", o.block, "threads per block (a power of two, 32 to 1024)")
        ->capture_default_str();
    app.add_option("--grid", o.grid,
                   "blocks of the grid-stride stage (0: enough for every SM's thread slots "
                   "once)")
        ->check(CLI::Range(0, 1 << 30))
        ->capture_default_str();
    app.add_option("--radius", o.radius, "stencil radius r: out[i] = in[i-r] + ... + in[i+r]")
        ->check(CLI::Range(1, fk::kMaxRadius))
        ->capture_default_str();
    ct::add_size_option(app, "--canary", o.canary,
                        "poisoned elements behind every array, where a write past the end shows "
                        "(0: exact allocations, for compute-sanitizer memcheck)");
    ct::add_stage_option(app, o.stages, " 1,1x,2,thrust (vector add), 3,4,4x (stencil)",
                         ". Given without --section, only the sections of those stages run");
    section_table().add_option_named(app, "--section", o.sections, false,
                                     " (with --stage and no --section: the sections of those "
                                     "stages)");
    ct::add_seed_option(app, o.seed, "the input data");
    app.add_flag("--illegal-address-child", o.illegal_address_child)->group("");
    ct::add_common_options(app, o.common);
}

// ---------------------------------------------------------------------------------------------
// Options checked before any GPU work
// ---------------------------------------------------------------------------------------------

struct Selection {
    std::vector<const fk::AddStage*> add;
    std::vector<const fk::StencilStage*> stencil;
    bool explicit_list = false;
};

// The chapter's two registries: what --stage list prints and what --stage picks from.
std::vector<ct::StageGroup> stage_registries() {
    return {{"Vector add (--section add)", ct::descriptors(fk::add_stages())},
            {"Stencil (--section stencil)", ct::descriptors(fk::stencil_stages())}};
}

Selection select_stages(const Options& o) {
    const std::vector<std::string> wanted = ct::split_list(o.stages);
    ct::require_known_stages(stage_registries(), wanted, "--stage");
    Selection selection;
    selection.explicit_list = !wanted.empty() && wanted != std::vector<std::string>{"all"};
    for (const fk::AddStage& stage : fk::add_stages()) {
        if (ct::stage_chosen(stage, wanted)) {
            selection.add.push_back(&stage);
        }
    }
    for (const fk::StencilStage& stage : fk::stencil_stages()) {
        if (ct::stage_chosen(stage, wanted)) {
            selection.stencil.push_back(&stage);
        }
    }
    return selection;
}

// The sections this run asks for: --section as given; without it, --stage 4 (a list of stages)
// asks for the sections that hold those stages, and no --stage for every default section.
std::vector<std::string> asked_sections(const Options& o, const Selection& selection) {
    if (!o.sections.empty() || !selection.explicit_list) {
        return o.sections;
    }
    std::vector<std::string> sections;
    if (!selection.add.empty()) {
        sections.push_back("add");
    }
    if (!selection.stencil.empty()) {
        sections.push_back("stencil");
    }
    return sections;
}

// ---------------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------------

bool run_indices_section() {
    const int grid = static_cast<int>(fk::blocks_for(kMapElements, kMapBlock));
    std::cout << "== Which thread works on which element ==\n"
              << "kernel<<<" << grid << ", " << kMapBlock << ">>> over n = " << kMapElements
              << " elements: ceil(" << kMapElements << " / " << kMapBlock << ") = " << grid
              << " blocks of " << kMapBlock << " threads. Each thread wrote down where it sat.\n\n";
    std::vector<fk::ThreadRecord> records;
    std::vector<int> out;
    fk::record_indices(grid, kMapBlock, kMapElements, records, out);
    std::vector<std::vector<std::string>> cells = {{"blockIdx.x", "threadIdx.x",
                                                    "i = blockIdx.x * blockDim.x + threadIdx.x",
                                                    "i < n?", "element", "SM"}};
    for (const fk::ThreadRecord& r : records) {
        cells.push_back({std::to_string(r.block), std::to_string(r.thread),
                         std::to_string(r.block) + " * " + std::to_string(r.block_dim) + " + " +
                             std::to_string(r.thread) + " = " + std::to_string(r.i),
                         r.wrote ? "yes" : "no: guarded",
                         r.wrote ? "out[" + std::to_string(r.i) + "]" : "-", std::to_string(r.sm)});
    }
    ct::print_aligned(std::cout, cells, {});
    const ct::Verification check =
        fk::verify_index_map(records, out, grid, kMapBlock, kMapElements);
    std::cout << "\nThe last " << grid * kMapBlock - kMapElements
              << " threads have no element: the guard `if (i < n)` keeps them out. The SM column "
                 "is where the hardware placed each block (it may change from run to run).\n"
              << "check: " << (check.passed ? "PASS" : "FAIL: " + check.detail) << "\n\n";
    return check.passed;
}

ct::RunInfo run_info(const Options& o, const ct::DeviceInfo& device, const std::string& title) {
    ct::RunInfo info = ct::make_run_info("first_kernel", title, device);
    info.set("n", ct::describe_size(o.n));
    info.set("block", std::to_string(o.block));
    info.set("canary", std::to_string(o.canary) + " elements behind each array");
    info.set("seed", std::to_string(o.seed));
    info.set("timing", o.common.timing_description());
    return info;
}

int run_add_section(const Options& o, const Selection& selection, const ct::DeviceInfo& device,
                    fk::VectorAddArrays& arrays, const ct::CommonOptions& files) {
    const int grid = o.grid > 0 ? o.grid
                                : fk::grid_stride_default_grid(arrays.n, o.block, device.sm_count,
                                                               device.max_threads_per_sm);
    ct::RunInfo info = run_info(o, device, "vector add c = a + b, floats, checked bit for bit");
    info.set("grid (stage 2)", std::to_string(grid) + " blocks" +
                                   (o.grid > 0 ? "" : " (SMs x threads per SM / block)"));
    info.set("bytes moved",
             ct::format_bytes(12.0 * static_cast<double>(arrays.n)) + " (a and b read, c written)");
    ct::TableRun table(info, files);
    table.set_baseline("thrust", "Thrust");
    for (const fk::AddStage* stage : selection.add) {
        const bool unguarded = stage->role == ct::StageRole::kExpectedFailure;
        if (unguarded && !selection.explicit_list &&
            o.canary < static_cast<std::uint64_t>(o.block)) {
            table.add_note("1x skipped: with a canary shorter than a block (--canary " +
                           std::to_string(o.canary) +
                           ") its writes past the end would leave the arrays. Run it alone "
                           "under memcheck: compute-sanitizer --tool memcheck first_kernel "
                           "--stage 1x --canary 0");
            continue;
        }
        ct::StageHooks hooks;
        hooks.poison = [&] { arrays.d_c.fill_bytes(0xff); };
        hooks.launch = [&](cudaStream_t stream) {
            stage->launch(arrays.d_a.data(), arrays.d_b.data(), arrays.d_c.data(), arrays.n,
                          o.block, grid, stream);
        };
        hooks.verify = [&] { return arrays.verify(); };
        hooks.bytes = ct::MemoryTraffic().reads<float>(2 * arrays.n).writes<float>(arrays.n);
        table.run(*stage, hooks);
    }
    return table.finish();
}

bool run_errors_section(const Options& o, const ct::DeviceInfo& device) {
    std::cout << "== What a failing launch looks like ==\n"
              << "Each row makes one mistake on purpose. A refused request leaves the GPU usable; "
                 "a fault inside a kernel ends the CUDA context of its process.\n\n";
    std::vector<fk::ErrorDemo> demos =
        fk::run_recoverable_error_demos(device.max_threads_per_block, device.global_memory);
    demos.push_back(fk::run_illegal_address_demo(o.program, o.common.device));
    std::vector<std::vector<std::string>> cells = {
        {"what goes wrong", "reported by", "error", "as expected"}};
    bool all_as_expected = true;
    for (const fk::ErrorDemo& demo : demos) {
        cells.push_back({demo.what, demo.reported_by, demo.observed,
                         demo.as_expected ? "yes" : "NO (expected " + demo.expected + ")"});
        all_as_expected = all_as_expected && demo.as_expected;
    }
    ct::print_aligned(std::cout, cells, {0, 1, 2});
    std::cout << "\nWhat each reported, and what came after:\n";
    for (std::size_t i = 0; i < demos.size(); ++i) {
        std::cout << "  [" << i + 1 << "] " << demos[i].message
                  << "\n      then: " << demos[i].afterwards << "\n";
    }
    std::cout << "check: " << (all_as_expected ? "PASS" : "FAIL") << "\n\n";
    return all_as_expected;
}

int run_timing_section(const Options& o, const ct::DeviceInfo& device, fk::VectorAddArrays& arrays,
                       const ct::CommonOptions& files) {
    arrays.d_c.fill_bytes(0xff);
    const std::vector<fk::TimingMethod> methods =
        fk::time_five_ways(arrays.d_a.data(), arrays.d_b.data(), arrays.d_c.data(), arrays.n,
                           o.block, o.common.repetitions, o.common.warmup);
    const ct::Verification check = arrays.verify();
    ct::RunInfo info = run_info(o, device, "one vector add (stage 1), timed five ways");
    info.set("what to compare", "every row times the same kernel; only t4 and t5 time it alone");
    ct::TableRun table(info, files);
    table.set_baseline("t5", "t5");
    const double bytes = 12.0 * static_cast<double>(arrays.n);
    for (const fk::TimingMethod& method : methods) {
        // The course's one row built by hand from its own clock: each method is a different way
        // to time the kernel, which is what this section teaches (every other row comes from
        // time_stage(), benchmark.hpp).
        ct::ResultRow row;
        row.id = method.id;
        row.name = method.name;
        row.idea = method.measures;
        row.timed = true;
        row.stats = method.stats;
        row.bytes = bytes;
        row.passed = check.passed;
        row.in_progression = false;  // different ways to time one kernel, not steps
        row.with("samples", std::to_string(method.stats.samples));
        row.detail = check.passed ? method.measures : check.detail;
        const double gbs = ct::bandwidth_gbs(bytes, method.stats.median_ms);
        if (check.passed && device.theoretical_bandwidth_gbs() > 0 &&
            gbs > device.theoretical_bandwidth_gbs()) {
            row.detail +=
                ": " +
                ct::format_fixed(ct::percent_of(gbs, device.theoretical_bandwidth_gbs()), 0) +
                "% of the DRAM peak is impossible - the clock stopped before the GPU "
                "finished";
        }
        table.add(std::move(row));
    }
    return table.finish();
}

int run_stencil_section(const Options& o, const Selection& selection, const ct::DeviceInfo& device,
                        const ct::CommonOptions& files) {
    const std::size_t n = static_cast<std::size_t>(o.n);
    const std::vector<int> input = fk::make_stencil_input(n, o.seed);
    const std::vector<int> expected = fk::stencil_reference(input, o.radius);
    std::vector<int> padded = input;
    padded.resize(n + o.canary, 0);
    ct::DeviceBuffer<int> d_in(padded);
    ct::DeviceBuffer<int> d_out(n + o.canary);
    ct::RunInfo info =
        run_info(o, device, "1D stencil out[i] = in[i-r] + ... + in[i+r], ints, checked exactly");
    info.set("radius", std::to_string(o.radius) + " (" + std::to_string(2 * o.radius + 1) +
                           " inputs per output)");
    info.set("bytes moved", ct::format_bytes(8.0 * static_cast<double>(n)) +
                                " (in read once, out written: what an ideal kernel moves)");
    ct::TableRun table(info, files);
    for (const fk::StencilStage* stage : selection.stencil) {
        ct::StageHooks hooks;
        hooks.poison = [&] { d_out.fill_bytes(0xff); };
        hooks.launch = [&](cudaStream_t stream) {
            stage->launch(d_in.data(), d_out.data(), n, o.radius, o.block, stream);
        };
        hooks.verify = [&] { return fk::verify_stencil(expected, d_out.to_host()); };
        hooks.bytes = ct::MemoryTraffic().reads<int>(n).writes<int>(n);
        table.run(*stage, hooks);
    }
    return table.finish();
}

// The managed section's n: --n when given, else kManagedDefaultN (192 MiB of managed arrays).
std::size_t managed_elements(const Options& o) {
    const bool given = o.n_option != nullptr && o.n_option->count() > 0;
    return given ? static_cast<std::size_t>(o.n) : fk::kManagedDefaultN;
}

int run_managed_section(const Options& o, const ct::DeviceInfo& device,
                        const ct::CommonOptions& files) {
    const std::size_t n = managed_elements(o);
    const bool concurrent = fk::concurrent_managed_access(device.id);
    fk::ManagedVectorAdd data(n, static_cast<std::size_t>(o.canary), o.seed, concurrent);
    ct::RunInfo info = run_info(
        o, device, "managed memory: the vector add with its inputs copied, faulted or prefetched");
    info.set("n", ct::describe_size(n));
    info.set("managed memory",
             concurrent ? ct::format_bytes(3.0 * static_cast<double>(data.slots * sizeof(float))) +
                              " (a, b, c with cudaMallocManaged; as much again with cudaMalloc)"
                        : "not used (no concurrent managed access)");
    info.set("before each sample", "'" + std::string(fk::kFromHost) +
                                       "': the host writes a and b; c is poisoned on the GPU");
    // A run of this section alone writes --json out.json itself; beside another table of the
    // same run it goes to out_managed.json.
    ct::TableRun table(info, files);
    table.set_group_column("timed");
    table.set_baseline("device", "cudaMalloc");
    std::string skipped;
    for (const fk::ManagedRow& row : fk::managed_rows()) {
        if (row.needs_concurrent_access && !concurrent) {
            skipped += (skipped.empty() ? "" : ", ") + row.id;
            continue;
        }
        const auto not_a_step = [&](ct::ResultRow& r) {
            r.in_progression = false;  // ways to place the same data, compared with cudaMalloc
            r.group = row.timed;
        };
        ct::StageHooks hooks;
        hooks.launch = [&](cudaStream_t stream) { row.launch(data, o.block, stream); };
        hooks.verify = [&] { return row.verify(data); };
        hooks.extras = not_a_step;
        if (row.timed == std::string(fk::kFromHost)) {
            // Every sample starts from inputs the host has just written: timed one at a time.
            hooks.setup_each_sample = [&](cudaStream_t stream) { row.reset(data, stream); };
        } else {
            hooks.poison = [&] {
                row.reset(data, nullptr);
                CT_CHECK(cudaDeviceSynchronize());
            };
            hooks.bytes = ct::MemoryTraffic().reads<float>(2 * n).writes<float>(n);
        }
        table.run(row, hooks);
    }
    if (!skipped.empty()) {
        table.add_note("skipped " + skipped +
                       ": this GPU has no concurrent managed access "
                       "(cudaDevAttrConcurrentManagedAccess = 0, as under Windows, WSL and on "
                       "some laptops), so its managed pages do not migrate on demand");
    }
    return table.finish();
}

// What the sections of one run share: the options and stages checked before any GPU work, the
// sections asked for, the device, and the vector add's arrays (the add and timing sections use
// the same ones, made when the first of them runs).
struct Run {
    const Options& o;
    Selection selection;
    std::vector<std::string> sections;
    ct::DeviceInfo device;
    std::unique_ptr<fk::VectorAddArrays> arrays;

    fk::VectorAddArrays& vector_arrays() {
        if (!arrays) {
            arrays = std::make_unique<fk::VectorAddArrays>(
                static_cast<std::size_t>(o.n), static_cast<std::size_t>(o.canary), o.seed);
        }
        return *arrays;
    }
    ct::CommonOptions files_for(const std::string& section) const {
        return section_table().files_for(o.common, sections, section);
    }
};

int verdict(bool passed) {
    return ct::to_int(passed ? ct::ExitCode::kSuccess : ct::ExitCode::kVerificationFailed);
}

int indices_section(Run&) {
    return verdict(run_indices_section());
}

int add_section(Run& r) {
    if (r.selection.add.empty()) {
        return verdict(true);  // --stage named no vector-add stage
    }
    return run_add_section(r.o, r.selection, r.device, r.vector_arrays(), r.files_for("add"));
}

int errors_section(Run& r) {
    return verdict(run_errors_section(r.o, r.device));
}

int timing_section(Run& r) {
    return run_timing_section(r.o, r.device, r.vector_arrays(), r.files_for("timing"));
}

int stencil_section(Run& r) {
    if (r.selection.stencil.empty()) {
        return verdict(true);  // --stage named no stencil stage
    }
    r.arrays.reset();  // the vector add is done: its arrays are freed before the stencil's
    return run_stencil_section(r.o, r.selection, r.device, r.files_for("stencil"));
}

int managed_section(Run& r) {
    r.arrays.reset();
    return run_managed_section(r.o, r.device, r.files_for("managed"));
}

const ct::SectionTable<Run>& section_table() {
    using ct::section;
    static const ct::SectionTable<Run> table({
        ct::without_table(section<Run>(
            "indices",
            "which thread works on which element: a small launch prints every thread's "
            "indices and its guard",
            indices_section)),
        section<Run>("add", "the vector add, one stage per row (--stage)", add_section),
        ct::without_table(
            section<Run>("errors",
                         "what a failed launch and an illegal address look like, and where each is "
                         "reported",
                         errors_section)),
        section<Run>("timing", "one vector add timed five ways", timing_section),
        section<Run>("stencil", "the 1D stencil: shared memory and the barrier (--stage)",
                     stencil_section),
        ct::only_when_named(section<Run>(
            "managed",
            "managed memory: the vector add with its inputs copied, faulted or prefetched (it "
            "makes the GPU fault pages on purpose)",
            managed_section)),
    });
    return table;
}

int run(const Options& o) {
    if (o.illegal_address_child) {
        ct::select_device(o.common.device);
        return fk::run_illegal_address_child();
    }
    if (o.stages == "list") {  // registry information: no GPU needed
        return ct::list_stages(o.common, "first_kernel", stage_registries());
    }
    // 1. Everything that can be checked without a GPU.
    ct::require_range(o.n, 1, std::uint64_t{1} << 34, "--n");
    ct::require_power_of_two_block(o.block);
    ct::require_range(o.canary, 0, std::uint64_t{1} << 20, "--canary");
    const ct::SectionTable<Run>& sections = section_table();
    Run r{o, select_stages(o), {}, {}, nullptr};
    r.sections = asked_sections(o, r.selection);
    const auto wanted = [&](const std::string& name) { return sections.wanted(r.sections, name); };
    const bool add = wanted("add") && !r.selection.add.empty();
    const bool timing = wanted("timing");
    const bool stencil = wanted("stencil") && !r.selection.stencil.empty();
    const bool managed = wanted("managed");
    if (managed && o.common.batch > 1) {
        throw ct::UsageError("--batch",
                             "does not apply to --section managed: each of its samples must "
                             "start from inputs the host has just written");
    }

    // 2. The device, and whether the arrays fit.
    r.device = ct::select_device(o.common.device);
    ct::require_block_size(o.block, r.device, 32);
    const std::size_t slots = static_cast<std::size_t>(o.n + o.canary);
    std::size_t bytes = 0;
    if (add || timing) {
        bytes = 3 * slots * sizeof(float);
    }
    if (stencil) {
        bytes = std::max(bytes, 2 * slots * sizeof(int));
    }
    if (managed) {  // the sections run one after the other, each freeing its arrays
        bytes = std::max(bytes, fk::managed_section_bytes(
                                    managed_elements(o), static_cast<std::size_t>(o.canary),
                                    fk::concurrent_managed_access(r.device.id)));
    }
    ct::require_device_memory(bytes, "the arrays of the selected sections");

    // 3. The sections, in lesson order.
    return sections.run(r.sections, r);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 0 - your first kernel: a launch and its indices, device memory, errors, timing, "
        "shared memory and the barrier, managed memory, each checked against the CPU"};
    Options o;
    add_options(app, o);
    // The errors section starts this program again as a child process: the link
    // /proc/self/exe names this very file, whatever directory it was started from (read here:
    // in the child's shell it would name the shell). argv[0] where there is no /proc.
    o.program = argc > 0 ? argv[0] : "first_kernel";
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        o.program = self.string();
    }
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
