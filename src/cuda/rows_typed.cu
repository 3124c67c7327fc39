// Typed rows: FVI-Match-Large for typed problems (conversions, alpha / beta; strided or not) and
// their plain element conversions (normalized rank <= 1). Row r is n = row_bytes / sizeof(in)
// elements, contiguous in both tensors. A warp takes a chunk of RowParams::chunk_groups groups
// of a row: group g is the W = CB / sizeof(in) elements whose output starts at an aligned
// boundary of min(W * sizeof(out), 16) bytes (group 0 may start before the row), CB the bytes
// of an input chunk: 16, or for widening conversions those of 16 output bytes.
// Lane l loads group g's aligned input chunk (consecutive lanes: consecutive chunks, 32 CB
// contiguous bytes a warp instruction); where the row's input is off that boundary by `shift`
// bytes (the same for every group of a row), the chunk after it comes from the next lane by
// shuffles and the two are funnel-shifted into the group's CB bytes. The lane converts its W
// elements and stores W * sizeof(out) bytes in aligned accesses (2 to 16 bytes, or 16-byte
// pieces).
// Groups that reach outside the row (its two ends) or whose chunks leave the bytes the input
// reaches (RowParams::in_begin, in_end) go an element at a time. With beta and no conversion
// (f32 with beta = 1), a whole group's old outputs are loaded with its input: loaded where they
// were used, those rows ran 0.94x of the tiles they replaced; loaded with the input in every
// instantiation, the conversions' registers (beta or not) went from 58-64 to 94-96 (two blocks
// an SM) and f32 -> bf16 rows of 2-8 KB ran 0.88-0.95x of the tiles (H200, session 42). No
// shared memory.
//
// The tile kernels that took these problems (fvi-small tiles of a whole row) move an element a
// thread a load through shared memory: 0.36-0.71 of a copy for f32 -> bf16 and f16 -> f32,
// 0.21-0.37 for bf16 -> e4m3 on the H200, and the general kernel took rank-1 conversions
// (docs/perf/typed-h100.md, session 42).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "core/status.hpp"
#include "cuda/bytes.cuh"
#include "cuda/elem_op.cuh"
#include "cuda/elem_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/rows.cuh"
#include "cuda/runtime.hpp"

namespace xpose::detail {
namespace {

// Groups of 16 input bytes a lane loads before it converts the first (of smaller chunks, as
// many bytes, up to 8 groups).
constexpr int kGroupsInFlight = 4;

// `Bytes` (2 to 32) from `src` to aligned `d`, in accesses of up to 16 bytes.
template <int Bytes>
__device__ __forceinline__ void store_aligned(uint8_t* d, const void* src) {
  if constexpr (Bytes >= 16) {
    uint4 w[Bytes / 16];
    memcpy(w, src, Bytes);
#pragma unroll
    for (int i = 0; i < Bytes / 16; ++i) reinterpret_cast<uint4*>(d)[i] = w[i];
  } else if constexpr (Bytes == 8) {
    uint2 w;
    memcpy(&w, src, 8);
    *reinterpret_cast<uint2*>(d) = w;
  } else if constexpr (Bytes == 4) {
    uint32_t w;
    memcpy(&w, src, 4);
    *reinterpret_cast<uint32_t*>(d) = w;
  } else {
    static_assert(Bytes == 2);
    uint16_t w;
    memcpy(&w, src, 2);
    *reinterpret_cast<uint16_t*>(d) = w;
  }
}

template <int Bytes>
__device__ __forceinline__ void load_aligned(const uint8_t* s, void* dst) {
  if constexpr (Bytes >= 16) {
    uint4 w[Bytes / 16];
#pragma unroll
    for (int i = 0; i < Bytes / 16; ++i) w[i] = reinterpret_cast<const uint4*>(s)[i];
    memcpy(dst, w, Bytes);
  } else if constexpr (Bytes == 8) {
    const uint2 w = *reinterpret_cast<const uint2*>(s);
    memcpy(dst, &w, 8);
  } else if constexpr (Bytes == 4) {
    const uint32_t w = *reinterpret_cast<const uint32_t*>(s);
    memcpy(dst, &w, 4);
  } else {
    static_assert(Bytes == 2);
    const uint16_t w = *reinterpret_cast<const uint16_t*>(s);
    memcpy(dst, &w, 2);
  }
}

constexpr unsigned kAll = 0xffffffffu;

// An aligned input chunk of CB bytes.
template <int CB> struct ChunkOf;
template <> struct ChunkOf<16> { using T = uint4; };
template <> struct ChunkOf<8> { using T = uint2; };
template <> struct ChunkOf<4> { using T = uint32_t; };

// The next lane's chunk.
__device__ __forceinline__ uint4 shfl_down(const uint4& v) {
  return make_uint4(__shfl_down_sync(kAll, v.x, 1), __shfl_down_sync(kAll, v.y, 1),
                    __shfl_down_sync(kAll, v.z, 1), __shfl_down_sync(kAll, v.w, 1));
}
__device__ __forceinline__ uint2 shfl_down(const uint2& v) {
  return make_uint2(__shfl_down_sync(kAll, v.x, 1), __shfl_down_sync(kAll, v.y, 1));
}
__device__ __forceinline__ uint32_t shfl_down(uint32_t v) { return __shfl_down_sync(kAll, v, 1); }

// The CB bytes that start `shift` (1..CB-1) bytes into two consecutive chunks.
__device__ __forceinline__ uint4 realign(const uint4& c0, const uint4& c1, int shift) {
  return realign16(c0, c1, shift);
}
__device__ __forceinline__ uint2 realign(const uint2& c0, const uint2& c1, int shift) {
  const uint64_t lo = (static_cast<uint64_t>(c0.y) << 32) | c0.x;
  const uint64_t hi = (static_cast<uint64_t>(c1.y) << 32) | c1.x;
  const uint64_t r = (lo >> (8 * shift)) | (hi << (64 - 8 * shift));
  return make_uint2(static_cast<uint32_t>(r), static_cast<uint32_t>(r >> 32));
}
__device__ __forceinline__ uint32_t realign(uint32_t c0, uint32_t c1, int shift) {
  return __funnelshift_r(c0, c1, 8u * static_cast<unsigned>(shift));
}


// kOld: a whole group's old outputs (beta) are loaded with its input, where they fit 16 bytes;
// else where they are used.
template <class Op, ScaleIs S, bool kOld>
__device__ __forceinline__ void typed_rows(const RowParams& p, const uint8_t* in, uint8_t* out) {
  using I = typename Op::in_t;
  using O = typename Op::out_t;
  constexpr int SI = sizeof(I), SO = sizeof(O);
  // Input bytes of a group (typed_row_chunk_bytes): 16, or for widening conversions fewer, so
  // that a lane stores 16 bytes. With 16 input bytes a lane, f16 -> f32 rows stored 32 bytes a
  // lane in two 16-byte stores 32 bytes apart (a warp instruction: every other 16 bytes of 1 KB)
  // and ran 0.72-0.74 of a copy at rank 1, against 0.98-1.03 for f32 -> bf16 (H200, session 42).
  constexpr int CB = typed_row_chunk_bytes(SI, SO);
  using C = typename ChunkOf<CB>::T;
  constexpr int W = CB / SI;                   // elements of a group
  constexpr int OB = W * SO;                   // its output bytes
  constexpr int A = OB < 16 ? OB : 16;         // their alignment
  constexpr int U = kGroupsInFlight * 16 / CB < 8 ? kGroupsInFlight * 16 / CB : 8;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int64_t n = p.row_bytes / SI;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(in) + static_cast<uintptr_t>(p.in_begin);
  const uintptr_t hi = reinterpret_cast<uintptr_t>(in) + static_cast<uintptr_t>(p.in_end);
  const int64_t warps = kRowThreads / 32;
  const int64_t step = static_cast<int64_t>(gridDim.x) * warps;
  for (int64_t item = blockIdx.x * warps + threadIdx.x / 32; item < p.items; item += step) {
    const uint64_t row = p.chunks.div(static_cast<uint64_t>(item));
    const int64_t chunk = item - static_cast<int64_t>(row * p.chunks.d);
    int64_t ib, ob;
    row_offsets(p, row, &ib, &ob);
    uint8_t* const orow = out + ob;
    const uint8_t* const irow = in + ib;
    const int lead = static_cast<int>((reinterpret_cast<uintptr_t>(orow) & (A - 1)) / SO);
    const uintptr_t first = reinterpret_cast<uintptr_t>(irow) - static_cast<uintptr_t>(lead * SI);
    const int shift = static_cast<int>(first & (CB - 1));
    const uintptr_t c_base = first - static_cast<uintptr_t>(shift);  // group 0's chunk
    const int64_t groups = (n + lead + W - 1) / W;
    const int64_t g0 = chunk * p.chunk_groups;
    const int64_t g1 = min(groups, g0 + p.chunk_groups);
    for (int64_t base = g0; base < g1; base += 32 * U) {
      C c0[U];
      uint4 old[U];  // kOld: the old outputs of whole groups
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int64_t g = base + u * 32 + lane;
        const uintptr_t a = c_base + CB * static_cast<uintptr_t>(g);
        c0[u] = C{};
        if (g < g1 && a >= lo && a + CB <= hi) c0[u] = *reinterpret_cast<const C*>(a);
        if constexpr (kOld && OB <= 16) {
          const int64_t k = g * W - lead;
          if (p.op.accumulate && g < g1 && k >= 0 && k + W <= n)
            load_aligned<OB>(orow + k * SO, &old[u]);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int64_t g = base + u * 32 + lane;
        const uintptr_t a = c_base + CB * static_cast<uintptr_t>(g);
        C c1{};
        if (shift != 0) c1 = shfl_down(c0[u]);  // warp-uniform: every lane shuffles
        if (g >= g1) continue;
        const int64_t k = g * W - lead;  // the group's first element in the row
        bool vec = k >= 0 && k + W <= n && a >= lo && a + CB <= hi;
        if (shift != 0) {
          const bool inside1 = a + 2 * CB <= hi;
          // The next lane loaded chunk g + 1 where it has that group and the chunk is inside.
          if (vec && inside1 && (lane == 31 || g + 1 >= g1))
            c1 = *reinterpret_cast<const C*>(a + CB);
          vec = vec && inside1;
        }
        uint8_t* const dst = orow + k * SO;
        if (vec) {
          const C raw = shift != 0 ? realign(c0[u], c1, shift) : c0[u];
          I x[W];
          memcpy(x, &raw, CB);
          O y[W] = {};
          if (p.op.accumulate) {
            if constexpr (kOld && OB <= 16)
              memcpy(y, &old[u], OB);
            else
              load_aligned<OB>(dst, y);
          }
          O r[W];
#pragma unroll
          for (int j = 0; j < W; ++j) r[j] = Op::template apply<S>(p.op, x[j], y[j]);
          store_aligned<OB>(dst, r);
        } else {  // the row's ends, the tensor's ends: an element at a time
          const int j0 = k < 0 ? static_cast<int>(-k) : 0;
          const int j1 = k + W > n ? static_cast<int>(n - k) : W;
          const I* const src = reinterpret_cast<const I*>(irow) + k;
          O* const o = reinterpret_cast<O*>(dst);
          for (int j = j0; j < j1; ++j) {
            const O y = p.op.accumulate ? o[j] : O{};
            o[j] = Op::template apply<S>(p.op, src[j], y);
          }
        }
      }
    }
  }
}

// op.scale known in each instantiation (with it tested an element, the binary grew 6 MB more:
// every group's W conversions are unrolled kGroupsInFlight times).
template <xpose_type_t In, xpose_type_t Out>
__global__ void __launch_bounds__(kRowThreads)
    rows_typed_kernel(const __grid_constant__ RowParams p, const uint8_t* __restrict__ in,
                      uint8_t* __restrict__ out) {
  using Op = TypedOp<In, Out>;
  if (p.op.scale)
    typed_rows<Op, ScaleIs::On, In == Out>(p, in, out);
  else
    typed_rows<Op, ScaleIs::Off, In == Out>(p, in, out);
}

template <xpose_type_t In, xpose_type_t Out>
struct RowsTyped {
  static cudaError_t fn(const RowParams& p, const void* in, void* out, cudaStream_t stream,
                        unsigned grid) {
    return launch_kernel(&rows_typed_kernel<In, Out>, grid, kRowThreads, 0, stream, p,
                         static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out));
  }
};

}  // namespace

xpose_status_t launch_rows_typed(const RowParams& p, const void* in, void* out, void* stream,
                                 unsigned grid) {
  const auto fn = OpTable<RowsTyped>::find(p.op);
  if (!fn)
    return fail(XPOSE_ERROR_UNSUPPORTED, "no CUDA row kernel converts type " +
                                             std::to_string(p.op.in_type) + " to type " +
                                             std::to_string(p.op.out_type));
  return launch_status(fn(p, in, out, static_cast<cudaStream_t>(stream), grid), "rows");
}

}  // namespace xpose::detail
