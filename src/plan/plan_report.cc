#include "plan/plan_report.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "launch/launch_command.h"
#include "runtime/constants_note.h"

namespace gpumem {
namespace {

std::string layout_text(const GpuLayout& l) {
  return fmt::format("TP {} x PP {} x DP {}{}", l.tp, l.pp, l.dp, l.expert_parallel ? " EP" : "");
}

std::string_view status_text(const PlannedLayout& p) {
  switch (p.result.status) {
    case sweep::PointStatus::kFits:
      return p.qualifies ? "yes" : "few tokens";
    case sweep::PointStatus::kTight:
      return "tight";
    case sweep::PointStatus::kFails:
      return "no";
    case sweep::PointStatus::kInvalid:
      break;
  }
  return "refused";
}

std::string count(const std::optional<std::int64_t>& v) { return v ? format_count(*v) : "-"; }

std::string what_starts(const PlanRequest& r) {
  std::string out = "starts: every GPU completes its start-up";
  if (r.min_headroom.value() > 0) out += " with " + format_mib(r.min_headroom) + " free";
  if (r.min_tokens > 0) out += ", with " + format_count(r.min_tokens) + " KV tokens in all";
  return out;
}

std::string calibration_line(const Plan& plan) {
  for (const PlannedLayout& p : plan.layouts) {
    if (p.result.status == sweep::PointStatus::kInvalid) continue;
    return p.result.calibrated ? "predicted with " + p.result.calibration
                               : not_calibrated_note(p.result.calibration);
  }
  return "";
}

std::string pick_line(const char* what, const PlannedLayout* p) {
  if (p == nullptr) return fmt::format("  {}: none\n", what);
  return fmt::format(
      "  {}: {} on {} GPU{}, {} KV tokens in all, {} free at the tightest step\n"
      "    {}\n",
      what, layout_text(p->layout), p->layout.gpus(), p->layout.gpus() == 1 ? "" : "s",
      count(p->result.kv_tokens_total),
      p->result.min_headroom ? format_mib(*p->result.min_headroom) : "-", shell_command(p->launch));
}

}  // namespace

std::string render_plan_table(const Plan& plan, const PlanRequest& request, bool all) {
  std::string out = fmt::format("plan  {} on up to {} x {} ({})\n", request.model, request.max_gpus,
                                request.gpu, plan.engine_versions);
  if (std::string c = calibration_line(plan); !c.empty()) out += "      " + c + "\n";
  out += "      " + what_starts(request) + "\n\n";
  const std::vector<std::string> header = {"engine",      "gpus",        "layout",
                                           "starts",      "kv tokens",   "total kv tokens",
                                           "max running", "min headroom"};
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, int> refused;  // reason -> layouts
  for (const PlannedLayout& p : plan.layouts) {
    const sweep::PointResult& r = p.result;
    if (r.status == sweep::PointStatus::kInvalid && !all) {
      ++refused[std::string(p.engine->name()) + ": " + r.reason];
      continue;
    }
    std::string note = r.reason;
    if (r.status == sweep::PointStatus::kFails) note = r.failed_step + ": " + r.reason;
    rows.push_back({std::string(p.engine->name()), std::to_string(p.layout.gpus()),
                    layout_text(p.layout), std::string(status_text(p)), count(r.kv_tokens),
                    count(r.kv_tokens_total), count(r.max_running_requests),
                    r.min_headroom ? format_mib(*r.min_headroom) : "-", note});
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  const auto line = [&](const std::vector<std::string>& row) {
    std::string text;
    for (size_t c = 0; c < header.size(); ++c) {
      text += c >= 4 ? fmt::format("{:>{}}  ", row[c], width[c])
                     : fmt::format("{:<{}}  ", row[c], width[c]);
    }
    if (row.size() > header.size()) text += row.back();
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::vector<std::string> head = header;
  head.emplace_back("note");
  out += line(head);
  for (const auto& row : rows) out += line(row);
  if (!refused.empty()) {
    int n = 0;
    for (const auto& [reason, layouts] : refused) n += layouts;
    out += fmt::format("\n{} layouts not simulated (plan --all lists them):\n", n);
    for (const auto& [reason, layouts] : refused) {
      out += fmt::format("  {} x {}\n", layouts, reason);
    }
  }
  for (const EngineModel* engine : request.engines) {
    const PlanPicks picks = pick(plan, *engine, request.max_gpus);
    out += fmt::format("\n{}:\n", engine->name());
    out += pick_line("fewest GPUs that start", picks.fewest_gpus);
    out += pick_line(fmt::format("most KV tokens on {} GPUs", request.max_gpus).c_str(),
                     picks.most_tokens_on_all);
  }
  return out;
}

std::string render_plan_json(const Plan& plan, const PlanRequest& request) {
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["schema"] = "gpumem.plan/1";
  doc["model"] = request.model;
  doc["gpu"] = request.gpu;
  doc["max_gpus"] = request.max_gpus;
  doc["engines"] = plan.engine_versions;
  doc["min_headroom_bytes"] = request.min_headroom.value();
  doc["min_tokens"] = request.min_tokens;
  doc["calibration"] = calibration_line(plan);
  const auto layout_json = [](const PlannedLayout* p) -> ordered_json {
    if (p == nullptr) return nullptr;
    ordered_json j = {{"engine", p->engine->name()},
                      {"gpus", p->layout.gpus()},
                      {"tp", p->layout.tp},
                      {"pp", p->layout.pp},
                      {"dp", p->layout.dp},
                      {"expert_parallel", p->layout.expert_parallel},
                      {"launch", shell_command(p->launch)}};
    if (p->result.kv_tokens_total) j["kv_tokens_total"] = *p->result.kv_tokens_total;
    return j;
  };
  doc["layouts"] = ordered_json::array();
  for (const PlannedLayout& p : plan.layouts) {
    const sweep::PointResult& r = p.result;
    ordered_json j = layout_json(&p);
    j["status"] = r.status == sweep::PointStatus::kFits    ? "fits"
                  : r.status == sweep::PointStatus::kTight ? "tight"
                  : r.status == sweep::PointStatus::kFails ? "fails"
                                                           : "refused";
    j["qualifies"] = p.qualifies;
    if (r.status == sweep::PointStatus::kFails) j["failed_step"] = r.failed_step;
    if (!r.reason.empty()) j["reason"] = r.reason;
    if (r.kv_tokens) j["kv_tokens"] = *r.kv_tokens;
    if (r.max_running_requests) j["max_running_requests"] = *r.max_running_requests;
    if (r.min_headroom) j["min_headroom_bytes"] = r.min_headroom->value();
    doc["layouts"].push_back(std::move(j));
  }
  doc["picks"] = ordered_json::array();
  for (const EngineModel* engine : request.engines) {
    const PlanPicks picks = pick(plan, *engine, request.max_gpus);
    doc["picks"].push_back({{"engine", engine->name()},
                            {"fewest_gpus", layout_json(picks.fewest_gpus)},
                            {"most_tokens_on_all", layout_json(picks.most_tokens_on_all)}});
  }
  return doc.dump(2) + "\n";
}

}  // namespace gpumem
