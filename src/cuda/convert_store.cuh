// The stores that convert (dense conversions without beta between the floating types of 1 and
// 2 bytes, and from them to f32, scaled by alpha or not): elements of ES bytes in, of EO bytes
// out. The kernels that use them (narrow_typed.cu's narrow tiles, cells_typed.cu's cells) write
// to a virtual output of ES-byte elements (`out` as a tensor of ES-byte elements: element i's
// ES bytes at (out / EO + i) x ES, never dereferenced), and ConvertStore converts each whole word
// it is handed (4 elements of a quad, 4 / ES of a word) into one aligned store of that many
// output elements: a virtual word aligned to its size is a run of elements whose index is a
// multiple of their count, so its real store is aligned too (the output pointer a multiple of
// EO: the plan's view). The type pair and alpha's test are a number the stores switch on
// (uniform across the grid), so a kernel has an instantiation per element sizes, not per pair.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/elem_op.cuh"
#include "cuda/narrow_write.cuh"

namespace xpose::detail {
namespace {

// The floating types of 1 and 2 bytes the kernel converts from and to, and f32.
template <int Bytes>
struct NarrowFloat;
template <>
struct NarrowFloat<1> {
  static constexpr xpose_type_t a = XPOSE_TYPE_F8_E4M3, b = XPOSE_TYPE_F8_E5M2;
};
template <>
struct NarrowFloat<2> {
  static constexpr xpose_type_t a = XPOSE_TYPE_F16, b = XPOSE_TYPE_BF16;
};
template <>
struct NarrowFloat<4> {
  static constexpr xpose_type_t a = XPOSE_TYPE_F32, b = XPOSE_TYPE_F32;
};

// A type pair and alpha's test, as a tag.
template <xpose_type_t In, xpose_type_t Out, ScaleIs S>
struct Pair {};

// N x EO bytes (N = 1, 2 or 4 elements) at a multiple of that size, where `p`: predicated
// stores, no branch around them (4 and 8 bytes: narrow_write.cuh's store_if).
template <int Bytes>
__device__ __forceinline__ void store_bytes(bool p, uint8_t* at, const uint4& w) {
  const int q = static_cast<int>(p);
  if constexpr (Bytes == 1) {
    asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %0, 0;\n @q st.global.u8 [%1], %2;\n}" ::
                     "r"(q), "l"(at), "r"(w.x));
  } else if constexpr (Bytes == 2) {
    asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %0, 0;\n @q st.global.u16 [%1], %2;\n}" ::
                     "r"(q), "l"(at), "h"(static_cast<unsigned short>(w.x)));
  } else if constexpr (Bytes == 4 || Bytes == 8) {
    store_if(p, at, make_uint2(w.x, w.y), Bytes == 8);
  } else {
    static_assert(Bytes == 16);
    asm volatile(
        "{\n .reg .pred q;\n setp.ne.b32 q, %0, 0;\n"
        " @q st.global.v4.b32 [%1], {%2, %3, %4, %5};\n}" ::"r"(q),
        "l"(at), "r"(w.x), "r"(w.y), "r"(w.z), "r"(w.w));
  }
}

// The stores of a typed tile (narrow_write.cuh's PlainStore's interface): elements of ES bytes
// in, of EO bytes out, at the real address of each virtual one (the output as a tensor of
// ES-byte elements: element i's ES bytes at (out / EO + i) x ES).
template <int ES, int EO>
class ConvertStore {
 public:
  __device__ __forceinline__ explicit ConvertStore(const ElemOp& op)
      : op_(op),
        code_((op.scale ? 1 : 0) | (op.in_type == NarrowFloat<ES>::b ? 2 : 0) |
              (EO < 4 && op.out_type == NarrowFloat<EO>::b ? 4 : 0)) {}
  __device__ __forceinline__ explicit ConvertStore(const NarrowParams& p) : ConvertStore(p.op) {}

  template <int E>
  __device__ __forceinline__ void quad(bool p, uint8_t* at, uint2 v) const {
    static_assert(E == ES);
    const uint64_t x = (uint64_t{v.y} << 32) | v.x;
    visit([&](auto pair) { store_bytes<4 * EO>(p, real(at), convert<4>(pair, x)); });
  }
  __device__ __forceinline__ void word(uint8_t* at, uint32_t w) const {
    constexpr int kN = 4 / ES;
    visit([&](auto pair) { store_bytes<kN * EO>(true, real(at), convert<kN>(pair, w)); });
  }
  // The elements of bytes [lo, hi) of v (multiples of ES: the virtual output is on ES bytes).
  __device__ __forceinline__ void bytes(uint8_t* d, int lo, int hi, uint64_t v) const {
    visit([&](auto pair) {
      for (int j = lo; j < hi; j += ES)
        store_bytes<EO>(true, real(d + j), convert<1>(pair, v >> (8 * j)));
    });
  }
  template <int G>
  __device__ __forceinline__ void edge(uint8_t* dst, int lo, int len, uint32_t word) const {
    static_assert(G == ES);
    visit([&](auto pair) {
#pragma unroll
      for (int j = 0; j < kNarrowWord; j += ES) {
        const int ob = lo + j;
        store_bytes<EO>(ob >= 0 && ob < len, real(dst + ob), convert<1>(pair, word >> (8 * j)));
      }
    });
  }

 private:
  __device__ __forceinline__ static uint8_t* real(const uint8_t* at) {
    return reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(at) / ES * EO);
  }
  // The first N elements of x converted, packed from the low bytes of the result: two at a time
  // (convert2: two-lane conversions) into outputs of 1 and 2 bytes.
  template <int N, xpose_type_t In, xpose_type_t Out, ScaleIs S>
  __device__ __forceinline__ uint4 convert(Pair<In, Out, S>, uint64_t x) const {
    using Op = TypedOp<In, Out>;
    uint32_t o[4] = {0, 0, 0, 0};
    if constexpr (EO <= 2 && N % 2 == 0) {
#pragma unroll
      for (int i = 0; i < N / 2; ++i) {
        const uint32_t y = Op::template convert2<S>(op_, static_cast<uint32_t>(x >> (16 * ES * i)));
        o[(16 * EO * i) / 32] |= y << ((16 * EO * i) % 32);
      }
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        const auto e = static_cast<typename Op::in_t>(x >> (8 * ES * i));
        const uint32_t y = Op::template convert<S>(op_, e);
        o[(8 * EO * i) / 32] |= y << ((8 * EO * i) % 32);
      }
    }
    return make_uint4(o[0], o[1], o[2], o[3]);
  }
  // f(Pair<In, Out, S>{}) for this launch's pair and alpha.
  template <class F>
  __device__ __forceinline__ void visit(F&& f) const {
    using I = NarrowFloat<ES>;
    using O = NarrowFloat<EO>;
    constexpr ScaleIs kOff = ScaleIs::Off, kOn = ScaleIs::On;
    switch (code_) {
      case 0: f(Pair<I::a, O::a, kOff>{}); break;
      case 1: f(Pair<I::a, O::a, kOn>{}); break;
      case 2: f(Pair<I::b, O::a, kOff>{}); break;
      case 3: f(Pair<I::b, O::a, kOn>{}); break;
      default:
        if constexpr (EO < 4) {
          switch (code_) {
            case 4: f(Pair<I::a, O::b, kOff>{}); break;
            case 5: f(Pair<I::a, O::b, kOn>{}); break;
            case 6: f(Pair<I::b, O::b, kOff>{}); break;
            default: f(Pair<I::b, O::b, kOn>{}); break;
          }
        }
    }
  }

  const ElemOp& op_;
  int code_;
};

}  // namespace
}  // namespace xpose::detail
