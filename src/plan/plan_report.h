// A plan (plan/plan.h) as text: a table of the layouts gpumem simulated, one row each
// (engine, GPUs, TP x PP x DP and EP, whether it starts, KV tokens per replica and in all,
// running requests, the smallest headroom, why it failed), then per engine the fewest GPUs
// that start and the layout with the most KV tokens on all the GPUs, each as the launch
// command that asks for it. Layouts an engine refuses or gpumem does not model are counted
// with their reasons and listed in full with `all`. Or the same as JSON (gpumem.plan/1,
// src/plan/plan.schema.json).
#ifndef GPUMEM_PLAN_PLAN_REPORT_H_
#define GPUMEM_PLAN_PLAN_REPORT_H_

#include <string>

#include "plan/plan.h"

namespace gpumem {

std::string render_plan_table(const Plan& plan, const PlanRequest& request, bool all);
std::string render_plan_json(const Plan& plan, const PlanRequest& request);

}  // namespace gpumem

#endif  // GPUMEM_PLAN_PLAN_REPORT_H_
