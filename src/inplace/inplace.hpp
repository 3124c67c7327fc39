// The in-place subsystem's internal entry (src/core/inplace.cpp): validation, classification on
// the normalized problem, backend choice and dispatch. xpose_transpose_inplace is this with
// nothing forced; tests and `xpose inplace` force schemes through `force`.
#pragma once

#include <cstdint>
#include <string>

#include "core/backend.hpp"
#include "xpose/xpose.h"

namespace xpose::detail {

// What a caller may force (InplaceRequest's forcing fields); scheme -1 = the backend's choice.
struct InplaceForce {
  int scheme = -1;
  int64_t w = 0, region = 0;
  std::string cpu_isa;  // InplaceRequest::cpu_isa
};

// Classifies a normalized problem: true and *r filled (forcing fields untouched) when it is a
// swap of two equal dimensions; `identity` when there is nothing to move (rank <= 1).
bool classify_inplace(const Problem& p, bool* identity, InplaceRequest* r);

// xpose_transpose_inplace with `force` (NULL = nothing forced). Status and xpose_last_error()
// as the C entry.
xpose_status_t transpose_inplace(int rank, const int64_t* extents, const int* perm,
                                 size_t elem_size, void* data, const xpose_options_t* options,
                                 void* stream, const InplaceForce* force);

// Parses a scheme name ("v1", "v1r", "v1b", "full", "sg"); -1 when unknown.
int inplace_scheme_from_name(const std::string& name);
const char* inplace_scheme_name(int scheme);

}  // namespace xpose::detail
