// SCAFFOLDING (to be replaced by the real CPU backend): element-wise odometer copy.
#include <cstring>

#include "core/backend.hpp"
#include "core/status.hpp"

namespace xpose::detail {
namespace {
class NaivePlan final : public BackendPlan {
 public:
  explicit NaivePlan(const Problem& p) : p_(p) {}
  xpose_status_t execute(const void* in, void* out, void*) const override {
    const Layout g = p_.gather();
    const auto* src = static_cast<const unsigned char*>(in);
    auto* dst = static_cast<unsigned char*>(out);
    for (int64_t j = 0; j < p_.volume; ++j)
      std::memcpy(dst + j * p_.elem_size, src + g(j) * p_.elem_size, p_.elem_size);
    return XPOSE_SUCCESS;
  }
  std::string describe() const override { return "naive\n"; }
 private:
  Problem p_;
};
}  // namespace

xpose_status_t cpu_make_plan(const Problem& p, const xpose_options_t&, const std::string&,
                             BackendPlanPtr* plan) {
  *plan = std::make_shared<NaivePlan>(p);
  return XPOSE_SUCCESS;
}
xpose_status_t cpu_candidates(const Problem&, const xpose_options_t&, std::vector<Candidate>*) {
  return XPOSE_SUCCESS;
}
}  // namespace xpose::detail
