// `xpose inplace` (one in-place square transposition on the GPU, timed and checked) and
// `xpose bench-inplace` (the sweep over n and schemes behind docs/perf/inplace-h100.md and the
// (n, w) heat maps of tools/plot_inplace.py). Bandwidth counts one read and one write per
// element, for the transposition and for the cudaMemcpy baseline alike.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "gpu.hpp"
#include "inplace/inplace.hpp"
#include "timing.hpp"

namespace xpose_tool {
namespace {

using xpose::detail::InplaceForce;

const char* kInplaceHelp =
    "usage: xpose inplace --n N [--elem E] [--scheme v1|v1r|v1b|full|sg] [--w W] [--region R]\n"
    "                     [--reps K]\n"
    "\n"
    "Transposes an N x N matrix of E-byte elements in place on the GPU (the library's choice\n"
    "unless --scheme; --w is V1B's band width in tiles, --region the super grid's order in\n"
    "tiles), checks it when it is at most 256 MiB, and prints the median time, the bandwidth\n"
    "(read + write) and the ratio to a cudaMemcpy of the same bytes in the same run.\n";

const char* kBenchHelp =
    "usage: xpose bench-inplace [--elems 4,8] [--ns N,...] [--ws W,...] [--max-gib 64]\n"
    "                           [--reps K] [--csv FILE]\n"
    "\n"
    "For each element size and n (default: 1024 up to the largest multiple of 1024 whose\n"
    "matrix fits in --max-gib GiB), times the full grid, V1, V1R, the super grid and V1B for\n"
    "each band width, against a cudaMemcpy (of the same bytes into the same allocation when\n"
    "there is room, else of half of them, scaled). One line per run; --csv writes them too.\n";

struct Config {
  int64_t n = 0;
  size_t elem = 4;
  InplaceForce force;
};

std::string config_name(const InplaceForce& f) {
  std::string s = xpose::detail::inplace_scheme_name(f.scheme);
  if (f.scheme == 2) s += " w " + std::to_string(f.w);
  if (f.scheme == 4) s += " region " + std::to_string(f.region);
  return s;
}

void enqueue(const Config& c, void* data, void* stream) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CUDA;
  const int64_t ext[] = {c.n, c.n};
  const int perm[] = {1, 0};
  check_status(xpose::detail::transpose_inplace(2, ext, perm, c.elem, data, &o, stream, &c.force),
               "xpose_transpose_inplace");
}

// Median milliseconds of `reps` runs after one warm-up.
double time_config(const Config& c, void* data, int reps) {
  enqueue(c, data, gpu::stream());
  gpu::synchronize();
  return median(gpu::time_ms([&](void* s) { enqueue(c, data, s); }, reps));
}

// Milliseconds of a copy of `bytes` inside an allocation of `capacity`: the whole of it when
// there is room, else half of it, doubled (a second matrix of the largest size does not fit).
double copy_baseline(void* data, size_t capacity, size_t bytes, int reps) {
  auto* d = static_cast<unsigned char*>(data);
  const size_t len = 2 * bytes <= capacity ? bytes : bytes / 2;
  gpu::copy_ms(d + len, d, len, 1);
  return median(gpu::copy_ms(d + len, d, len, reps)) * (len == bytes ? 1.0 : 2.0);
}

// Fills with indices, transposes once, checks every element (x, y) holds what was at (y, x).
std::string check_config(const Config& c, void* data) {
  const size_t bytes = static_cast<size_t>(c.n * c.n) * c.elem;
  if (bytes > (size_t{256} << 20)) return "skipped (> 256 MiB; tests cover large sizes)";
  std::vector<unsigned char> before(bytes), after(bytes);
  for (size_t i = 0; i < bytes; ++i) before[i] = static_cast<unsigned char>(mix64(7, i));
  gpu::upload(data, before.data(), bytes);
  enqueue(c, data, gpu::stream());
  gpu::synchronize();
  gpu::download(after.data(), data, bytes);
  for (int64_t y = 0; y < c.n; ++y)
    for (int64_t x = 0; x < c.n; ++x)
      if (std::memcmp(&after[(x + y * c.n) * c.elem], &before[(y + x * c.n) * c.elem], c.elem))
        return "FAILED at (" + std::to_string(x) + ", " + std::to_string(y) + ")";
  return "ok (every element)";
}

InplaceForce parse_force(const ParsedArgs& args) {
  InplaceForce f;
  if (const std::string* s = args.get("--scheme")) {
    f.scheme = xpose::detail::inplace_scheme_from_name(*s);
    if (f.scheme < 0) throw UsageError("--scheme: '" + *s + "' is not v1, v1r, v1b, full or sg");
  }
  if (const std::string* w = args.get("--w")) f.w = parse_int("--w", *w, 1, int64_t{1} << 40);
  if (const std::string* r = args.get("--region"))
    f.region = parse_int("--region", *r, 1, int64_t{1} << 40);
  return f;
}

void require_gpu() {
  std::string why;
  if (!gpu::usable(&why)) throw ToolError("no GPU: " + why);
}

}  // namespace

int inplace_command(const std::vector<std::string>& argv) {
  const ParsedArgs args = parse_args("inplace", argv,
                                     {"--n", "--elem", "--scheme", "--w", "--region", "--reps"},
                                     {"--help"});
  if (args.has("--help")) {
    std::fputs(kInplaceHelp, stdout);
    return 0;
  }
  if (!args.get("--n")) throw UsageError("inplace: --n is required");
  Config c;
  c.n = parse_int("--n", *args.get("--n"), 1, int64_t{1} << 32);
  c.elem = args.get("--elem") ? parse_int("--elem", *args.get("--elem"), 1, 16) : 4;
  c.force = parse_force(args);
  const int reps = args.get("--reps") ? parse_int("--reps", *args.get("--reps"), 1, 1000) : 10;
  require_gpu();
  const size_t bytes = static_cast<size_t>(c.n * c.n) * c.elem;
  void* d = gpu::alloc(bytes);
  std::unique_ptr<void, void (*)(void*)> hold(d, gpu::release);
  const std::string check = check_config(c, d);
  const double ms = time_config(c, d, reps);
  const double copy = copy_baseline(d, bytes, bytes, reps);
  std::printf("problem     %lld x %lld, %zu-byte elements, in place, %s\n",
              static_cast<long long>(c.n), static_cast<long long>(c.n), c.elem,
              c.force.scheme < 0 ? "scheme chosen by the library" : config_name(c.force).c_str());
  std::printf("device      %s\n", gpu::device_name().c_str());
  std::printf("time        %.4f ms (median of %d)\n", ms, reps);
  std::printf("bandwidth   %.1f GB/s (read + write)\n", 2.0 * bytes / (ms * 1e6));
  std::printf("copy        %.4f ms, %.1f GB/s (cudaMemcpyAsync device to device)\n", copy,
              2.0 * bytes / (copy * 1e6));
  std::printf("ratio       %.3f (copy time / transposition time)\n", copy / ms);
  std::printf("check       %s\n", check.c_str());
  return check.rfind("FAILED", 0) == 0 ? 1 : 0;
}

namespace {

std::vector<int64_t> default_ns(size_t elem, double max_gib) {
  const auto cap = static_cast<int64_t>(std::sqrt(max_gib * 1073741824.0 / elem)) / 1024 * 1024;
  std::vector<int64_t> ns;
  for (int64_t n : {1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 81920,
                    98304, 114688})
    if (n < cap) ns.push_back(n);
  ns.push_back(cap);
  return ns;
}

std::vector<InplaceForce> bench_configs(const std::vector<int64_t>& ws) {
  std::vector<InplaceForce> cs = {{3, 0, 0, ""}, {0, 0, 0, ""}, {1, 0, 0, ""}, {4, 0, 64, ""}};
  for (int64_t w : ws) cs.push_back({2, w, 0, ""});
  return cs;
}

struct BenchOptions {
  std::vector<int64_t> elems = {4, 8}, ns, ws = {1, 2, 4, 8, 16, 32, 64, 128};
  double max_gib = 64;
  int reps = 3;
  std::string csv;
};

BenchOptions parse_bench(const ParsedArgs& args) {
  BenchOptions b;
  if (auto* v = args.get("--elems")) b.elems = parse_int_list("--elems", *v);
  if (auto* v = args.get("--ns")) b.ns = parse_int_list("--ns", *v);
  if (auto* v = args.get("--ws")) b.ws = parse_int_list("--ws", *v);
  if (auto* v = args.get("--max-gib")) b.max_gib = static_cast<double>(parse_int("--max-gib", *v, 1, 1 << 20));
  if (auto* v = args.get("--reps")) b.reps = static_cast<int>(parse_int("--reps", *v, 1, 1000));
  if (auto* v = args.get("--csv")) b.csv = *v;
  for (int64_t e : b.elems)
    if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
      throw UsageError("--elems: " + std::to_string(e) + " is not 1, 2, 4, 8 or 16");
  return b;
}

}  // namespace

int bench_inplace_command(const std::vector<std::string>& argv) {
  const ParsedArgs args = parse_args(
      "bench-inplace", argv, {"--elems", "--ns", "--ws", "--max-gib", "--reps", "--csv"}, {"--help"});
  if (args.has("--help")) {
    std::fputs(kBenchHelp, stdout);
    return 0;
  }
  const BenchOptions b = parse_bench(args);
  require_gpu();
  size_t capacity = 0;
  for (int64_t e : b.elems)
    for (int64_t n : b.ns.empty() ? default_ns(e, b.max_gib) : b.ns)
      capacity = std::max(capacity, static_cast<size_t>(n * n * e));
  void* d = gpu::alloc(capacity);
  std::unique_ptr<void, void (*)(void*)> hold(d, gpu::release);
  gpu::fill(d, 0x5a, capacity);
  FILE* csv = b.csv.empty() ? nullptr : std::fopen(b.csv.c_str(), "w");
  if (!b.csv.empty() && !csv) throw ToolError("cannot write " + b.csv);
  const char* header = "elem,n,bytes,scheme,w,region,ms,gbs,copy_ms,copy_gbs,ratio\n";
  if (csv) std::fputs(header, csv);
  std::printf("device %s\n%s", gpu::device_name().c_str(), header);
  for (int64_t e : b.elems)
    for (int64_t n : b.ns.empty() ? default_ns(e, b.max_gib) : b.ns) {
      const size_t bytes = static_cast<size_t>(n * n * e);
      const double copy = copy_baseline(d, capacity, bytes, b.reps);
      for (const InplaceForce& f : bench_configs(b.ws)) {
        const double ms = time_config({n, static_cast<size_t>(e), f}, d, b.reps);
        char line[256];
        std::snprintf(line, sizeof line, "%lld,%lld,%zu,%s,%lld,%lld,%.4f,%.1f,%.4f,%.1f,%.3f\n",
                      static_cast<long long>(e), static_cast<long long>(n), bytes,
                      xpose::detail::inplace_scheme_name(f.scheme), static_cast<long long>(f.w),
                      static_cast<long long>(f.region), ms, 2.0 * bytes / (ms * 1e6), copy,
                      2.0 * bytes / (copy * 1e6), copy / ms);
        std::fputs(line, stdout);
        if (csv) std::fputs(line, csv);
      }
      std::fflush(stdout);
      if (csv) std::fflush(csv);  // a sweep cut off by a time limit keeps what it measured
    }
  if (csv) std::fclose(csv);
  return 0;
}

}  // namespace xpose_tool
