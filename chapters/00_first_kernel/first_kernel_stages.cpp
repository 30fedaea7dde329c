// Chapter 0's registries: the stages of each table, in lesson order, with the idea each adds.
#include "first_kernel.hpp"

namespace first_kernel {

namespace ct = cudatutorial;

const std::vector<AddStage>& add_stages() {
    static const std::vector<AddStage> stages = {
        {{"1", "vector_add",
          "one thread per element: i from blockIdx, blockDim, threadIdx; "
          "the guard i < n for the last, partial block"},
         launch_vector_add,
         false},
        {{"1x", "vector_add_no_guard",
          "stage 1 without the guard: the last block writes past the end (caught by the canary "
          "check, and by memcheck with --canary 0)",
          ct::StageRole::kExpectedFailure},
         launch_vector_add_no_guard,
         false},
        {{"2", "vector_add_grid_stride",
          "a fixed grid (every SM's thread slots once) and a loop stepping by the grid's thread "
          "count: any n fits any grid"},
         launch_vector_add_grid_stride,
         true},
        {{"thrust", "thrust::transform", "the library's vector add (Thrust, CUB underneath)",
          ct::StageRole::kBaseline},
         launch_vector_add_thrust,
         false},
    };
    return stages;
}

const std::vector<StencilStage>& stencil_stages() {
    static const std::vector<StencilStage> stages = {
        {{"3", "stencil_global",
          "each thread reads its 2r + 1 inputs from global memory (the caches catch repeats)"},
         launch_stencil_global},
        {{"4", "stencil_shared",
          "the block loads its inputs and halo into shared memory once, __syncthreads(), then "
          "every thread reads 2r + 1 of them from the tile"},
         launch_stencil_shared},
        {{"4x", "stencil_no_barrier",
          "stage 4 without __syncthreads(): reads of tile slots other warps have not written yet "
          "(caught by the check when the race shows, and always by racecheck)",
          ct::StageRole::kExpectedFailure},
         launch_stencil_no_barrier},
    };
    return stages;
}

}  // namespace first_kernel
