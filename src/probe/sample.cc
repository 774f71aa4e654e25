#include "probe/sample.h"

#include <time.h>
#include <unistd.h>

#include <array>
#include <string_view>
#include <utility>

namespace gpumem::probe {
namespace {

using Field = std::optional<Bytes> Sample::*;

// Field names in the JSON, in output order.
constexpr std::array<std::pair<std::string_view, Field>, 10> kFields = {{
    {"cuda_free", &Sample::cuda_free},
    {"cuda_total", &Sample::cuda_total},
    {"nvml_total", &Sample::nvml_total},
    {"nvml_free", &Sample::nvml_free},
    {"nvml_used", &Sample::nvml_used},
    {"nvml_v2_total", &Sample::nvml_v2_total},
    {"nvml_v2_reserved", &Sample::nvml_v2_reserved},
    {"nvml_v2_free", &Sample::nvml_v2_free},
    {"nvml_v2_used", &Sample::nvml_v2_used},
    {"process_used", &Sample::process_used},
}};

}  // namespace

double monotonic_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Sample sample_nvml(const Nvml* nvml, Nvml::Device device) {
  Sample s;
  s.t_mono_s = monotonic_seconds();
  if (nvml == nullptr || device == nullptr) return s;
  if (auto m = nvml->memory(device); m.ok()) {
    s.nvml_total = m->total;
    s.nvml_free = m->free;
    s.nvml_used = m->used;
  }
  if (auto m = nvml->memory_v2(device); m.ok()) {
    s.nvml_v2_total = m->total;
    s.nvml_v2_reserved = m->reserved;
    s.nvml_v2_free = m->free;
    s.nvml_v2_used = m->used;
  }
  if (auto p = nvml->process_used(device, ::getpid()); p.ok()) s.process_used = *p;
  return s;
}

nlohmann::json bytes_or_null(const std::optional<Bytes>& b) {
  return b ? nlohmann::json(b->value()) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const Sample& s) {
  nlohmann::json j = nlohmann::json::object();
  j["t_mono_s"] = s.t_mono_s;
  for (const auto& [name, field] : kFields) j[std::string(name)] = bytes_or_null(s.*field);
  return j;
}

nlohmann::json delta_json(const Sample& before, const Sample& after) {
  nlohmann::json j = nlohmann::json::object();
  j["t_s"] = after.t_mono_s - before.t_mono_s;
  for (const auto& [name, field] : kFields) {
    const std::optional<Bytes>& a = before.*field;
    const std::optional<Bytes>& b = after.*field;
    j[std::string(name)] = a && b ? nlohmann::json((*b - *a).value()) : nlohmann::json(nullptr);
  }
  return j;
}

std::optional<Bytes> cuda_taken(const Sample& before, const Sample& after) {
  if (!before.cuda_free || !after.cuda_free) return std::nullopt;
  return *before.cuda_free - *after.cuda_free;
}

nlohmann::json SampleLog::to_json() const {
  nlohmann::json samples = nlohmann::json::array();
  nlohmann::json deltas = nlohmann::json::array();
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    nlohmann::json s = {{"at", entries_[i].first}};
    s.update(probe::to_json(entries_[i].second));
    samples.push_back(std::move(s));
    if (i == 0) continue;
    nlohmann::json d = {{"step", entries_[i].first}};
    d.update(delta_json(entries_[i - 1].second, entries_[i].second));
    deltas.push_back(std::move(d));
  }
  return {{"samples", std::move(samples)}, {"deltas", std::move(deltas)}};
}

}  // namespace gpumem::probe
