// The element types of xpose_plan_create_ex: names, sizes, kinds. One table; no CUDA here.
#pragma once

#include <cstddef>
#include <cstring>

#include "xpose/xpose.h"

namespace xpose::detail {

enum class TypeKind { Bytes, Integer, Floating, Complex };

struct TypeInfo {
  const char* name;  // as in messages and describe(): "f32", "bf16", "f8e4m3", ...
  size_t size;       // bytes; 0 for BYTES (elem_size gives it)
  TypeKind kind;
};

inline constexpr int kNumTypes = XPOSE_TYPE_C64 + 1;

// Indexed by xpose_type_t; callers validate the value first (valid_type).
inline constexpr TypeInfo kTypes[kNumTypes] = {
    {"bytes", 0, TypeKind::Bytes},       {"i8", 1, TypeKind::Integer},
    {"u8", 1, TypeKind::Integer},        {"i16", 2, TypeKind::Integer},
    {"u16", 2, TypeKind::Integer},       {"i32", 4, TypeKind::Integer},
    {"u32", 4, TypeKind::Integer},       {"i64", 8, TypeKind::Integer},
    {"u64", 8, TypeKind::Integer},       {"f8e4m3", 1, TypeKind::Floating},
    {"f8e5m2", 1, TypeKind::Floating},   {"f16", 2, TypeKind::Floating},
    {"bf16", 2, TypeKind::Floating},     {"f32", 4, TypeKind::Floating},
    {"f64", 8, TypeKind::Floating},      {"c32", 8, TypeKind::Complex},
    {"c64", 16, TypeKind::Complex},
};

constexpr bool valid_type(int raw) { return raw >= 0 && raw < kNumTypes; }
constexpr const TypeInfo& type_info(xpose_type_t t) { return kTypes[t]; }

// Whether `from` converts to `to` (API.md: any two floating types, C32 <-> C64, else only a type
// to itself).
constexpr bool converts_to(xpose_type_t from, xpose_type_t to) {
  if (from == to) return true;
  const TypeKind a = type_info(from).kind, b = type_info(to).kind;
  return (a == TypeKind::Floating && b == TypeKind::Floating) ||
         (a == TypeKind::Complex && b == TypeKind::Complex);
}

// The unsigned integer type of `size` bytes (1, 2, 4, 8), for integer addition (beta = 1),
// which wraps around the same for signed and unsigned types; BYTES when there is none.
constexpr xpose_type_t unsigned_type(size_t size) {
  return size == 1   ? XPOSE_TYPE_U8
         : size == 2 ? XPOSE_TYPE_U16
         : size == 4 ? XPOSE_TYPE_U32
         : size == 8 ? XPOSE_TYPE_U64
                     : XPOSE_TYPE_BYTES;
}

// The int a C caller stored in an enum field. Reading an out-of-range value through the enum
// type is undefined in C++ (the enum's range is that of its enumerators' bits), and C callers
// can store any int, so validation looks at the bytes.
template <class E>
int raw_enum(const E& field) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized on supported ABIs");
  int v;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

// Parses a type's name as type_info gives it; false when unknown.
bool parse_type(const char* name, xpose_type_t* type);

}  // namespace xpose::detail
