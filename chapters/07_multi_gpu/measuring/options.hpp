/// @file options.hpp
/// @brief Chapter 7's command-line options and the sections they select (host code only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/cli.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/sections.hpp"

namespace multi_gpu {

/// Everything the executable can be asked.
struct Options {
    int gpus = 0;  ///< --gpus: how many GPUs (0: every visible one from --device on)
    std::vector<std::string> sections;         ///< --section (empty: all)
    std::uint64_t n = std::uint64_t{1} << 28;  ///< --n: ints of the sharded reduction
    std::string reduction_stage = "12";        ///< --reduction-stage: chapter 3's stage
    std::uint64_t histogram_bytes = std::uint64_t{1} << 30;  ///< --histogram-bytes
    std::string histogram_stage = "8";  ///< --histogram-stage: chapter 5's stage
    std::string bins = "bytes";         ///< --bins letters|bytes
    std::vector<std::string> sizes = {"1Ki", "8Ki", "64Ki", "512Ki", "4Mi", "32Mi", "256Mi", "1Gi"};
    std::uint64_t copy_bytes = std::uint64_t{1} << 28;  ///< --copy-bytes: topology's copies
    int block = 256;                                    ///< --block
    std::uint64_t seed = cudatutorial::kDefaultSeed;    ///< --seed
    int ranks = 0;        ///< --ranks G: run as G processes, one GPU each
    std::string id_file;  ///< --id-file: where rank 0 leaves NCCL's unique id
    cudatutorial::CommonOptions common;

    /// True when `section` runs (section_table().wanted).
    bool wants(const std::string& section) const;
    /// The --sizes, parsed to bytes; throws UsageError for a size that is not a positive
    /// multiple of 4 bytes.
    std::vector<std::uint64_t> message_bytes() const;
    /// The round-trip section's sizes: --sizes when given, else round_trip_default_bytes().
    std::vector<std::uint64_t> round_trip_bytes() const;
    /// Checks everything that needs no GPU (UsageError).
    void validate() const;
    /// The output files of `section`: --csv/--json/--markdown as given for the first section
    /// that runs, with "_<section>" before the extension for the others ("out.json" ->
    /// "out_allreduce.json"; section_table().files_for).
    cudatutorial::CommonOptions files_for(const std::string& section) const;
};

/// What the sections of one run share: the options, the GPUs (found, and the run's first line
/// printed, when a section first asks), and the link rate once measured ("% of link").
struct SectionContext {
    SectionContext(const Options& options, char** argv);
    const Options& options;
    char** argv = nullptr;  ///< the program's own command line (network starts copies of it)
    double link_gbs = 0;    ///< GPU 0 -> 1 copy rate, once the topology section measured it
    /// The GPUs the one-process sections use (--gpus from --device on); exit 3 without one.
    const std::vector<int>& gpus();

  private:
    std::vector<int> devices_;
};

/// The chapter's sections, in the order they run: name, one-line idea, the function that runs
/// it (the table is in main.cpp, the functions in sections.cpp). --help, --stage list, the
/// checks, the dispatch and the file names all come from it.
const cudatutorial::SectionTable<SectionContext>& section_table();

/// What each section runs (sections.cpp): its table or tables, printed; the exit code of its
/// verdict.
int topology_section(SectionContext& c);
int reduction_section(SectionContext& c);
int histogram_section(SectionContext& c);
int allreduce_section(SectionContext& c);
int roundtrip_section(SectionContext& c);
int network_section(SectionContext& c);

/// Sets NCCL_NVLS_ENABLE=0 unless the environment already sets it (README: why).
void disable_nvlink_multicast();

/// Registers the options on `app`.
void add_options(CLI::App& app, Options& options);

/// `--stage list` (or `--section list`): the sections and the all-reduce stages, without a GPU.
int list_sections(const Options& options);

/// The one-way rate of a peer copy from GPU `from` to GPU `to` (GB/s, 0 if it failed): the
/// yardstick of the all-reduce tables' "% of link" (topology.hpp's measure_copy, 10 samples).
double measure_link_gbs(int from, int to, const Options& options);

/// `--stage network`: NCCL in one process per GPU over NVLink, then over sockets, one table
/// (ranks.cpp). Returns the exit code.
int run_network(const Options& options, char** argv);

/// The multi-process mode: `--ranks G` starts G copies of this program, one per GPU, and returns
/// the worst exit code; a rank (started that way, or by mpirun) joins the others through NCCL.
/// Returns -1 when this process is neither a launcher nor a rank.
int run_ranks(const Options& options, int argc, char** argv);

}  // namespace multi_gpu
