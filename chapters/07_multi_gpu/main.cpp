// Chapter 7, more than one GPU: the topology (peer access, link bandwidth), chapters 3 and 5's
// best stages sharded over the GPUs, and an all-reduce built step by step against NCCL, each
// result checked against the CPU. With --ranks (or under mpirun), one process per GPU.
#include <CLI/CLI.hpp>

#include "options.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

const ct::SectionTable<SectionContext>& section_table() {
    using ct::section;
    static const ct::SectionTable<SectionContext> table({
        section<SectionContext>("topology",
                                "which GPU reaches which: peer access between every pair, and "
                                "the bandwidth of a copy over each path",
                                topology_section),
        section<SectionContext>("reduction",
                                "chapter 3's stage (--reduction-stage) on a slice of the input "
                                "per GPU, the partial sums combined (each way of combining), "
                                "against the same stage on one GPU",
                                reduction_section),
        section<SectionContext>("histogram",
                                "chapter 5's stage (--histogram-stage) on a slice of the input "
                                "per GPU, the histograms combined (each way of combining), "
                                "against the same stage on one GPU",
                                histogram_section),
        section<SectionContext>("allreduce",
                                "an all-reduce built step by step (the stages below) against "
                                "NCCL, for each --sizes",
                                allreduce_section),
        section<SectionContext>("roundtrip",
                                "the all-reduce as a caller who waits sees it, timed on the host "
                                "one call at a time: stage 5 launched, stage 10 resident, NCCL "
                                "launched (small sizes unless --sizes); also with --ranks",
                                roundtrip_section),
        ct::run_alone(section<SectionContext>(
                          "network",
                          "NCCL's all-reduce in one process per GPU over NVLink, then through "
                          "its network transport (sockets on loopback), as between two machines "
                          "(--ranks G, default 2)",
                          network_section),
                      "it runs one process per GPU, twice (NVLink, then sockets)"),
    });
    return table;
}

namespace {

/// The sections `o` asks for, in table order (one host thread drives every GPU; network starts
/// its processes). `argv`: the program's command line. Returns the exit code.
int run(const Options& o, char** argv) {
    disable_nvlink_multicast();
    SectionContext context(o, argv);
    return section_table().run(o.sections, context);
}

}  // namespace
}  // namespace multi_gpu

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 7 - more than one GPU: topology and link bandwidth, sharded reduction and "
        "histogram, a ring all-reduce by hand against NCCL; every result checked against the CPU"};
    multi_gpu::Options options;
    multi_gpu::add_options(app, options);
    return ct::run_program(app, argc, argv, [&] {
        if (options.sections == std::vector<std::string>{"list"}) {  // no GPU needed
            return multi_gpu::list_sections(options);
        }
        options.validate();
        const int ranks = multi_gpu::run_ranks(options, argc, argv);
        return ranks >= 0 ? ranks : multi_gpu::run(options, argv);
    });
}
