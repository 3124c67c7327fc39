// The order in which one thread walks its range of tiles. The outer nest (TileGeometry::loop,
// loop 0 innermost = smallest output stride) is walked with loop 0 ("A") and one more loop
// ("B", TileGeometry::b_loop: the one with the smallest input stride) as a plane cut into
// groups of ga x gb tiles: A innermost inside a group, then B, then the next group along A,
// then along B; the remaining loops are an odometer outside the plane. With ga = extent of A,
// gb = 1 and b_loop = 1 this is the plain odometer (A, loop 1, loop 2, ..). Groups keep both
// the input pages (shared along B) and the output pages (shared along A) of a group in the
// TLB (docs/cpu.md, "Tile order").
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/plans.hpp"

namespace xpose::detail::cpu {

struct TileCursor {
  int64_t coord[kMaxRank + 2]{};  // every loop's coordinate
  int64_t a0 = 0, b0 = 0;          // the current group's first A and B coordinates
  int64_t in_off = 0, out_off = 0;

  TileCursor(const TileGeometry& g, int64_t task) {
    const int b = g.b_loop;
    const int64_t ea = g.loop[0].extent, eb = g.loop[b].extent;
    int64_t p = task % (ea * eb), rest = task / (ea * eb);
    for (int l = 1; l < g.loops; ++l) {
      if (l == b) continue;
      coord[l] = rest % g.loop[l].extent;
      rest /= g.loop[l].extent;
    }
    b0 = p / (ea * g.gb) * g.gb;
    const int64_t hb = std::min(g.gb, eb - b0);
    p -= b0 * ea;  // position inside the row of groups b0 .. b0 + hb - 1
    a0 = p / (g.ga * hb) * g.ga;
    const int64_t ha = std::min(g.ga, ea - a0);
    p -= a0 * hb;
    coord[0] = a0 + p % ha;
    coord[b] = b0 + p / ha;
    offsets(g);
  }

  void next(const TileGeometry& g) {
    const int b = g.b_loop;
    const int64_t ea = g.loop[0].extent, eb = g.loop[b].extent;
    if (++coord[0] < std::min(a0 + g.ga, ea)) {
      in_off += g.loop[0].in_stride;
      out_off += g.loop[0].out_stride;
      return;
    }
    coord[0] = a0;
    if (++coord[b] >= std::min(b0 + g.gb, eb)) {  // group done: next group along A, then B
      a0 += g.ga;
      if (a0 >= ea) {
        a0 = 0;
        b0 += g.gb;
        if (b0 >= eb) {
          b0 = 0;
          carry(g);
        }
      }
      coord[0] = a0;
      coord[b] = b0;
    }
    offsets(g);
  }

 private:
  void carry(const TileGeometry& g) {
    for (int l = 1; l < g.loops; ++l) {
      if (l == g.b_loop) continue;
      if (++coord[l] < g.loop[l].extent) return;
      coord[l] = 0;
    }
  }
  void offsets(const TileGeometry& g) {
    in_off = out_off = 0;
    for (int l = 0; l < g.loops; ++l) {
      in_off += coord[l] * g.loop[l].in_stride;
      out_off += coord[l] * g.loop[l].out_stride;
    }
  }
};

}  // namespace xpose::detail::cpu
