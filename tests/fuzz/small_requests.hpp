// Small valid requests for the execution fuzzers: rank 0..8, extents whose volume stays below
// kMaxVolume, any permutation, elem_size 1..16, either layout.
#pragma once

#include "hostile_args.hpp"

namespace xpose_fuzz {

constexpr int64_t kMaxVolume = 1 << 14;

inline Request small_request(FuzzedDataProvider& in) {
  static constexpr size_t kSizes[] = {1, 2, 4, 8, 16};
  Request r;
  r.rank = in.ConsumeIntegralInRange<int>(0, 8);
  r.elem_size = in.PickValueInArray(kSizes);
  int64_t volume = 1;
  for (int k = 0; k < r.rank; ++k) {
    const int64_t e = in.ConsumeIntegralInRange<int64_t>(0, std::max<int64_t>(1, kMaxVolume / volume));
    r.extents.push_back(e);
    if (e > 0) volume *= e;
  }
  r.perm = permutation(in, r.rank);
  r.extents.push_back(1);  // addressable at rank 0, as a C caller's arrays would be
  r.perm.push_back(0);
  return r;
}

}  // namespace xpose_fuzz
