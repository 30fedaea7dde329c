// Chapter 7's options: what the executable accepts, and every check that needs no GPU.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>

#include "cudatutorial/check.hpp"
#include "histogram.hpp"
#include "multi_gpu.hpp"
#include "options.hpp"
#include "reduction.hpp"
#include "roundtrip.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

// ---- Options ----------------------------------------------------------------------------------

bool Options::wants(const std::string& section) const {
    return section_table().wanted(sections, section);
}

std::vector<std::uint64_t> Options::message_bytes() const {
    std::vector<std::uint64_t> bytes;
    for (const std::string& text : sizes) {
        std::uint64_t value = 0;
        try {
            value = ct::parse_size(text);
        } catch (const ct::UsageError& error) {
            throw ct::UsageError("--sizes", error.what());
        }
        if (value == 0 || value % sizeof(float) != 0) {
            throw ct::UsageError("--sizes", text + " is not a positive multiple of 4 bytes");
        }
        bytes.push_back(value);
    }
    if (bytes.empty()) {
        throw ct::UsageError("--sizes", "give at least one message size");
    }
    return bytes;
}

std::vector<std::uint64_t> Options::round_trip_bytes() const {
    return sizes == Options{}.sizes ? round_trip_default_bytes() : message_bytes();
}

void Options::validate() const {
    section_table().check(sections);
    if (common.batch > 1 && sections == std::vector<std::string>{"roundtrip"}) {
        throw ct::UsageError("--batch",
                             "the round-trip section times one call at a time, from "
                             "the request to the result");
    }
    ct::require_range(n, 1, std::uint64_t{1} << 40, "--n");
    ct::require_range(histogram_bytes, 1, histogram::kMaxInputBytes, "--histogram-bytes");
    ct::require_range(copy_bytes, 1, std::uint64_t{1} << 40, "--copy-bytes");
    ct::require_power_of_two_block(block);
    if (reduction::find_stage(reduction_stage) == nullptr) {
        throw ct::UsageError("--reduction-stage",
                             "chapter 3 has no stage '" + reduction_stage + "'");
    }
    try {
        reduction::validate_configuration(reduction_stage, 1, block);
    } catch (const std::invalid_argument& e) {
        throw ct::UsageError("--block", e.what());
    }
    const histogram::Stage* stage = histogram::find_stage(histogram_stage);
    if (stage == nullptr || stage->role == ct::StageRole::kExpectedFailure) {
        throw ct::UsageError("--histogram-stage",
                             "chapter 5 has no (correct) stage '" + histogram_stage + "'");
    }
    if (bins != "letters" && bins != "bytes") {
        throw ct::UsageError("--bins", "must be letters or bytes; got " + bins);
    }
    if (common.flush_l2) {
        throw ct::UsageError("--flush-l2",
                             "is not supported by multi_gpu (its transfers do not go "
                             "through one GPU's L2)");
    }
    message_bytes();
}

ct::CommonOptions Options::files_for(const std::string& section) const {
    return section_table().files_for(common, sections, section);
}

void add_options(CLI::App& app, Options& o) {
    app.add_option("--gpus", o.gpus,
                   "GPUs to use, from --device on (0: every visible one, at most 16)")
        ->check(CLI::Range(0, 16))
        ->capture_default_str();
    section_table().add_option(app, o.sections, "; roundtrip and network also with --ranks");
    ct::add_size_option(app, "--n", o.n, "ints summed by the sharded reduction");
    app.add_option("--reduction-stage", o.reduction_stage, "chapter 3's stage run on every GPU")
        ->capture_default_str();
    ct::add_size_option(app, "--histogram-bytes", o.histogram_bytes,
                        "bytes counted by the sharded histogram (at most 2^32 - 1)");
    app.add_option("--histogram-stage", o.histogram_stage, "chapter 5's stage run on every GPU")
        ->capture_default_str();
    app.add_option("--bins", o.bins, "histogram binning: letters (7 bins) or bytes (256 bins)")
        ->capture_default_str();
    app.add_option("--sizes", o.sizes, "all-reduce message sizes in bytes, comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    ct::add_size_option(app, "--copy-bytes", o.copy_bytes,
                        "bytes per copy in the topology section");
    app.add_option("--block", o.block, "threads per block of the per-GPU stages (power of two)")
        ->capture_default_str();
    app.add_option("--seed", o.seed, "seed of the input generators")->capture_default_str();
    app.add_option("--ranks", o.ranks,
                   "run as this many processes, one GPU each, joined by NCCL (needs NCCL)")
        ->check(CLI::Range(1, 64));
    app.add_option("--id-file", o.id_file,
                   "file through which rank 0 hands NCCL's unique id to the other ranks (under "
                   "mpirun without MPI support in the build; must be on a shared file system)");
    ct::add_common_options(app, o.common);
}

int list_sections(const Options& o) {
    return section_table().list(
        o.common, "multi_gpu",
        {{"All-reduce stages (the rows of the allreduce and roundtrip sections)",
          ct::descriptors(allreduce_stages())}});
}

void disable_nvlink_multicast() {
    // NVLink SHARP (multicast through the NVSwitch) changes NCCL's algorithm on machines that
    // have it, and it reserves memory and setup time; the chapter compares hand-written code
    // with NCCL's classic ring/tree algorithms, so it is off unless the user says otherwise.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
}

}  // namespace multi_gpu
