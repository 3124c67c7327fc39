// The narrow kernel's parameter blocks (params.hpp's NarrowParams), checked without a GPU: an
// emulation of what narrow.cu does with a block (rows read into shared memory, spans gathered
// from it, tile by tile) must transpose random problems exactly as the reference does, write
// every output byte once, and stay inside the rows it filled.
#include <gtest/gtest.h>

#include <bit>
#include <numeric>
#include <random>

#include "core/problem.hpp"
#include "cuda/planner.hpp"
#include "cuda/tile_shape.hpp"
#include "../fake_device.hpp"
#include "gpu_util.hpp"

using namespace xpose::detail;

namespace {

struct Decoded {
  int64_t global = 0;
  int64_t shared = 0;
  uint32_t c0 = 0, c1 = 0;
};

Decoded decode(const TileDim* dims, int n, uint32_t idx) {
  Decoded d;
  for (int k = 0; k < n; ++k) {
    const uint32_t q = dims[k].extent.div(idx), c = idx - q * dims[k].extent.d;
    idx = q;
    d.global += int64_t{c} * dims[k].stride;
    d.shared += int64_t{c} * dims[k].smem_stride;
    if (dims[k].slot == 0) d.c0 = c;
    if (dims[k].slot == 1) d.c1 = c;
  }
  return d;
}

int run_bytes(const NarrowPhase& ph, uint32_t lim0, uint32_t lim1) {
  return ph.slot < 0 ? ph.full : ph.unit * static_cast<int>(ph.slot == 0 ? lim0 : lim1);
}

// Marks the 32-byte sectors of bytes [from, from + n) as tile t's; true where one was another's.
bool claim_sectors(std::vector<int64_t>& owner, int64_t from, int64_t n, int64_t t) {
  bool shared = false;
  for (int64_t s = from / 32; s <= (from + n - 1) / 32 && n > 0; ++s) {
    shared = shared || (owner[s] >= 0 && owner[s] != t);
    owner[s] = t;
  }
  return shared;
}

// Emulates narrow.cu over the block `np` (no positions: whole rows and spans at once), the
// input `in_shift` bytes past a 16-byte boundary. `shared`: whether two tiles read or write one
// 32-byte sector (pointers on 32 bytes).
::testing::AssertionResult emulate(const NarrowParams& np, size_t es, const uint8_t* in,
                                   uint8_t* out, std::vector<int>* writes, bool* shared,
                                   int in_shift) {
  std::vector<int64_t> in_owner(np.in_bytes / 32 + 1, -1), out_owner(np.out_bytes / 32 + 1, -1);
  *shared = false;
  const int raw_rows = np.rd.runs + (np.halo ? kNarrowHaloRows : 0);  // halo rows after them
  if (!np.raw_rows &&
      (np.raw_pitch < (np.rd.full + 15) / 16 * 16 + 16 || np.raw_bytes != raw_rows * np.raw_pitch))
    return ::testing::AssertionFailure() << "raw rows too short for a row's envelope";
  // Raw rows (NarrowParams::raw_rows): the rows are gathered from a raw buffer.
  const int64_t rows_bytes = np.raw_rows ? np.raw_bytes : np.data_bytes;
  if (np.raw_rows && (np.data_bytes != 0 || np.quad || np.row_break || !np.n_tab ||
                      np.smem_bytes > kNarrowMaxSmemBytes))
    return ::testing::AssertionFailure() << "raw rows in a block that cannot take them";
  std::vector<int> filled(rows_bytes), chunk_row(rows_bytes);
  std::vector<uint8_t> smem(rows_bytes);
  for (int64_t t = 0; t < np.num_tiles; ++t) {
    int64_t bin = 0, bout = 0;
    uint32_t lim0 = np.slot_tile[0], lim1 = np.slot_tile[1];
    uint64_t rest = static_cast<uint64_t>(t);
    for (int k = 0; k < np.n_grid; ++k) {
      const GridDim& g = np.grid[k];
      const uint64_t q = g.count.div(rest);
      const int64_t c = static_cast<int64_t>(rest - q * g.count.d);
      rest = q;
      bin += c * g.in_step, bout += c * g.out_step;
      if (g.slot >= 0) {
        const uint32_t lim = static_cast<uint32_t>(std::min<int64_t>(g.extent - c * g.tile, g.tile));
        (g.slot == 0 ? lim0 : lim1) = lim;
      }
    }
    std::fill(filled.begin(), filled.end(), 0);
    std::fill(chunk_row.begin(), chunk_row.end(), -1);
    const int rlen = run_bytes(np.rd, lim0, lim1);
    if (!np.quad && !np.raw_rows && rlen > np.pitch - 4)
      return ::testing::AssertionFailure() << "row longer than its pitch";
    const int64_t tshift = (in_shift + bin * static_cast<int64_t>(es)) & 15;  // narrow.cu's T
    // Byte i of row r in shared memory: by column word with quads (narrow.cu's column_word),
    // else at r x pitch, padded after every row_break bytes.
    const auto byte_at = [&](int64_t r, int64_t i) {
      if (np.quad) return 4 * ((i / 4) * np.column_words + 8 + r) + i % 4;
      return r * np.pitch + i + (np.row_break ? kNarrowRowPad * (i / np.row_break) : 0);
    };
    for (int r = 0; r < np.rd.runs; ++r) {
      const Decoded d = decode(np.rd.dim, np.rd.n_dims, r);
      if (d.c0 >= lim0 || d.c1 >= lim1) continue;
      *shared = claim_sectors(in_owner, bin * es + d.global, rlen, t) || *shared;
      if (np.raw_rows) {
        // The row's aligned chunks (narrow.cu load_rows_as): on a chunk boundary, inside the
        // buffer, no chunk another row's.
        const int64_t shift = (in_shift + bin * static_cast<int64_t>(es) + d.global) & 15;
        const int64_t from = d.shared + tshift - shift;
        const int64_t to = from + (shift + rlen + 15) / 16 * 16;
        if (from < 0 || from % 16 != 0 || to > np.raw_bytes ||
            (shift + rlen + 15) / 16 > np.raw_per_row)
          return ::testing::AssertionFailure() << "raw row " << r << " at " << from << ".." << to;
        for (int64_t x = from; x < to; ++x) {
          if (chunk_row[x] >= 0)
            return ::testing::AssertionFailure() << "raw rows " << chunk_row[x] << " and " << r
                                                 << " share a chunk";
          chunk_row[x] = r;
        }
      }
      for (int i = 0; i < rlen; ++i) {
        const int64_t at = np.raw_rows ? tshift + d.shared + i : byte_at(r, i);
        if (at >= rows_bytes) return ::testing::AssertionFailure() << "row past the data";
        smem[at] = in[bin * es + d.global + i];
        filled[at] = 1;
      }
    }
    const int slen = run_bytes(np.wr, lim0, lim1);
    for (int s = 0; s < np.wr.runs; ++s) {
      const Decoded d = decode(np.wr.dim, np.wr.n_dims, s);
      // Quads (disjoint runs) take span s as column s of the rows and element el of its output
      // run as row el, whatever the decodes say: they must agree.
      if (np.quad && d.shared != s * static_cast<int64_t>(es))
        return ::testing::AssertionFailure() << "span " << s << " is not column " << s;
      if (d.c0 >= lim0 || d.c1 >= lim1) continue;
      *shared = claim_sectors(out_owner, bout * es + d.global, slen, t) || *shared;
      for (int ob = 0; ob < slen; ++ob) {
        const int el = ob / static_cast<int>(es);
        const int64_t within = ob - el * static_cast<int>(es);
        const int64_t at = np.quad ? byte_at(el, d.shared + within)
                           : (np.raw_rows ? tshift : 0) + d.shared + within +
                                 (np.n_tab ? decode(np.tab, np.n_tab, el).shared
                                           : int64_t{el} * np.lin_stride);
        if (at < 0 || at >= rows_bytes || !filled[at])
          return ::testing::AssertionFailure() << "span reads a byte no row filled: tile " << t;
        const int64_t o = bout * es + d.global + ob;
        out[o] = smem[at];
        ++(*writes)[o];
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// The gathered write's positions (narrow.cu write_gathered) over a full tile: with the span's
// start `off` bytes past a 32-byte sector, every byte of every span lies in exactly one word of
// one position, and the positions of a group are side by side (1 << group_shift of them).
::testing::AssertionResult positions_cover(const NarrowParams& np) {
  const int shift = np.group_shift;
  if (shift != (np.wr.full >= kNarrowLineSpanBytes ? 5 : 3))
    return ::testing::AssertionFailure() << "group_shift " << shift << " for spans of "
                                         << np.wr.full << " bytes";
  const int len = np.wr.full;
  for (int off = 0; off < 32; off += 7) {
    std::vector<int> hits(static_cast<size_t>(np.wr.runs) * len);
    for (int i = 0; i < np.wr.positions; ++i) {
      const int q = i >> shift, group = q / np.wr.runs, span = q % np.wr.runs;
      const int first = (((group * kNarrowWords) << shift) + (i & ((1 << shift) - 1))) * 4 - off;
      for (int m = 0; m < kNarrowWords; ++m) {
        const int lo = first + (m << shift) * 4;
        for (int b = std::max(lo, 0); b < std::min(lo + 4, len); ++b) ++hits[span * len + b];
      }
    }
    for (size_t k = 0; k < hits.size(); ++k)
      if (hits[k] != 1)
        return ::testing::AssertionFailure() << "span byte " << k % len << " of span "
                                             << k / len << " written " << hits[k] << " times";
  }
  return ::testing::AssertionSuccess();
}

// The gathered write's group of 8 lanes reads its words' first elements, 4 / es elements apart
// along the output-fastest dim, in at least 4 distinct banks (rows padded where they would not
// be: params.hpp kNarrowRowPad), wherever the group stays inside that dim (`tf`: its extent in
// the tile).
::testing::AssertionResult lanes_apart(const NarrowParams& np, size_t es, int64_t tf) {
  const int step = 4 / static_cast<int>(es);
  if (tf < 8 * step) return ::testing::AssertionSuccess();
  const int64_t stride = np.n_tab > 0 ? np.tab[0].smem_stride : np.lin_stride;
  uint32_t banks = 0;
  for (int l = 0; l < 8; ++l) banks |= 1u << ((l * step * stride / 4) % 32);
  if (std::popcount(banks) >= 4) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "8 lanes on " << std::popcount(banks)
                                       << " banks: stride " << stride << " bytes, row_break "
                                       << np.row_break;
}

TEST(NarrowPlan, EmulatedBlocksTransposeRandomProblems) {
  const DeviceInfo dev = xpose_test::fake_h100();
  std::mt19937_64 rng(xpose_test::test_seed("NarrowPlanEmulation"));
  int narrow = 0, tabled = 0, quads = 0, apart = 0, lines = 0, halos = 0, padded = 0,
      dealt = 0, raw_rows = 0, raw_by_rule = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int rank = 2 + static_cast<int>(rng() % 7);
    const size_t es = 1 + rng() % 2;
    std::vector<int64_t> ext(rank);
    int64_t vol = 1;
    for (int k = 0; k < rank; ++k) {
      ext[k] = 1 + static_cast<int64_t>(rng() % (rank <= 3 ? 300 : 24));
      if (iter % 4 == 0) ext[k] = 16 * (1 + ext[k] % (rank <= 3 ? 8 : 2));  // sectors apart
      if (vol * ext[k] > (int64_t{1} << 18)) ext[k] = 1;
      vol *= ext[k];
    }
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Problem p;
    ASSERT_EQ(make_problem(rank, ext.data(), perm.data(), es, XPOSE_COL_MAJOR, &p), XPOSE_SUCCESS);
    if (p.is_copy()) continue;
    // Every candidate of a few, not only the first: forced run targets reach other tiles.
    std::vector<Choice> choices;
    enumerate_choices(p, dev, nullptr, &choices);
    // Halo rows (every quad candidate's block): only where their rows and shared memory allow.
    // A deal warp for quads: 2-byte ones, and 1-byte ones with rows under
    // kNarrowDealWarpRowBytes1 (narrow.cu launches 2-byte quads with it whatever the flag).
    for (const Choice& c : choices) {
      if (!c.narrow || c.narrow2d || c.cells) continue;
      KernelSpec spec;
      build_spec(p, c, &spec);
      const NarrowParams& np = spec.narrow;
      halos += np.halo;
      dealt += np.deal_warp && es == 1;
      ASSERT_TRUE(!np.halo || (np.quad && np.rd.runs >= kNarrowHaloRows &&
                               np.smem_bytes <= kNarrowMaxSmemBytes))
          << summarize(p, c);
      ASSERT_EQ(np.deal_warp != 0,
                np.quad != 0 && (es == 2 || np.rd.full < kNarrowDealWarpRowBytes1))
          << summarize(p, c);
    }
    for (size_t i = 0; i < 2 * choices.size() && i < 6; ++i) {
      const Choice& c = choices[(i / 2 * 7) % choices.size()];
      if (!c.narrow || c.narrow2d || c.cells) continue;  // narrow2d.cu's blocks: no emulation here
      // Each candidate's block as planned, then with raw rows wherever they fit (gathered
      // tiles; the same block as planned for the others).
      KernelSpec spec;
      build_spec(p, c, &spec);
      if (i % 2 == 0) raw_by_rule += spec.narrow.raw_rows;
      if (i % 2) {
        build_narrow(p, c, &spec.narrow, RawRows::WhereTheyFit);
        if (!spec.narrow.raw_rows) continue;
      }
      raw_rows += spec.narrow.raw_rows;
      ++narrow;
      tabled += spec.narrow.n_tab > 0;
      quads += spec.narrow.quad;
      if (!spec.narrow.quad) {
        ASSERT_TRUE(positions_cover(spec.narrow)) << summarize(p, c);
        cuda_tile::Tile T;
        ASSERT_TRUE(cuda_tile::make_tile(cuda_tile::geometry(p), c.a, c.ta, c.c, c.tc, &T,
                                         cuda_tile::TileKind::Narrow));
        int64_t tf = 1;  // the output-fastest dim's tile extent
        for (int j = 0; j < p.rank && tf == 1; ++j) tf = T.t[p.perm[j]];
        if (!spec.narrow.raw_rows)  // raw rows: their strides follow the input's (the rule's count)
          ASSERT_TRUE(lanes_apart(spec.narrow, es, tf)) << p.to_string() << " " << summarize(p, c);
        // narrow.cu's realignment keeps each 16-byte chunk in one stretch between paddings.
        ASSERT_EQ(spec.narrow.row_break % 16, 0) << p.to_string() << " " << summarize(p, c);
        padded += spec.narrow.row_break > 0;
      }
      lines += !spec.narrow.quad && spec.narrow.group_shift == 5;
      std::vector<uint8_t> in(p.bytes()), out(p.bytes(), 0), ref(p.bytes());
      for (auto& b : in) b = static_cast<uint8_t>(1 + rng() % 255);
      std::vector<int> writes(p.bytes());
      bool shared = false;
      const int in_shift = static_cast<int>(rng() % 16);
      ASSERT_TRUE(emulate(spec.narrow, es, in.data(), out.data(), &writes, &shared, in_shift))
          << p.to_string() << " " << summarize(p, c) << " raw rows " << spec.narrow.raw_rows
          << " input at 16 x n + " << in_shift;
      // Tiles dealt round-robin (tile_order.cuh) must share no sector.
      if (!spec.narrow.shared_sectors)
        ASSERT_FALSE(shared) << p.to_string() << " " << summarize(p, c);
      apart += !spec.narrow.shared_sectors;
      xpose_test::reference(p.rank, p.extent.data(), p.perm.data(), es, XPOSE_COL_MAJOR,
                            in.data(), ref.data());
      ASSERT_EQ(out, ref) << p.to_string() << " " << summarize(p, c);
      ASSERT_EQ(*std::min_element(writes.begin(), writes.end()), 1) << p.to_string();
      ASSERT_EQ(*std::max_element(writes.begin(), writes.end()), 1) << p.to_string();
    }
  }
  std::printf("%d narrow blocks emulated, %d with an offset table, %d by quads, %d sectors "
              "apart, %d gathered by lines, %d with padded rows, %d with raw rows (%d by the "
              "rule); %d quad candidates with halo rows\n",
              narrow, tabled, quads, apart, lines, padded, raw_rows, raw_by_rule, halos);
  EXPECT_GT(dealt, 10);  // 1-byte quad candidates with a deal warp
  EXPECT_GT(halos, 10);  // 46-144 of a seed's problems (1-byte quads of runs off words)
  EXPECT_GT(narrow, 200);
  EXPECT_GT(tabled, 10);
  EXPECT_GT(quads, 10);
  EXPECT_GT(apart, 10);
  EXPECT_GT(padded, 5);
  EXPECT_GT(raw_rows, 20);
  EXPECT_GT(raw_by_rule, 10);
}

}  // namespace
