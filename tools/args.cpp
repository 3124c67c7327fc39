#include "args.hpp"

#include "core/types.hpp"

#include <cerrno>
#include <cstdlib>

namespace xpose_tool {

const std::string* ParsedArgs::get(const std::string& flag) const {
  const auto it = values.find(flag);
  return it == values.end() ? nullptr : &it->second;
}

ParsedArgs parse_args(const std::string& command, const std::vector<std::string>& args,
                      const std::set<std::string>& value_flags,
                      const std::set<std::string>& switch_flags) {
  ParsedArgs out;
  out.command = command;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out.switches.insert("--help");
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      out.positional.push_back(a);
      continue;
    }
    const size_t eq = a.find('=');
    const std::string flag = a.substr(0, eq);
    if (switch_flags.count(flag)) {
      if (eq != std::string::npos) throw UsageError(flag + ": takes no value");
      out.switches.insert(flag);
    } else if (value_flags.count(flag)) {
      if (eq != std::string::npos) {
        out.values[flag] = a.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        out.values[flag] = args[++i];
      } else {
        throw UsageError(flag + ": missing value");
      }
    } else {
      throw UsageError(command + ": unknown option " + flag + " (see xpose " + command +
                       " --help)");
    }
  }
  return out;
}

int64_t parse_int(const std::string& flag, const std::string& text, int64_t lo, int64_t hi) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw UsageError(flag + ": '" + text + "' is not an integer");
  if (v < lo || v > hi)
    throw UsageError(flag + ": " + text + " is out of range " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  return v;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<int64_t> parse_int_list(const std::string& flag, const std::string& text) {
  std::vector<int64_t> out;  // "": rank 0
  for (const std::string& item : split_list(text)) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno == ERANGE)
      throw UsageError(flag + ": '" + item + "' is not an integer (expected a list like 4,5,6)");
    out.push_back(v);
  }
  return out;
}

size_t parse_elem(const std::string& flag, const std::string& text) {
  const auto elem = static_cast<size_t>(parse_int(flag, text, 1, 16));
  if (elem != 1 && elem != 2 && elem != 4 && elem != 8 && elem != 16)
    throw UsageError(flag + ": " + text + " is not one of 1, 2, 4, 8, 16");
  return elem;
}

const std::set<std::string> kSettingFlags = {"--elem",    "--type",    "--layout",
                                             "--backend", "--planning", "--threads",
                                             "--schema",  "--reps",     "--misalign",
                                             "--out-type", "--alpha",  "--beta",
                                             "--pad"};

const std::set<std::string> kSettingSwitches = {"--warm"};

std::set<std::string> with_settings(std::set<std::string> own) {
  own.insert(kSettingSwitches.begin(), kSettingSwitches.end());
  return own;
}

const char* settings_help() {
  return "  --elem N                 element size in bytes: 1, 2, 4, 8 (default) or 16\n"
         "  --type T                 element type instead of --elem: i8 u8 i16 u16 i32 u32 i64\n"
         "                           u64 f8e4m3 f8e5m2 f16 bf16 f32 f64 c32 c64 (c32: two f32)\n"
         "  --out-type T             convert to T on the way (floating types, c32 <-> c64)\n"
         "  --alpha A, --beta B      out = A * in' + B * out (real scalars; --type needed)\n"
         "  --pad N                  both tensors padded by 1..N elements on both sides of\n"
         "                           every extent (sub-tensors through strides; N falls\n"
         "                           where a tensor would grow more than 4-fold)\n"
         "  --layout col|row         col (default): extents[0] is stride-1; row: the last is\n"
         "  --backend auto|cpu|cuda  auto (default): the GPU when the CUDA backend can plan\n"
         "  --planning heuristic|measure\n"
         "  --threads N              CPU threads for the transposition and the copy baseline\n"
         "                           (0 = all hardware threads, the default)\n"
         "  --schema NAME            force a schema (xpose_plan_create_forced; with --type,\n"
         "                           --out-type, --alpha, --beta or --pad the same planner)\n"
         "  --reps N                 timed repetitions (default 5 on the CPU, 20 on the GPU)\n"
         "  --misalign B             input and output start B bytes (0-15) past an aligned\n"
         "                           address (the paths for unaligned pointers)\n"
         "  --warm                   CPU: keep the caches warm between repetitions (default:\n"
         "                           flush them before each timed transposition and copy)\n";
}

namespace {

xpose_type_t parse_type(const std::string& flag, const std::string& t) {
  xpose_type_t type;
  if (!xpose::detail::parse_type(t.c_str(), &type) || type == XPOSE_TYPE_BYTES)
    throw UsageError(flag + ": '" + t + "' is not one of i8 u8 i16 u16 i32 u32 i64 u64 " +
                     "f8e4m3 f8e5m2 f16 bf16 f32 f64 c32 c64");
  return type;
}

double parse_double(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw UsageError(flag + ": '" + text + "' is not a number");
  return v;
}

template <class E>
E parse_choice(const ParsedArgs& args, const std::string& flag, E fallback,
               const std::vector<std::pair<std::string, E>>& choices) {
  const std::string* v = args.get(flag);
  if (!v) return fallback;
  std::string names;
  for (const auto& [name, value] : choices) {
    if (*v == name) return value;
    names += (names.empty() ? "" : ", ") + name;
  }
  throw UsageError(flag + ": '" + *v + "' is not one of " + names);
}

}  // namespace

Settings parse_settings(const ParsedArgs& args) {
  Settings s;
  if (const std::string* e = args.get("--elem")) s.elem = parse_elem("--elem", *e);
  if (const std::string* t = args.get("--type")) {
    s.type = parse_type("--type", *t);
    const size_t size = xpose::detail::type_info(s.type).size;
    if (args.get("--elem") && size != s.elem)
      throw UsageError("--type: " + *t + " is " + std::to_string(size) + " bytes but --elem is " +
                       std::to_string(s.elem));
    s.elem = size;
  }
  if (const std::string* t = args.get("--out-type")) s.out_type = parse_type("--out-type", *t);
  if (const std::string* a = args.get("--alpha")) s.alpha = parse_double("--alpha", *a);
  if (const std::string* b = args.get("--beta")) s.beta = parse_double("--beta", *b);
  if (const std::string* p = args.get("--pad")) s.pad = static_cast<int>(parse_int("--pad", *p, 0, 64));
  if (s.type == XPOSE_TYPE_BYTES && (s.out_type != XPOSE_TYPE_BYTES || s.alpha != 1 || s.beta != 0))
    throw UsageError("--out-type, --alpha and --beta need --type");

  s.layout = parse_choice<xpose_layout_t>(args, "--layout", XPOSE_COL_MAJOR,
                                          {{"col", XPOSE_COL_MAJOR}, {"row", XPOSE_ROW_MAJOR}});
  s.backend = parse_choice<xpose_backend_t>(
      args, "--backend", XPOSE_BACKEND_AUTO,
      {{"auto", XPOSE_BACKEND_AUTO}, {"cpu", XPOSE_BACKEND_CPU}, {"cuda", XPOSE_BACKEND_CUDA}});
  s.planning = parse_choice<xpose_planning_t>(
      args, "--planning", XPOSE_PLAN_HEURISTIC,
      {{"heuristic", XPOSE_PLAN_HEURISTIC}, {"measure", XPOSE_PLAN_MEASURE}});
  if (const std::string* t = args.get("--threads"))
    s.threads = static_cast<int>(parse_int("--threads", *t, 0, 1 << 16));
  if (const std::string* r = args.get("--reps"))
    s.reps = static_cast<int>(parse_int("--reps", *r, 1, 1 << 20));
  s.warm = args.has("--warm");
  if (const std::string* m = args.get("--misalign"))
    s.misalign = static_cast<int>(parse_int("--misalign", *m, 0, 15));
  if (const std::string* n = args.get("--schema")) {
    if (n->empty()) throw UsageError("--schema: empty name");
    s.schema = *n;
  }
  return s;
}

void check_case(const Case& c, const std::string& where) {
  const size_t rank = c.extents.size();
  if (rank > XPOSE_MAX_RANK)
    throw UsageError(where + "extents: rank " + std::to_string(rank) + " is above " +
                     std::to_string(XPOSE_MAX_RANK));
  if (c.perm.size() != rank)
    throw UsageError(where + "perm: has " + std::to_string(c.perm.size()) +
                     " entries, expected " + std::to_string(rank) + " (one per extent)");
  for (size_t k = 0; k < rank; ++k)
    if (c.extents[k] < 0)
      throw UsageError(where + "extents: " + std::to_string(c.extents[k]) + " is negative");
  std::vector<bool> seen(rank, false);
  for (int p : c.perm) {
    if (p < 0 || static_cast<size_t>(p) >= rank)
      throw UsageError(where + "perm: " + std::to_string(p) + " is out of range for rank " +
                       std::to_string(rank));
    if (seen[p]) throw UsageError(where + "perm: " + std::to_string(p) + " appears twice");
    seen[p] = true;
  }
}

Case parse_case(const ParsedArgs& args) {
  const std::string* e = args.get("--extents");
  const std::string* p = args.get("--perm");
  if (!e) throw UsageError(args.command + ": --extents is required");
  if (!p) throw UsageError(args.command + ": --perm is required");
  Case c;
  c.suite = "cli";
  c.name = "cli";
  c.extents = parse_int_list("--extents", *e);
  for (int64_t v : parse_int_list("--perm", *p)) {
    if (v < INT32_MIN || v > INT32_MAX)
      throw UsageError("--perm: " + std::to_string(v) + " is out of range");
    c.perm.push_back(static_cast<int>(v));
  }
  check_case(c, "--");
  return c;
}

}  // namespace xpose_tool
