#include "core/types.hpp"

#include <cstring>

namespace xpose::detail {

bool parse_type(const char* name, xpose_type_t* type) {
  for (int t = 0; t < kNumTypes; ++t)
    if (std::strcmp(name, kTypes[t].name) == 0) {
      *type = static_cast<xpose_type_t>(t);
      return true;
    }
  return false;
}

}  // namespace xpose::detail
