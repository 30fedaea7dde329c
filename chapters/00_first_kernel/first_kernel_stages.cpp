// Chapter 0's registries: the stages of each table, in lesson order, with the idea each adds, each
// field named (cudatutorial::StageRow). A new stage is its file in stages/ plus one row here.
#include "first_kernel.hpp"

namespace first_kernel {

namespace ct = cudatutorial;

const std::vector<AddStage>& add_stages() {
    static const std::vector<AddStage> stages = {
        AddStage("1", "vector_add",
                 "one thread per element: i from blockIdx, blockDim, threadIdx; the guard i < n "
                 "for the last, partial block")
            .with_launcher(launch_vector_add),
        AddStage("1x", "vector_add_no_guard",
                 "stage 1 without the guard: the last block writes past the end (caught by the "
                 "canary check, and by memcheck with --canary 0)")
            .with_launcher(launch_vector_add_no_guard)
            .with_role(ct::StageRole::kExpectedFailure),
        AddStage("2", "vector_add_grid_stride",
                 "a fixed grid (every SM's thread slots once) and a loop stepping by the grid's "
                 "thread count: any n fits any grid")
            .with_launcher(launch_vector_add_grid_stride)
            .with(&AddNeeds::grid_stride, true),
        AddStage("thrust", "thrust::transform", "the library's vector add (Thrust, CUB underneath)")
            .with_launcher(launch_vector_add_thrust)
            .with_role(ct::StageRole::kBaseline),
    };
    return stages;
}

const std::vector<StencilStage>& stencil_stages() {
    static const std::vector<StencilStage> stages = {
        StencilStage("3", "stencil_global",
                     "each thread reads its 2r + 1 inputs from global memory (the caches catch "
                     "repeats)")
            .with_launcher(launch_stencil_global),
        StencilStage("4", "stencil_shared",
                     "the block loads its inputs and halo into shared memory once, "
                     "__syncthreads(), then every thread reads 2r + 1 of them from the tile")
            .with_launcher(launch_stencil_shared),
        StencilStage("4x", "stencil_no_barrier",
                     "stage 4 without __syncthreads(): reads of tile slots other warps have not "
                     "written yet (caught by the check when the race shows, and always by "
                     "racecheck)")
            .with_launcher(launch_stencil_no_barrier)
            .with_role(ct::StageRole::kExpectedFailure),
    };
    return stages;
}

}  // namespace first_kernel
