// Forced CUDA schemas: the names and parameters of "name[:key=value,...]" (docs/cuda.md), as
// xpose_plan_create_forced and `xpose run --schema` take them. Host C++ only.
#include <string>

#include "cuda/planner.hpp"

namespace xpose::detail {

const char* schema_name(Schema s) {
  switch (s) {
    case Schema::Copy: return "copy";
    case Schema::Rows: return "rows";
    case Schema::FviSmall: return "fvi-small";
    case Schema::Tiled: return "tiled";
    case Schema::Packed: return "packed";
    case Schema::PackedSplit: return "packed-split";
    case Schema::Direct: return "direct";
  }
  return "?";
}

bool parse_schema(const std::string& text, SchemaRequest* req, std::string* why) {
  *req = SchemaRequest{};
  req->text = text;
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  struct Name { const char* name; unsigned mask; };
  static const Name kNames[] = {
      {"copy", unsigned(Schema::Copy)},
      {"rows", unsigned(Schema::Rows)},
      {"tiledcopy", unsigned(Schema::Rows)},
      {"fvi-match-large", unsigned(Schema::Rows)},
      {"fvi-small", unsigned(Schema::FviSmall)},
      {"fvi-match-small", unsigned(Schema::FviSmall)},
      {"tiled", unsigned(Schema::Tiled)},
      {"orthogonal-distinct", unsigned(Schema::Tiled)},
      {"packed", unsigned(Schema::Packed)},
      {"packed-split", unsigned(Schema::PackedSplit)},
      {"orthogonal-arbitrary", unsigned(Schema::Packed) | unsigned(Schema::PackedSplit)},
      {"direct", unsigned(Schema::Direct)},
  };
  for (const Name& n : kNames)
    if (name == n.name) req->mask = n.mask;
  if (req->mask == 0) {
    *why = "unknown CUDA schema '" + name + "'; valid names: copy, rows (tiledcopy, "
           "fvi-match-large), fvi-small (fvi-match-small), tiled (orthogonal-distinct), packed, "
           "packed-split, orthogonal-arbitrary, direct; parameters for the tiled kernels: "
           "name:threads=N,in=N,out=N,stages=N,band=N";
    return false;
  }
  size_t pos = colon == std::string::npos ? text.size() : colon + 1;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string kv = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    long long v = 0;
    const bool number = eq != std::string::npos && eq + 1 < kv.size() &&
                        kv.find_first_not_of("0123456789", eq + 1) == std::string::npos &&
                        kv.size() - eq - 1 <= 9;
    if (number) v = std::stoll(kv.substr(eq + 1));
    if (!number || v <= 0) {
      *why = "schema '" + text + "': parameter '" + kv + "' is not key=positive integer";
      return false;
    }
    if (key == "threads") {
      if (v % 32 != 0 || v > kMaxTileThreads) {
        *why = "schema '" + text + "': threads must be a multiple of 32 up to " +
               std::to_string(kMaxTileThreads);
        return false;
      }
      req->threads = static_cast<int>(v);
    } else if (key == "in") {
      req->in_run = v;
    } else if (key == "out") {
      req->out_run = v;
    } else if (key == "stages") {
      if (v < 2 || v > kMaxTileStages) {
        *why = "schema '" + text + "': stages must be 2 to " + std::to_string(kMaxTileStages);
        return false;
      }
      req->stages = static_cast<int>(v);
    } else if (key == "band") {
      req->band = static_cast<int>(v);
    } else {
      *why = "schema '" + text + "': unknown parameter '" + key + "' (threads, in, out, stages, band)";
      return false;
    }
  }
  return true;
}

}  // namespace xpose::detail
