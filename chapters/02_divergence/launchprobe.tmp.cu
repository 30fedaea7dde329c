// temporary experiment: which error does an over-1024-thread launch give, and when?
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k1(float* c, int n) { if (threadIdx.x == 0 && n < 0) c[0] = 1; }
__global__ void k2(const float* a, const float* b, float* c, int nx, int ny) { if (nx < 0) c[0] = a[0] + b[0] + ny; }
__global__ void k3(float* c, int n) { if (threadIdx.x == 0 && n < 0) c[0] = 2; }
static void show(const char* what, cudaError_t e) { printf("%-48s %s\n", what, cudaGetErrorName(e)); }
int main() {
  float* p; cudaMalloc(&p, 64);
  k1<<<1, dim3(64, 32)>>>(p, 1); show("k1 64x32 first launch", cudaGetLastError());
  k1<<<1, dim3(64, 32)>>>(p, 1); show("k1 64x32 second", cudaGetLastError());
  k1<<<1, 32>>>(p, 1); show("k1 32 ok", cudaGetLastError()); cudaDeviceSynchronize();
  k1<<<1, dim3(64, 32)>>>(p, 1); show("k1 64x32 after a good launch", cudaGetLastError());
  k1<<<1, dim3(2048)>>>(p, 1); show("k1 2048x1", cudaGetLastError());
  k1<<<1, dim3(4096)>>>(p, 1); show("k1 4096 (x over its limit)", cudaGetLastError());
  cudaFuncAttributes at; cudaFuncGetAttributes(&at, k3);
  k3<<<1, dim3(64, 32)>>>(p, 1); show("k3 64x32 after cudaFuncGetAttributes", cudaGetLastError());
  k2<<<dim3(1, 1), dim3(256, 8, 1)>>>(p, p, p, 8, 8); show("k2 (5 params) 256x8 first", cudaGetLastError());
  k2<<<dim3(1, 1), dim3(256, 8, 1)>>>(p, p, p, 8, 8); show("k2 256x8 second", cudaGetLastError());
  cudaFree(p);
  return 0;
}
