#include "check.hpp"

#include <cstring>
#include <vector>

#include "typed_reference.hpp"  // tests/: the value rule of typed plans, element by element

namespace xpose_tool {
namespace {

// The index map of a request: output element j (memory order) is input element source(j).
class IndexMap {
 public:
  IndexMap(const Case& c, xpose_layout_t layout, const std::vector<int64_t>& in_strides,
           const std::vector<int64_t>& out_strides)
      : rank_(static_cast<int>(c.extents.size())) {
    std::vector<int64_t> in_stride(rank_);
    int64_t s = 1, t = 1;
    for (int n = 0; n < rank_; ++n) {  // dimension order from fastest to slowest
      const int k = layout == XPOSE_ROW_MAJOR ? rank_ - 1 - n : n;
      in_stride[k] = in_strides.empty() ? s : in_strides[k];
      s *= c.extents[k];
    }
    for (int n = 0; n < rank_; ++n) {
      const int i = layout == XPOSE_ROW_MAJOR ? rank_ - 1 - n : n;
      out_dim_.push_back(i);
      out_extent_.push_back(c.extents[c.perm[i]]);
      src_stride_.push_back(in_stride[c.perm[i]]);
      dst_stride_.push_back(out_strides.empty() ? t : out_strides[i]);
      t *= c.extents[c.perm[i]];
    }
  }

  // Input offset of the output element of linear index j (memory order of a dense output);
  // `dst` gets its output offset, `coords` its output coordinates (user's order).
  int64_t source(int64_t j, int64_t* dst, std::vector<int64_t>* coords) const {
    int64_t offset = 0, target = 0;
    for (int n = 0; n < rank_; ++n) {
      const int64_t x = j % out_extent_[n];
      j /= out_extent_[n];
      offset += x * src_stride_[n];
      target += x * dst_stride_[n];
      if (coords) (*coords)[out_dim_[n]] = x;
    }
    *dst = target;
    return offset;
  }

 private:
  int rank_;
  std::vector<int> out_dim_;        // fastest-first: which output dimension
  std::vector<int64_t> out_extent_;  // its extent
  std::vector<int64_t> src_stride_;  // the input stride of that dimension
  std::vector<int64_t> dst_stride_;  // its output stride
};

}  // namespace

namespace {

// Compares sampled output elements (every one when the volume is at most `max_samples`) with
// what `expect(src, dst, j)` says; first_wrong names the first mismatch.
template <class Expect>
CheckResult check_samples(const Case& c, const IndexMap& map, int64_t max_samples, uint64_t seed,
                          Expect expect) {
  CheckResult r;
  const int64_t volume = c.volume();
  if (volume == 0) return r;
  const bool all = volume <= max_samples;
  const int64_t n = all ? volume : max_samples + 2;
  int64_t first_bad = -1, wrong = 0;
#pragma omp parallel for reduction(+ : wrong) schedule(static)
  for (int64_t t = 0; t < n; ++t) {
    const int64_t j = all ? t : t == 0 ? 0 : t == 1 ? volume - 1
                                  : static_cast<int64_t>(mix64(seed, t) % volume);
    int64_t dst;
    const int64_t src = map.source(j, &dst, nullptr);
    if (!expect(src, dst)) {
      ++wrong;
#pragma omp critical(xpose_check_first)
      if (first_bad < 0 || j < first_bad) first_bad = j;
    }
  }
  r.checked = n;
  r.wrong = wrong;
  if (first_bad >= 0) {
    std::vector<int64_t> coords(c.extents.size());
    int64_t dst;
    const int64_t src = map.source(first_bad, &dst, &coords);
    r.first_wrong = "out[" + std::to_string(dst) + "] (output coordinates " + join(coords) +
                    ") differs from what in[" + std::to_string(src) + "] makes";
  }
  return r;
}

}  // namespace

CheckResult check_transpose(const Case& c, size_t elem, xpose_layout_t layout,
                            const unsigned char* in, const unsigned char* out,
                            int64_t max_samples, uint64_t seed,
                            const std::vector<int64_t>& in_strides,
                            const std::vector<int64_t>& out_strides) {
  const IndexMap map(c, layout, in_strides, out_strides);
  return check_samples(c, map, max_samples, seed, [&](int64_t src, int64_t dst) {
    return std::memcmp(out + dst * elem, in + src * elem, elem) == 0;
  });
}

CheckResult check_typed(const Case& c, const Settings& s, const CaseViews& v,
                        const unsigned char* in, const unsigned char* out, int64_t max_samples,
                        uint64_t seed) {
  xpose_test::TypedCase t;
  t.extents = c.extents;
  t.perm = c.perm;
  t.in_type = s.type;
  t.out_type = s.out_type;
  t.elem_size = v.in_elem;
  t.alpha[0] = s.alpha;
  t.beta[0] = s.beta;
  const IndexMap map(c, s.layout, v.in_strides, v.out_strides);
  return check_samples(c, map, max_samples, seed, [&](int64_t src, int64_t dst) {
    unsigned char want[16] = {};  // the output held zero bytes before the checked run
    xpose_test::detail_ref::element(t, in + src * static_cast<int64_t>(v.in_elem), want);
    return std::memcmp(out + dst * static_cast<int64_t>(v.out_elem), want, v.out_elem) == 0;
  });
}

}  // namespace xpose_tool
