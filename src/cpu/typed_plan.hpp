// The CPU backend's `typed` schema (typed_plan.cpp): what plans every problem that is not
// plain(), i.e. strided, converting, scaled or accumulating (docs/cpu.md).
#pragma once

#include <string>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "cpu/plans.hpp"

namespace xpose::detail::cpu {

// Whether `p` needs the typed schema: no other schema reads strides, types or scalars.
bool typed_plan_applies(const Problem& p);

// Builds the typed plan of `p`; false, with `why`, when its types have no operation (make_problem
// admits none such) or the forced instruction set is missing.
bool make_typed_plan(const Problem& p, const ExecSettings& x, BackendPlanPtr* plan,
                     std::string* why);

}  // namespace xpose::detail::cpu
