// Measurements behind the gpu-architecture lesson and the hardware table (tools/probes/run.sh;
// one H200 run is in h200-results.txt):
// 1. NVIDIA's cuda_occupancy.h over a sweep of (threads, registers, shared memory) for the real
//    device (cc 9.0) and for A100 limits (cc 8.0), to compare with the engine's port.
// 2. Pointer-chase latency (one thread) for an L1-, an L2- and an HBM-sized buffer.
// 3. Achieved read bandwidth against resident warps per SM, one float4 load in flight per thread.
#include <cuda_runtime.h>
#include <cuda_occupancy.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__global__ void chase(const unsigned* __restrict__ next, unsigned start, int steps, unsigned* out, long long* cycles) {
  unsigned j = start;
  for (int i = 0; i < steps; ++i) j = next[j];
  long long t0 = clock64();
  for (int i = 0; i < steps; ++i) j = next[j];
  long long t1 = clock64();
  out[0] = j;
  cycles[0] = t1 - t0;
}

__global__ void stream(const float4* __restrict__ a, size_t n, float* out) {
  float acc = 0.f;
  size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 1
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 v = a[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.678f) out[0] = acc;
}

static void occ_sweep(FILE* f, cudaOccDeviceProp p, const char* tag) {
  const int threads[] = {1, 32, 33, 64, 90, 96, 100, 128, 160, 192, 224, 256, 288, 320, 384, 448, 500, 512, 576, 640, 704, 768, 800, 832, 896, 960, 1000, 1024};
  const long smem[] = {0, 1, 1000, 4096, 10000, 36864, 49152, 100000, 101376, 166912, 232448};
  for (int t : threads)
    for (int r = 1; r <= 255; ++r)
      for (long s : smem) {
        if ((size_t)s > p.sharedMemPerBlockOptin) continue;
        cudaOccFuncAttributes a;
        a.maxThreadsPerBlock = 1024;
        a.numRegs = r;
        a.sharedSizeBytes = 0;
        a.partitionedGCConfig = PARTITIONED_GC_OFF;
        a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        a.maxDynamicSharedSizeBytes = p.sharedMemPerBlockOptin;
        cudaOccDeviceState st;
        cudaOccResult res;
        cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &a, &st, t, (size_t)s);
        fprintf(f, "%s,%d,%d,%ld,%d,%d\n", tag, t, r, s, e == CUDA_OCC_SUCCESS ? res.activeBlocksPerMultiprocessor : -1,
                e == CUDA_OCC_SUCCESS ? (int)res.limitingFactors : -1);
      }
}

int main(int argc, char** argv) {
  const char* outdir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  printf("device %s cc %d.%d sms %d smemPerSM %zu optin %zu reserved %zu regsPerSM %d regsPerBlock %d maxThreadsPerSM %d maxBlocksPerSM %d L2 %d clock_khz %d\n",
         prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor, prop.sharedMemPerBlockOptin,
         prop.reservedSharedMemPerBlock, prop.regsPerMultiprocessor, prop.regsPerBlock, prop.maxThreadsPerMultiProcessor,
         prop.maxBlocksPerMultiProcessor, prop.l2CacheSize, clock_khz);

  // 1. occupancy sweep
  char path[512];
  snprintf(path, sizeof path, "%s/occupancy.csv", outdir);
  FILE* f = fopen(path, "w");
  cudaOccDeviceProp real(prop);
  occ_sweep(f, real, "h200");
  cudaOccDeviceProp a100 = real;
  a100.computeMajor = 8; a100.computeMinor = 0;
  a100.sharedMemPerMultiprocessor = 167936; a100.sharedMemPerBlockOptin = 166912; a100.reservedSharedMemPerBlock = 1024;
  a100.numSms = 108;
  occ_sweep(f, a100, "a100");
  fclose(f);

  // 2. latency
  const size_t sizes[] = {16u << 10, 8u << 20, 1024u << 20};
  const char* names[] = {"l1", "l2", "hbm"};
  unsigned *d_next, *d_out; long long* d_cyc;
  CK(cudaMalloc(&d_next, sizes[2])); CK(cudaMalloc(&d_out, 4)); CK(cudaMalloc(&d_cyc, 8));
  std::mt19937 rng(1);
  for (int k = 0; k < 3; ++k) {
    const size_t line = 128 / 4, lines = sizes[k] / 128;
    std::vector<unsigned> order(lines);
    for (size_t i = 0; i < lines; ++i) order[i] = (unsigned)i;
    std::shuffle(order.begin() + 1, order.end(), rng);
    std::vector<unsigned> next(sizes[k] / 4, 0);
    for (size_t i = 0; i < lines; ++i) next[order[i] * line] = order[(i + 1) % lines] * line;
    CK(cudaMemcpy(d_next, next.data(), sizes[k], cudaMemcpyHostToDevice));
    const int steps = k == 2 ? 200000 : 100000;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    chase<<<1, 1>>>(d_next, 0, steps, d_out, d_cyc);
    CK(cudaDeviceSynchronize());
    cudaEventRecord(e0);
    chase<<<1, 1>>>(d_next, 0, steps, d_out, d_cyc);
    cudaEventRecord(e1);
    CK(cudaDeviceSynchronize());
    float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
    long long cyc = 0; CK(cudaMemcpy(&cyc, d_cyc, 8, cudaMemcpyDeviceToHost));
    printf("latency %s bytes %zu cycles_per_load %.1f ns_per_load_est %.1f\n", names[k], sizes[k], (double)cyc / steps, ms * 1e6 / (2.0 * steps));
  }
  CK(cudaFree(d_next));

  // 3. bandwidth vs warps per SM
  const size_t n = (size_t)2 << 30 >> 4;  // 2 GiB of float4
  float4* d_a; float* d_o;
  CK(cudaMalloc(&d_a, n * 16)); CK(cudaMalloc(&d_o, 4));
  CK(cudaMemset(d_a, 0, n * 16));
  const int warps[] = {1, 2, 4, 8, 12, 16, 20, 24, 32, 48, 64};
  for (int w : warps) {
    int blocks_per_sm = w > 32 ? 2 : 1, tpb = 32 * w / blocks_per_sm;
    int grid = prop.multiProcessorCount * blocks_per_sm;
    stream<<<grid, tpb>>>(d_a, n, d_o);
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    for (int it = 0; it < 3; ++it) stream<<<grid, tpb>>>(d_a, n, d_o);
    cudaEventRecord(e1);
    CK(cudaDeviceSynchronize());
    float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
    int active = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, stream, tpb, 0));
    printf("bandwidth warps_per_sm %d blocks_per_sm %d (fits %d) GBps %.1f\n", w, blocks_per_sm, active, 3.0 * n * 16 / (ms * 1e-3) / 1e9);
  }
  return 0;
}
