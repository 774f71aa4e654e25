#include "sweep/report.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace gpumem::sweep {
namespace {

constexpr std::string_view kNotCalibrated =
    "not calibrated: published figures only, predictions may be off by hundreds of MiB";

std::string_view status_name(PointStatus s) {
  switch (s) {
    case PointStatus::kFits:
      return "yes";
    case PointStatus::kTight:
      return "tight";
    case PointStatus::kFails:
      return "no";
    case PointStatus::kInvalid:
      return "invalid";
  }
  return "invalid";
}

std::string note(const PointResult& r) {
  if (r.status == PointStatus::kFails) {
    return std::string(r.failed_outcome == StepOutcome::kOutOfMemory ? "out of memory: "
                                                                     : "error: ") +
           r.reason;
  }
  return r.reason;
}

std::string failure(const PointResult& r) {
  if (r.status != PointStatus::kFails) return "-";
  return r.failed_step + ", GPU " + std::to_string(r.failed_gpu);
}

std::string optional_count(const std::optional<std::int64_t>& v) {
  return v ? format_count(*v) : "-";
}

size_t count_fitting(const std::vector<PointResult>& results) {
  size_t n = 0;
  for (const PointResult& r : results) n += r.status == PointStatus::kFits ? 1 : 0;
  return n;
}

std::string summary_line(const SweepReport& report) {
  const size_t total = report.results->size();
  const size_t fitting = count_fitting(*report.results);
  const std::string safely =
      report.min_headroom.value() > 0
          ? " with " + format_mib(report.min_headroom) + " free at every step"
          : "";
  if (!report.best_by.empty()) {
    return fmt::format("{} among the {} of {} points that start{}", report.best_by, fitting,
                       total, safely);
  }
  return fmt::format("{} points, {} start{}", total, fitting, safely);
}

// The calibrations the points stand on, and the GPUs without one, each once.
std::vector<std::string> calibration_lines(const SweepReport& report) {
  std::vector<std::string> lines;
  const auto add = [&lines](std::string line) {
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
  };
  for (size_t p : report.rows) {
    const PointResult& r = (*report.results)[p];
    if (r.status == PointStatus::kInvalid) continue;
    add(r.calibration.empty() ? std::string(kNotCalibrated) : "predicted with " + r.calibration);
  }
  return lines;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string render_sweep_table(const SweepReport& report) {
  const Grid& grid = *report.grid;
  std::vector<std::string> header;
  for (const Axis& a : grid.axes()) header.push_back(a.key);
  for (const char* h :
       {"fits", "first failure", "kv tokens", "total kv tokens", "max running", "min headroom"}) {
    header.emplace_back(h);
  }
  const size_t axes = grid.axes().size();
  std::vector<std::vector<std::string>> cells;
  for (size_t p : report.rows) {
    const PointResult& r = (*report.results)[p];
    std::vector<std::string> row;
    for (size_t a = 0; a < axes; ++a) row.push_back(grid.value(p, a));
    row.emplace_back(status_name(r.status));
    row.push_back(failure(r));
    row.push_back(optional_count(r.kv_tokens));
    row.push_back(optional_count(r.kv_tokens_total));
    row.push_back(optional_count(r.max_running_requests));
    row.push_back(r.min_headroom ? format_mib(*r.min_headroom) : "-");
    row.push_back(note(r));
    cells.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  // Values and words align left, the three numbers right.
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (size_t c = 0; c < header.size(); ++c) {
      const bool number = c >= axes + 2;
      out += number ? fmt::format("{:>{}}  ", row[c], width[c])
                    : fmt::format("{:<{}}  ", row[c], width[c]);
    }
    if (row.size() > header.size()) out += row.back();
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> head = header;
  head.emplace_back("note");
  std::string out = fmt::format("scenario  {}: {}\n", report.scenario, summary_line(report));
  for (const std::string& c : calibration_lines(report)) out += "          " + c + "\n";
  out += "\n";
  out += line(head);
  for (const auto& row : cells) out += line(row);
  return out;
}

std::string render_sweep_csv(const SweepReport& report) {
  const Grid& grid = *report.grid;
  std::string out;
  for (const Axis& a : grid.axes()) out += csv_field(a.key) + ",";
  out +=
      "fits,failed_step,failed_gpu,kv_tokens,kv_tokens_total,replicas,max_running_requests,"
      "min_headroom_bytes,calibration,note\n";
  for (size_t p : report.rows) {
    const PointResult& r = (*report.results)[p];
    for (size_t a = 0; a < grid.axes().size(); ++a) out += csv_field(grid.value(p, a)) + ",";
    const bool fails = r.status == PointStatus::kFails;
    const auto number = [](const std::optional<std::int64_t>& v) {
      return v ? std::to_string(*v) : std::string();
    };
    const bool simulated = r.status != PointStatus::kInvalid;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", status_name(r.status),
                       fails ? r.failed_step : "", fails ? std::to_string(r.failed_gpu) : "",
                       number(r.kv_tokens), number(r.kv_tokens_total),
                       simulated ? std::to_string(r.replicas) : "",
                       number(r.max_running_requests),
                       r.min_headroom ? std::to_string(r.min_headroom->value()) : "",
                       csv_field(simulated ? (r.calibration.empty() ? "none" : r.calibration) : ""),
                       csv_field(note(r)));
  }
  return out;
}

std::string render_sweep_json(const SweepReport& report) {
  using nlohmann::ordered_json;
  const Grid& grid = *report.grid;
  ordered_json doc;
  doc["schema"] = "gpumem.sweep/1";
  doc["scenario"] = report.scenario;
  doc["axes"] = ordered_json::array();
  for (const Axis& a : grid.axes()) doc["axes"].push_back(a.key);
  doc["grid_points"] = report.results->size();
  doc["starting_points"] = count_fitting(*report.results);
  if (!report.best_by.empty()) doc["best_by"] = report.best_by;
  doc["min_headroom_bytes"] = report.min_headroom.value();
  doc["calibration"] = calibration_lines(report);
  doc["points"] = ordered_json::array();
  for (size_t p : report.rows) {
    const PointResult& r = (*report.results)[p];
    ordered_json point;
    point["index"] = p;
    ordered_json values = ordered_json::object();
    for (size_t a = 0; a < grid.axes().size(); ++a) values[grid.axes()[a].key] = grid.value(p, a);
    point["values"] = std::move(values);
    point["status"] = r.status == PointStatus::kFits    ? "fits"
                      : r.status == PointStatus::kTight ? "tight"
                      : r.status == PointStatus::kFails ? "fails"
                                                        : "invalid";
    if (r.status == PointStatus::kFails) {
      point["failed_step"] = r.failed_step;
      point["failed_gpu"] = r.failed_gpu;
      point["outcome"] = outcome_name(r.failed_outcome);
    }
    if (!r.reason.empty()) point["reason"] = r.reason;
    if (r.kv_tokens) point["kv_tokens"] = *r.kv_tokens;
    if (r.kv_tokens_total) point["kv_tokens_total"] = *r.kv_tokens_total;
    if (r.status != PointStatus::kInvalid) {
      point["replicas"] = r.replicas;
      point["calibration"] = r.calibration.empty() ? ordered_json(nullptr) : ordered_json(r.calibration);
    }
    if (r.max_running_requests) point["max_running_requests"] = *r.max_running_requests;
    if (r.min_headroom) point["min_headroom_bytes"] = r.min_headroom->value();
    doc["points"].push_back(std::move(point));
  }
  return doc.dump(2) + "\n";
}

}  // namespace gpumem::sweep
