// How stage 9's shape was chosen: its kernel (stages/stage9_async_pipeline.cuh) at every block
// tile, thread tile and ring length that was tried for it, each against cublasSgemm in the
// same process, at the same size, timed the same way.
//
// Every shape is first checked bit for bit against cuBLAS on integer inputs (-4..4: every sum
// is exact, so any correct order of additions gives the same bits), then timed on normal inputs:
// the median of 20 single calls after 3 warm-up runs, between CUDA events, L2 left warm, as the
// chapter's table times a row. The registers a thread takes and the shared memory a block takes
// are read from the compiled kernel; an SM holds as many blocks as both allow.
//
//   cmake --build build --target matmul_stage9_shapes && build/bin/matmul_stage9_shapes [size]
//
// Built by default only for the GPU of the machine that builds (CMAKE_CUDA_ARCHITECTURES
// native): eleven instantiations compiled for every fallback architecture would cost CI minutes
// for a program that a build without a GPU cannot run.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "matmul.hpp"
#include "stages/cublas_baseline.hpp"
#include "stages/stage9_async_pipeline.cuh"

namespace {

namespace ct = cudatutorial;
using matmul::detail::AsyncTiling;
using matmul::detail::LaunchArgs;

struct Inputs {
    ct::DeviceBuffer<float> a, b;
};

Inputs make_inputs(matmul::Pattern pattern, int size) {
    const auto count = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
    return {ct::DeviceBuffer<float>(matmul::make_matrix(pattern, count, 20261122, 0)),
            ct::DeviceBuffer<float>(matmul::make_matrix(pattern, count, 20261122, 1))};
}

LaunchArgs args_for(const Inputs& in, ct::DeviceBuffer<float>& c, int size) {
    LaunchArgs args;
    args.a = in.a.data();
    args.b = in.b.data();
    args.c = c.data();
    args.m = args.n = args.k = size;
    return args;
}

/// The median of 20 single calls of `launch` after 3 warm-up runs, as the chapter's table times.
double median_ms(const std::function<void(const LaunchArgs&)>& launch, LaunchArgs args) {
    ct::BenchmarkConfig config;
    config.warmup = 3;
    config.repetitions = 20;
    return ct::time_repeated(
               [&](cudaStream_t s) {
                   args.stream = s;
                   launch(args);
               },
               config)
        .median_ms;
}

struct Context {
    int size;
    Inputs integers, normal;
    ct::DeviceBuffer<float> c;
    std::vector<float> cublas_integers;  // cuBLAS's product of the integer inputs
    double cublas_ms;
};

template <class Shape>
void measure_shape(Context& ctx) {
    using matmul::detail::launch_async_tiled;
    cudaFuncAttributes attributes{};
    CT_CHECK(
        cudaFuncGetAttributes(&attributes, matmul::detail::matmul_async_pipeline<Shape, true>));
    int blocks_per_sm = 0;
    CT_CHECK(cudaFuncSetAttribute(matmul::detail::matmul_async_pipeline<Shape, true>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(Shape::kSharedBytes)));
    CT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, matmul::detail::matmul_async_pipeline<Shape, true>, Shape::kThreads,
        Shape::kSharedBytes));

    ctx.c.fill_bytes(0xff);
    launch_async_tiled<Shape>(args_for(ctx.integers, ctx.c, ctx.size));
    CT_CHECK(cudaDeviceSynchronize());
    const bool exact = ctx.c.to_host() == ctx.cublas_integers;
    const double ms = median_ms(launch_async_tiled<Shape>, args_for(ctx.normal, ctx.c, ctx.size));
    const double tflops = 2.0 * ctx.size * ctx.size * static_cast<double>(ctx.size) / ms / 1e9;
    std::printf(
        "%4d x %-4d  k %-2d  %2d x %-2d  %5d  %5d  %8d  %9.1f  %6d  %9.4f  %6.1f  %9.3f  %s\n",
        Shape::kTileM, Shape::kTileN, Shape::kTileK, Shape::kThreadM, Shape::kThreadN,
        Shape::kWarpM, Shape::kWarpN, Shape::kStages, Shape::kSharedBytes / 1024.0,
        attributes.numRegs, ms, tflops, ctx.cublas_ms / ms,
        exact ? "PASS" : "FAIL (integers differ from cuBLAS)");
    std::printf("%*s threads %d, blocks per SM %d\n", 10, "", Shape::kThreads, blocks_per_sm);
}

}  // namespace

int main(int argc, char** argv) {
    const int size = argc > 1 ? std::atoi(argv[1]) : 4096;
    if (size < 1 || size > 16384) {
        std::fprintf(stderr, "matmul_stage9_shapes: the size must be between 1 and 16384\n");
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "matmul_stage9_shapes: no CUDA device\n");
        return 3;
    }
    cudaDeviceProp prop{};
    CT_CHECK(cudaGetDeviceProperties(&prop, 0));
    Context ctx{size,
                make_inputs(matmul::Pattern::kIntegers, size),
                make_inputs(matmul::Pattern::kNormal, size),
                ct::DeviceBuffer<float>(static_cast<std::size_t>(size) * size),
                {},
                0.0};
    const matmul::detail::CublasGemm cublas(matmul::Precision::kFp32);
    const auto run_cublas = [&cublas](const LaunchArgs& args) { cublas.run(args); };
    run_cublas(args_for(ctx.integers, ctx.c, size));
    CT_CHECK(cudaDeviceSynchronize());
    ctx.cublas_integers = ctx.c.to_host();
    const auto time_cublas = [&] {
        return median_ms(run_cublas, args_for(ctx.normal, ctx.c, size));
    };
    ctx.cublas_ms = time_cublas();
    std::printf(
        "stage 9's kernel at the shapes tried, %s, %d x %d x %d, normal data (timed); "
        "integers -4..4 checked bit for bit against cuBLAS; median of 20 single calls "
        "after 3 warm-up runs, L2 warm\n",
        prop.name, size, size, size);
    std::printf("cublasSgemm %.4f ms, %.1f TFLOPS\n\n", ctx.cublas_ms,
                2.0 * size * size * static_cast<double>(size) / ctx.cublas_ms / 1e9);
    std::printf(
        "block tile   k     thread  warp tile  stages  shared KB  regs   median ms  "
        "TFLOPS  x cuBLAS   check\n");
    // (tile m, tile n, tile k, lanes along m, 4 x 4 sub-tiles along m and n, stages)
    measure_shape<AsyncTiling<128, 128, 8, 4, 4, 2, 4>>(ctx);  // stage 9's
    measure_shape<AsyncTiling<128, 128, 8, 4, 4, 2, 2>>(ctx);
    measure_shape<AsyncTiling<128, 128, 8, 4, 4, 2, 3>>(ctx);
    measure_shape<AsyncTiling<128, 128, 8, 4, 4, 2, 6>>(ctx);
    measure_shape<AsyncTiling<128, 128, 16, 4, 4, 2, 4>>(ctx);
    measure_shape<AsyncTiling<128, 128, 8, 8, 2, 4, 4>>(ctx);  // 8 x 16 a thread
    measure_shape<AsyncTiling<128, 128, 8, 4, 2, 2, 4>>(ctx);  // 8 x 8, 8 warps
    measure_shape<AsyncTiling<256, 128, 8, 4, 4, 2, 3>>(ctx);  // cuBLAS's block tile
    measure_shape<AsyncTiling<256, 128, 8, 4, 4, 2, 4>>(ctx);
    measure_shape<AsyncTiling<64, 128, 8, 4, 4, 2, 4>>(ctx);  // 2 warps
    measure_shape<AsyncTiling<128, 64, 8, 4, 4, 2, 4>>(ctx);
    std::printf("\ncublasSgemm again %.4f ms\n", time_cublas());
    return 0;
}
