// The Hopper primitives of stages 12 to 14, each a thin wrapper over one PTX instruction:
// the mbarrier (a shared-memory barrier the copy engine can complete), the TMA tile copy that
// completes on one, the wgmma shared-memory descriptor, and wgmma itself; and their launch. sm_90a
// only: include from the files CMake builds for that target alone.
//
// Why each one, in a sentence:
//   - mbarrier: TMA copies arrive asynchronously; a thread announces how many bytes are coming
//     (expect_tx), the copy engine counts them off as they land, and the phase flips when all
//     have: waiting threads poll that phase, not a counter they update themselves.
//   - cp.async.bulk.tensor: one thread asks the copy engine for a whole 2D box of a matrix (its
//     tensor map says the shape, the strides and the swizzle); no thread moves a byte.
//   - wgmma: the 4 warps of a warpgroup start one MMA of 64 x N x 16 together, reading A and B
//     straight from shared memory through 64-bit descriptors, asynchronously: the warps go on
//     (issuing the next MMA) until they wait for the group.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>

#include <cstdint>

#include "cudatutorial/check.hpp"
#include "matmul_device.cuh"
#include "matmul_launchers.hpp"
#include "tensor_maps.hpp"

namespace matmul::detail::hopper {

/// The shared-memory address of `p` (a 32-bit offset in the CTA's window).
__device__ inline std::uint32_t smem(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// Makes `barrier` expect one arrival per phase (the producer's expect_tx).
__device__ inline void mbarrier_init(std::uint64_t* barrier, unsigned arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem(barrier)), "r"(arrivals)
                 : "memory");
}

/// Orders the mbarrier inits before their use by the copy engine (the async proxy).
__device__ inline void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/// Arrives on `barrier` and says `bytes` more will land on it before its phase completes.
__device__ inline void mbarrier_expect_bytes(std::uint64_t* barrier, unsigned bytes) {
    asm volatile(
        "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem(barrier)),
        "r"(bytes)
        : "memory");
}

/// Arrives on `barrier` (one of the arrivals its phase expects), with release semantics: what
/// this thread did before (its reads of the buffer the barrier guards) happens before the phase
/// completes.
__device__ inline void mbarrier_arrive(std::uint64_t* barrier) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(smem(barrier))
                 : "memory");
}

/// Gives this warpgroup's registers back down to kRegisters a thread (the producer, which needs
/// few), or raises them to kRegisters (the consumers, which hold the sums): the SM moves
/// registers between warpgroups of one block. Every warp of the warpgroup executes it.
template <int kRegisters>
__device__ inline void release_registers_to() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ inline void claim_registers_up_to() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

/// Set once any wait below has given up: every later wait in the module returns at once.
static __device__ unsigned int wait_gave_up = 0;

/// Waits until `barrier`'s phase `parity` has completed. Bounded: a wait that outlasts 4 seconds
/// (a bug: a phase nobody completes) gives up, and so does every wait after it, so the kernel
/// ends with a wrong product, which the verification reports, instead of hanging the GPU. (Not
/// a trap, nor a printf: ending a thread or calling a function between wgmma instructions makes
/// the compiler wait for or serialize them.)
__device__ inline void mbarrier_wait(std::uint64_t* barrier, unsigned parity) {
    std::uint64_t start = 0;
    for (;;) {
        std::uint32_t done = 0;
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n"
            "}\n"
            : "=r"(done)
            : "r"(smem(barrier)), "r"(parity)
            : "memory");
        if (done || *static_cast<volatile unsigned*>(&wait_gave_up) != 0) {
            return;
        }
        std::uint64_t now = 0;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (start == 0) {
            start = now;
        } else if (now - start > 4000000000ull) {
            atomicExch(&wait_gave_up, 1u);
            return;
        }
    }
}

/// Starts the copy of the box at (column `col`, row `row`) of `map`'s matrix into `to`; the
/// copy engine counts its bytes off `barrier` as they land.
__device__ inline void tma_load_2d(void* to, const CUtensorMap* map, int col, int row,
                                   std::uint64_t* barrier) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem(to)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(smem(barrier))
        : "memory");
}

// ---------------------------------------------------------------------------------------------
// Clusters (stage 14): CTAs launched together on neighbouring SMs, each able to reach the others'
// shared memory and barriers.

/// This CTA's rank in its cluster, the cluster's index in the grid, and how many clusters.
__device__ inline unsigned cluster_rank() {
    unsigned rank = 0;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    return rank;
}
__device__ inline int cluster_index() {
    unsigned index = 0;
    asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(index));
    return static_cast<int>(index);
}
__device__ inline int cluster_count() {
    unsigned count = 0;
    asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(count));
    return static_cast<int>(count);
}

/// Every thread of every CTA of the cluster: what each did before (its barrier inits, its
/// remote arrivals) is visible to all after. Not .aligned: the producer's lanes arrive apart.
__device__ inline void cluster_sync() {
    asm volatile(
        "barrier.cluster.arrive.release;\n"
        "barrier.cluster.wait.acquire;\n" ::
            : "memory");
}

/// Arrives on the mbarrier at `barrier`'s place in the shared memory of CTA `rank` of this
/// cluster (mapa translates the address), with release semantics at CTA scope, as CUTLASS's
/// ClusterBarrier does. Enough for what stage 14 releases: reads of a buffer by wgmma that
/// wgmma.wait_group has already seen finish, so no access of this thread is left for a wider
/// fence to order, and a release at cluster scope costs a fence per arrival (stage 14 at first:
/// half stage 13's speed, its warps stalled on a memory barrier half the time).
__device__ inline void mbarrier_arrive_in(std::uint64_t* barrier, unsigned rank) {
    asm volatile(
        "{\n"
        ".reg .b32 remote;\n"
        "mapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.release.cta.shared::cluster.b64 _, [remote];\n"
        "}\n" ::"r"(smem(barrier)),
        "r"(rank)
        : "memory");
}

/// tma_load_2d's box, written to the same place in the shared memory of every CTA of the cluster
/// whose bit is set in `ctas`, each copy counted off that CTA's mbarrier at `barrier`'s place: one
/// read from L2, several SMs fed.
__device__ inline void tma_load_2d_multicast(void* to, const CUtensorMap* map, int col, int row,
                                             std::uint64_t* barrier, std::uint16_t ctas) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smem(to)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(smem(barrier)), "h"(ctas)
        : "memory");
}

// ---------------------------------------------------------------------------------------------
// The epilogue through shared memory (stage 14).

/// Stores four 8 x 8 BF16 matrices to shared memory: register i of lane l holds row l / 4,
/// columns 2 (l % 4) and + 1 of matrix i (two BF16 packed, as the accumulators lie), and lane l
/// gives the address of row l % 8 of matrix l / 8. One instruction per 16 x 16 block of C.
__device__ inline void stmatrix_x4(void* row_address, std::uint32_t m0, std::uint32_t m1,
                                   std::uint32_t m2, std::uint32_t m3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                     smem(row_address)),
                 "r"(m0), "r"(m1), "r"(m2), "r"(m3)
                 : "memory");
}

/// Makes this thread's shared-memory writes visible to the copy engine (the async proxy).
__device__ inline void fence_shared_for_copy_engine() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/// A barrier for `threads` threads (a warpgroup) under hardware barrier `id` (0 is
/// __syncthreads').
__device__ inline void named_barrier(unsigned id, unsigned threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// Starts the copy of the box at `from` (shared memory, laid out as the map's swizzle says) to
/// (column `col`, row `row`) of `map`'s matrix; elements outside the matrix are not written.
__device__ inline void tma_store_2d(const CUtensorMap* map, int col, int row, const void* from) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
            reinterpret_cast<std::uint64_t>(map)),
        "r"(col), "r"(row), "r"(smem(from))
        : "memory");
}
/// Closes the stores issued since the last commit into one bulk group.
__device__ inline void bulk_commit() {
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
/// Waits until at most kPending bulk groups still read their shared memory (which may then be
/// overwritten); bulk_wait: until at most kPending are still running at all.
template <int kPending>
__device__ inline void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
template <int kPending>
__device__ inline void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

/// Two floats rounded to BF16 and packed in one register, the first in the low half (the lower
/// column, as stmatrix and a row-major store want them).
__device__ inline std::uint32_t pack_bf16x2(float low, float high) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
    return *reinterpret_cast<const std::uint32_t*>(&pair);
}

// ---------------------------------------------------------------------------------------------
/// A wgmma operand descriptor for a tile stored with the 128-byte swizzle (bits 62-63 = 1):
/// the start address, the leading- and stride-dimension byte offsets, each in 16-byte units.
/// The 128-byte pattern repeats every 1,024 bytes, so every tile starts on a 1,024-byte
/// boundary (base offset 0), and a start inside a pattern (a k step into a K-major row) is
/// legal: the swizzle is computed on the address bits.
__device__ inline std::uint64_t descriptor(const void* start, std::uint32_t leading_bytes,
                                           std::uint32_t stride_bytes) {
    return (static_cast<std::uint64_t>(smem(start) >> 4) & 0x3FFF) |
           (static_cast<std::uint64_t>((leading_bytes >> 4) & 0x3FFF) << 16) |
           (static_cast<std::uint64_t>((stride_bytes >> 4) & 0x3FFF) << 32) |
           (std::uint64_t{1} << 62);
}

/// Makes the accumulators' registers safe to hand to wgmma (before the first of a batch).
__device__ inline void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
/// Closes the batch of wgmma issued since the last commit into one group.
__device__ inline void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
/// Waits until at most `kPending` committed groups are still running.
template <int kPending>
__device__ inline void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

/// Keeps the compiler from moving reads or writes of `d` across this point: an accumulator
/// wgmma is still writing must not be touched before wgmma_wait says it is done.
template <int kCount>
__device__ inline void fence_registers(float (&d)[kCount]) {
#pragma unroll
    for (int i = 0; i < kCount; ++i) {
        asm volatile("" : "+f"(d[i])::"memory");
    }
}

/// d (64 x N, FP32, in the warpgroup's registers) += A (64 x 16, K-major) . B (16 x N, N-major:
/// B's rows are row-major k x n, which wgmma reads transposed, imm-trans-b = 1), both BF16 in
/// shared memory behind their descriptors. Thread t of the warpgroup holds rows
/// 16 (t / 32) + (t % 32) / 4 (+ 8) of C, 2 columns of each 8: d[4 j .. 4 j + 3] are the
/// 16 x 8 tile j as mma.sync leaves one. The operands after the descriptors: accumulate (d +=,
/// not d =), A and B not negated, A not transposed (K-major), B transposed (N-major). N = 128
/// (64 registers a thread) and N = 256 (128).
__device__ inline void wgmma_m64n128k16(float (&d)[64], std::uint64_t a, std::uint64_t b) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16\n"
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
        "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "
        "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "
        "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "
        "%62, %63"
        "},\n"
        " %64, %65, accumulate, 1, 1, 0, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63])
        : "l"(a), "l"(b), "r"(1));
}

__device__ inline void wgmma_m64n256k16(float (&d)[128], std::uint64_t a, std::uint64_t b) {
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16\n"
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
        "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "
        "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "
        "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "
        "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "
        "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "
        "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "
        "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, "
        "%118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "},\n"
        " %128, %129, accumulate, 1, 1, 0, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}

/// Launches a TMA stage's `kernel(a_map, b_map, c, m, n, k)` over C in tiles of tile_m x tile_n,
/// with A's boxes tile_m x box_k and B's box_k x 64 (128 bytes: the swizzle's row). A tensor map
/// needs rows of multiples of 16 bytes and an aligned matrix: other shapes run stage 11's kernel.
template <class Kernel>
void launch_tma_stage(Kernel kernel, const Bf16LaunchArgs& a, int tile_m, int tile_n, int box_k,
                      int threads, std::size_t shared_bytes) {
    if (!rows_allow_16_bytes(a)) {
        launch_mma_sync(a);
        return;
    }
    const CUtensorMap a_map = bf16_tensor_map(a.a, a.m, a.k, tile_m, box_k);
    const CUtensorMap b_map = bf16_tensor_map(a.b, a.k, a.n, box_k, 64);
    const dim3 grid(static_cast<unsigned>(ceil_div(a.m, tile_m)),
                    static_cast<unsigned>(ceil_div(a.n, tile_n)));  // tile_grid()'s order
    CT_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared_bytes)));
    kernel<<<grid, threads, shared_bytes, a.stream>>>(a_map, b_map, a.c, a.m, a.n, a.k);
    CT_CHECK_LAUNCH();
}

}  // namespace matmul::detail::hopper
