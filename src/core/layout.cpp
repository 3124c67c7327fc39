#include "core/layout.hpp"

namespace xpose::detail {

int64_t Layout::size() const {
  int64_t n = 1;
  for (int k = 0; k < rank; ++k) n *= extent[k];
  return n;
}

int64_t Layout::operator()(int64_t i) const {
  int64_t offset = 0;
  for (int k = 0; k < rank; ++k) {
    offset += (i % extent[k]) * stride[k];
    i /= extent[k];
  }
  return offset;
}

Layout make_compact(int rank, const int64_t* extents) {
  Layout l;
  l.rank = rank;
  int64_t s = 1;
  for (int k = 0; k < rank; ++k) {
    l.extent[k] = extents[k];
    l.stride[k] = s;
    s *= extents[k];
  }
  return l;
}

Layout permute(const Layout& layout, const int* perm) {
  Layout l;
  l.rank = layout.rank;
  for (int i = 0; i < layout.rank; ++i) {
    l.extent[i] = layout.extent[perm[i]];
    l.stride[i] = layout.stride[perm[i]];
  }
  return l;
}

Layout coalesce(const Layout& layout) {
  Layout l;
  for (int k = 0; k < layout.rank; ++k) {
    if (layout.extent[k] == 1) continue;
    if (l.rank > 0 && layout.stride[k] == l.stride[l.rank - 1] * l.extent[l.rank - 1]) {
      l.extent[l.rank - 1] *= layout.extent[k];
      continue;
    }
    l.extent[l.rank] = layout.extent[k];
    l.stride[l.rank] = layout.stride[k];
    ++l.rank;
  }
  return l;
}

Perm inverse(int rank, const int* perm) {
  Perm inv{};
  for (int i = 0; i < rank; ++i) inv[perm[i]] = i;
  return inv;
}

Perm compose(int rank, const int* a, const int* b) {
  Perm c{};
  for (int i = 0; i < rank; ++i) c[i] = a[b[i]];
  return c;
}

std::string to_string(const Layout& layout) {
  std::string e = "(", s = "(";
  for (int k = 0; k < layout.rank; ++k) {
    if (k) {
      e += ',';
      s += ',';
    }
    e += std::to_string(layout.extent[k]);
    s += std::to_string(layout.stride[k]);
  }
  return e + "):" + s + ")";
}

}  // namespace xpose::detail
