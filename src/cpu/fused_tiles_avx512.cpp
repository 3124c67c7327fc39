// Fused typed tile kernels for AVX-512 (F, BW, VL, DQ; fused_tiles.hpp). A block is transposed
// in registers in the input's element size, as the plain kernels do, and each of its output rows
// (one register) is converted there by typed_convert_avx512.hpp and stored in the output's size:
// - 4-byte inputs: blocks of 8 rows x 16 columns, two 8 x 8 f32 transposes side by side in the
//   halves of 512-bit registers (f32_block8.hpp's steps), each output row gathered from both
//   by one two-source permute: 16 f32 lanes, converted to 16 bf16 / f16 / e4m3 / e5m2;
// - 2-byte inputs: the word ladder's 8 x 32 blocks (narrow_blocks512.hpp): 32 16-bit lanes,
//   converted to 32 e4m3 or e5m2 bytes (from bf16 or f16), or to 32 bf16 / f16 (f16 <-> bf16).
// Tiles smaller than a block along a side take that side in one block with masked loads and
// stores (masked lanes are neither read nor written); larger ones end in overlapping whole
// blocks, as the plain kernels do (the same element converted twice gives the same bytes).
#include "cpu/fused_tiles.hpp"

#if defined(__x86_64__) && !defined(__clang__)
// GCC 12 flags the deliberately undefined source operand inside its own AVX-512 intrinsics as
// uninitialized; the warning is about the header, not this code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off", "no-trapping-math")
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")

#include "cpu/f32_block8.hpp"
#include "cpu/narrow_blocks512.hpp"
#include "cpu/typed_convert_avx512.hpp"

namespace xpose::detail::cpu {
namespace {

// The conversion of an output row of a block of kIn-byte inputs (64 / kIn lanes a register):
// put(p, v, n) converts register v by kConvert and stores its first n elements at p (n: the
// block's width, or fewer at a tile edge).
template <auto kConvert, int kInBytes>
struct Put {
  static constexpr int kIn = kInBytes, kLanes = 64 / kIn;
  static constexpr int kOut = static_cast<int>(sizeof(decltype(kConvert(__m512i{})))) / kLanes;
  static void put(char* p, __m512i v, int n) { store_bytes(p, kConvert(v), int64_t{n} * kOut); }
};

// f32_block8.hpp's steps on 512-bit registers: two 8 x 8 blocks, one per 256-bit half.
struct Ps512 {
  static __m512 unpacklo(__m512 a, __m512 b) { return _mm512_unpacklo_ps(a, b); }
  static __m512 unpackhi(__m512 a, __m512 b) { return _mm512_unpackhi_ps(a, b); }
  template <int I>
  static __m512 shuffle(__m512 a, __m512 b) {
    return _mm512_shuffle_ps(a, b, I);
  }
};

// The top-left nr x nc part (kFull: all) of a block of 4-byte inputs, 8 rows x 16 columns:
// columns q and q + 8 in the two halves of register q, transposed as two 8 x 8 blocks.
template <class C>
struct Block4 {
  using Conv = C;
  static constexpr int kR = 8, kC = 16;
  static_assert(C::kLanes == kC);
  template <bool kFull>
  static void run(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                  int nc) {
    const auto rmask = static_cast<__mmask8>((1u << nr) - 1);
    const auto column = [&](int q) {
      if (kFull) return _mm256_loadu_ps(reinterpret_cast<const float*>(in + icol[q]));
      return q < nc ? _mm256_maskz_loadu_ps(rmask, in + icol[q]) : _mm256_setzero_ps();
    };
    __m512 r[8], s[8];
    for (int q = 0; q < 8; ++q)
      r[q] = _mm512_insertf32x8(_mm512_castps256_ps512(column(q)), column(q + 8), 1);
    transpose8x8_steps<Ps512>(r, s);
    // Row q < 4 of each 8 x 8 half is (low 128 bits of s[q], low 128 bits of s[q + 4]) in that
    // half, row q + 4 the high ones: each output row takes its two halves' pieces at once.
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
    const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(4));
    const int n = kFull ? kC : nc;
    for (int q = 0; q < 4; ++q) {
      if (kFull || q < nr)
        C::put(out + orow[q], _mm512_castps_si512(_mm512_permutex2var_ps(s[q], lo, s[q + 4])), n);
      if (kFull || q + 4 < nr)
        C::put(out + orow[q + 4],
               _mm512_castps_si512(_mm512_permutex2var_ps(s[q], hi, s[q + 4])), n);
    }
  }
};

// The top-left nr x nc part (kFull: all) of a block of 2-byte inputs, 8 rows x 32 columns: the
// plain 2-byte kernel's word ladder.
template <class C>
struct Block2 {
  using Conv = C;
  static constexpr int kR = 8, kC = 32;
  static_assert(C::kLanes == kC);
  template <bool kFull>
  static void run(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                  int nc) {
    const auto rmask = static_cast<__mmask16>((1u << (2 * nr)) - 1);
    const auto lane = [&](int c) {
      if (kFull) return Ops512::load16(in + icol[c]);
      return c < nc ? _mm_maskz_loadu_epi8(rmask, in + icol[c]) : _mm_setzero_si128();
    };
    __m512i a[8];
    for (int c = 0; c < 8; ++c) a[c] = Ops512::join(lane(c), lane(c + 8), lane(c + 16), lane(c + 24));
    ladder<Ops512, 3, 1>(a);
    const int n = kFull ? kC : nc;
    for (int r = 0; r < (kFull ? kR : nr); ++r) C::put(out + orow[r], a[bit_reverse(r, 3)], n);
  }
};

// A whole nr x nc tile: column blocks outside, rows inside (the plain kernels' order); whole
// blocks overlapping at the far edges, one masked block along a side shorter than a block.
template <class K>
void fused_tile(const char* in, const int64_t* icol, char* out, const int64_t* orow, int nr,
                int nc, size_t) {
  constexpr int64_t ie = K::Conv::kIn, oe = K::Conv::kOut;
  const bool full = nr >= K::kR && nc >= K::kC;
  const int br = std::min(nr, K::kR), bc = std::min(nc, K::kC);
  side_steps(nc, K::kC, [&](int c) {
    side_steps(nr, K::kR, [&](int r) {
      if (full)
        K::template run<true>(in + r * ie, icol + c, out + c * oe, orow + r, K::kR, K::kC);
      else
        K::template run<false>(in + r * ie, icol + c, out + c * oe, orow + r, br, bc);
    });
  });
}

}  // namespace
}  // namespace xpose::detail::cpu

#pragma GCC pop_options

namespace xpose::detail::cpu {

TileKernel fused_tile_kernel(xpose_type_t in, xpose_type_t out, Isa isa) {
  static const bool has = __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (!has || (isa != Isa::kBest && isa != Isa::kAvx512)) return {};
  if (in == XPOSE_TYPE_F32 && out == XPOSE_TYPE_BF16)
    return {&fused_tile<Block4<Put<f32_to_bf16, 4>>>, "fused avx512-8x16", 8, 16};
  if (in == XPOSE_TYPE_F32 && out == XPOSE_TYPE_F16)
    return {&fused_tile<Block4<Put<f32_to_f16, 4>>>, "fused avx512-8x16", 8, 16};
  if (in == XPOSE_TYPE_F32 && out == XPOSE_TYPE_F8_E4M3)
    return {&fused_tile<Block4<Put<f32_to_e4m3, 4>>>, "fused avx512-8x16", 8, 16};
  if (in == XPOSE_TYPE_F32 && out == XPOSE_TYPE_F8_E5M2)
    return {&fused_tile<Block4<Put<f32_to_e5m2, 4>>>, "fused avx512-8x16", 8, 16};
  if (in == XPOSE_TYPE_BF16 && out == XPOSE_TYPE_F8_E5M2)
    return {&fused_tile<Block2<Put<bf16_to_e5m2, 2>>>, "fused avx512-8x32", 8, 32};
  if (in == XPOSE_TYPE_F16 && out == XPOSE_TYPE_F8_E5M2)
    return {&fused_tile<Block2<Put<f16_to_e5m2, 2>>>, "fused avx512-8x32", 8, 32};
  if (in == XPOSE_TYPE_BF16 && out == XPOSE_TYPE_F8_E4M3)
    return {&fused_tile<Block2<Put<bf16_to_e4m3, 2>>>, "fused avx512-8x32", 8, 32};
  if (in == XPOSE_TYPE_F16 && out == XPOSE_TYPE_F8_E4M3)
    return {&fused_tile<Block2<Put<f16_to_e4m3, 2>>>, "fused avx512-8x32", 8, 32};
  if (in == XPOSE_TYPE_F16 && out == XPOSE_TYPE_BF16)
    return {&fused_tile<Block2<Put<f16_to_bf16, 2>>>, "fused avx512-8x32", 8, 32};
  if (in == XPOSE_TYPE_BF16 && out == XPOSE_TYPE_F16)
    return {&fused_tile<Block2<Put<bf16_to_f16, 2>>>, "fused avx512-8x32", 8, 32};
  return {};
}

}  // namespace xpose::detail::cpu

#else

namespace xpose::detail::cpu {
TileKernel fused_tile_kernel(xpose_type_t, xpose_type_t, Isa) { return {}; }
}  // namespace xpose::detail::cpu

#endif

namespace xpose::detail::cpu {
bool takes_fused_tile(xpose_type_t in, xpose_type_t out, Isa isa, int64_t to) {
  const TileKernel k = fused_tile_kernel(in, out, isa);
  return k.fn != nullptr && to >= k.block_cols;
}
}  // namespace xpose::detail::cpu
