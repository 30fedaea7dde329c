// Chapter 7, more than one GPU: the topology (peer access, link bandwidth), chapters 3 and 5's
// best stages sharded over the GPUs, and an all-reduce built step by step against NCCL, each
// result checked against the CPU. With --ranks (or under mpirun), one process per GPU.
#include "options.hpp"

namespace ct = cudatutorial;

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
