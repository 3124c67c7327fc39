// Run 19 probe (docs/perf/cuda-h100.md): does a bigger tile help a rank-2 transpose, with a read
// and write phase that keep no per-element registers (rows walked by index arithmetic on
// compile-time tile sides)? Not part of the library: a standalone experiment.
//   nvcc -O3 -arch=sm_90 -o big_tile_probe big_tile_probe.cu && ./big_tile_probe
// out[i][j] = in[j][i] for an n0 x n1 matrix of doubles (in: n1 rows of n0, i fastest).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e_ = (x);                                                     \
    if (e_ != cudaSuccess) {                                                  \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e_));                    \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

constexpr int kThreads = 1024;

// TA along i (input-contiguous), TB along j (output-contiguous); a tile is TB input rows of TA
// and TA output rows of TB, staged as TB rows of pitch TA + 1 doubles, two buffers.
template <int TA, int TB>
__global__ void __launch_bounds__(kThreads, 1)
    probe(const double* __restrict__ in, double* __restrict__ out, long n0, long n1) {
  extern __shared__ double sm[];
  constexpr int kPitch = TA + 1, kBuf = TB * kPitch, kVol = TA * TB;
  const long tiles_a = (n0 + TA - 1) / TA, tiles = tiles_a * ((n1 + TB - 1) / TB);
  // Output-blocked dim (j) fastest, as the library walks.
  auto base = [&](long t, long* i0, long* j0) {
    const long tb = t % ((n1 + TB - 1) / TB);
    *j0 = tb * TB;
    *i0 = (t / ((n1 + TB - 1) / TB)) * TA;
  };
  auto load = [&](long t, int buf) {
    long i0, j0;
    base(t, &i0, &j0);
    const int la = (int)min((long)TA, n0 - i0), lb = (int)min((long)TB, n1 - j0);
    for (int idx = threadIdx.x; idx < kVol; idx += kThreads) {
      const int r = idx / TA, c = idx % TA;
      if (r < lb && c < la) {
        const unsigned dst = (unsigned)__cvta_generic_to_shared(sm + buf * kBuf + r * kPitch + c);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst),
                     "l"(in + (j0 + r) * n0 + i0 + c));
      }
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  long t = blockIdx.x;
  if (t >= tiles) return;
  load(t, 0);
  int buf = 0;
  for (; t < tiles; t += gridDim.x) {
    if (t + gridDim.x < tiles)
      load(t + gridDim.x, buf ^ 1);
    else
      asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 1;\n" ::);
    __syncthreads();
    long i0, j0;
    base(t, &i0, &j0);
    const int la = (int)min((long)TA, n0 - i0), lb = (int)min((long)TB, n1 - j0);
    const double* s = sm + buf * kBuf;
    for (int idx = threadIdx.x; idx < kVol; idx += kThreads) {
      const int c = idx / TB, r = idx % TB;
      if (r < lb && c < la) out[(i0 + c) * n1 + j0 + r] = s[r * kPitch + c];
    }
    __syncthreads();
    buf ^= 1;
  }
}

template <int TA, int TB>
float run(const double* in, double* out, long n0, long n1, int sms, int reps) {
  const int smem = 2 * TB * (TA + 1) * 8;
  CHECK(cudaFuncSetAttribute(probe<TA, TB>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const long tiles = ((n0 + TA - 1) / TA) * ((n1 + TB - 1) / TB);
  const int grid = (int)std::min<long>(tiles, sms);
  std::vector<float> ms;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int r = 0; r < reps + 2; ++r) {
    cudaEventRecord(a);
    probe<TA, TB><<<grid, kThreads, smem>>>(in, out, n0, n1);
    cudaEventRecord(b);
    CHECK(cudaEventSynchronize(b));
    float x;
    cudaEventElapsedTime(&x, a, b);
    if (r >= 2) ms.push_back(x);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

bool check(const double* din, const double* dout, long n0, long n1) {
  std::vector<double> h(n0 * n1), o(n0 * n1);
  CHECK(cudaMemcpy(h.data(), din, n0 * n1 * 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o.data(), dout, n0 * n1 * 8, cudaMemcpyDeviceToHost));
  for (long k = 0; k < n0 * n1; k += 9973) {
    const long j = k / n0, i = k % n0;
    if (o[i * n1 + j] != h[k]) return false;
  }
  return true;
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long sizes[][2] = {{4096, 4096}, {8192, 8192}, {13952, 13952}, {13961, 13961}, {13953, 13952}};
  std::printf("n0,n1,copy_ms,tile,ms,ratio,ok\n");
  for (const auto& s : sizes) {
    const long n0 = s[0], n1 = s[1], bytes = n0 * n1 * 8;
    double *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    std::vector<double> h(n0 * n1);
    for (long k = 0; k < n0 * n1; ++k) h[k] = (double)(k * 2654435761u % 1000003);
    CHECK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
    std::vector<float> c;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int r = 0; r < 12; ++r) {
      cudaEventRecord(a);
      CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice));
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float x;
      cudaEventElapsedTime(&x, a, b);
      if (r >= 2) c.push_back(x);
    }
    std::sort(c.begin(), c.end());
    const float copy = c[c.size() / 2];
    auto report = [&](const char* name, float ms) {
      CHECK(cudaMemset(out, 0xff, bytes));
      std::printf("%ld,%ld,%.4f,%s,%.4f,%.4f,", n0, n1, copy, name, ms, copy / ms);
    };
#define PROBE(A, B)                                          \
  {                                                          \
    const float ms = run<A, B>(in, out, n0, n1, sms, 10);    \
    report(#A "x" #B, ms);                                   \
    probe<A, B><<<std::min<long>(sms, 1L << 30), kThreads,   \
                  2 * B * (A + 1) * 8>>>(in, out, n0, n1);   \
    CHECK(cudaDeviceSynchronize());                          \
    std::printf("%d\n", check(in, out, n0, n1));             \
  }
    PROBE(32, 128) PROBE(64, 64) PROBE(64, 128) PROBE(128, 64) PROBE(128, 96) PROBE(96, 128)
    cudaFree(in);
    cudaFree(out);
  }
  return 0;
}
