#include "views.hpp"

#include <functional>
#include <string>

#include "core/types.hpp"

namespace xpose_tool {
namespace {

// Dense strides of a padded tensor (extents in the case's layout) and the offset of index 0.
void pad_tensor(const std::vector<int64_t>& ext, xpose_layout_t layout, int pad, uint64_t seed,
                std::vector<int64_t>* strides, int64_t* offset, int64_t* span) {
  const int rank = static_cast<int>(ext.size());
  strides->assign(rank, 0);
  *offset = 0;
  int64_t s = 1;
  for (int n = 0; n < rank; ++n) {
    const int k = layout == XPOSE_ROW_MAJOR ? rank - 1 - n : n;
    const auto before = pad ? 1 + static_cast<int64_t>(mix64(seed, 2 * k) % pad) : 0;
    const auto after = pad ? 1 + static_cast<int64_t>(mix64(seed, 2 * k + 1) % pad) : 0;
    (*strides)[k] = s;
    *offset += before * s;
    s *= ext[k] + before + after;
  }
  *span = s;
}

}  // namespace

int64_t CaseViews::copy_bytes(int64_t volume, const Settings& s) const {
  const int64_t in = volume * static_cast<int64_t>(in_elem);
  const int64_t out = volume * static_cast<int64_t>(out_elem);
  return (in + out + (s.beta != 0 ? out : 0)) / 2;
}

CaseViews case_views(const Case& c, const Settings& s) {
  CaseViews v;
  const size_t type_size = xpose::detail::type_info(s.type).size;
  if (s.type != XPOSE_TYPE_BYTES && c.elem != 0 && c.elem != type_size)
    throw ToolError("case " + c.name + " has " + std::to_string(c.elem) +
                    "-byte elements but --type " + xpose::detail::type_info(s.type).name + " is " +
                    std::to_string(type_size));
  v.in_elem = s.type == XPOSE_TYPE_BYTES ? s.elem : type_size;
  v.out_elem = s.out_type == XPOSE_TYPE_BYTES ? v.in_elem : xpose::detail::type_info(s.out_type).size;
  v.extended = s.extended();
  v.in_span = v.out_span = c.volume();
  xpose_desc_init(&v.desc);
  if (!v.extended) return v;
  v.desc.in_type = s.type;
  v.desc.out_type = s.out_type;
  v.desc.alpha[0] = s.alpha;
  v.desc.beta[0] = s.beta;
  if (s.pad > 0) {
    const uint64_t seed = std::hash<std::string>{}(c.suite + "/" + c.name);
    pad_tensor(c.extents, s.layout, s.pad, seed, &v.in_strides, &v.in_offset, &v.in_span);
    std::vector<int64_t> out_ext;
    for (int p : c.perm) out_ext.push_back(c.extents[p]);
    pad_tensor(out_ext, s.layout, s.pad, seed ^ 0x5bd1e995u, &v.out_strides, &v.out_offset,
               &v.out_span);
    v.desc.in_strides = v.in_strides.data();
    v.desc.out_strides = v.out_strides.data();
  }
  return v;
}

xpose_status_t create_plan(const Case& c, const Settings& s, const CaseViews& v,
                           xpose_plan_t* plan) {
  const xpose_options_t o = s.options();
  const int rank = static_cast<int>(c.extents.size());
  if (!s.schema.empty())
    return xpose_plan_create_forced(plan, rank, c.extents.data(), c.perm.data(), s.elem, &o,
                                    s.schema.c_str());
  return xpose_plan_create_ex(plan, rank, c.extents.data(), c.perm.data(), v.in_elem,
                              v.extended ? &v.desc : nullptr, &o);
}

}  // namespace xpose_tool
