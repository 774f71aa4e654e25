#include "runtime/ledger_json.h"

#include <nlohmann/json.hpp>

#include "core/json_location.h"
#include "runtime/fact_ids.h"
#include "runtime/json_integer.h"
#include "runtime/key_figures.h"

namespace gpumem {

using Json = nlohmann::ordered_json;

Json facts_to_json(const std::vector<Fact>& facts) {
  Json out = Json::array();
  for (const Fact& f : facts) {
    Json j;
    j["id"] = f.id;
    j["label"] = f.label;
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::int64_t>) {
            j["int"] = v;
          } else if constexpr (std::is_same_v<T, double>) {
            j["float"] = v;
          } else if constexpr (std::is_same_v<T, Bytes>) {
            j["bytes"] = v.value();
          } else if constexpr (std::is_same_v<T, std::string>) {
            j["string"] = v;
          } else {
            j["ints"] = v;
          }
        },
        f.value);
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<Fact> facts_from_json(const Json& array) {
  std::vector<Fact> out;
  for (const Json& j : array) {
    Fact f;
    if (j.contains("id")) {
      f.id = j.at("id").get<std::string>();
      f.label = j.at("label").get<std::string>();
    } else {
      f.label = j.at("key").get<std::string>();
      f.id = fact_id::fact_id_of_v1_label(f.label);
      if (f.id.empty()) {
        throw Json::other_error::create(501, "unknown v1 fact '" + f.label + "'", &j);
      }
    }
    if (j.contains("int")) {
      f.value = json_integer<std::int64_t>(j.at("int"));
    } else if (j.contains("float")) {
      f.value = j.at("float").get<double>();
    } else if (j.contains("bytes")) {
      f.value = bytes(json_integer<std::int64_t>(j.at("bytes")));
    } else if (j.contains("string")) {
      f.value = j.at("string").get<std::string>();
    } else {
      f.value = json_integers(j.at("ints"));
    }
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

StepOutcome outcome_from(const std::string& name) {
  if (name == "ok") return StepOutcome::kOk;
  if (name == "out_of_memory") return StepOutcome::kOutOfMemory;
  if (name == "aborted") return StepOutcome::kAborted;
  return StepOutcome::kError;
}

Json step_to_json(const LedgerStep& s) {
  Json j;
  j["name"] = s.name;
  j["outcome"] = std::string(outcome_name(s.outcome));
  j["message"] = s.message;
  j["used_after_bytes"] = s.used_after.value();
  j["free_after_bytes"] = s.free_after.value();
  j["peak_used_bytes"] = s.peak_used.value();
  Json delta;
  for (size_t c = 0; c < kCategoryCount; ++c) {
    delta[std::string(kCategoryNames[c])] = s.delta_by_category[c].value();
  }
  j["delta_bytes"] = std::move(delta);
  j["allocated_after_bytes"] = s.allocated_after.value();
  j["reserved_after_bytes"] = s.reserved_after.value();
  j["allocated_delta_bytes"] = s.allocated_delta.value();
  j["reserved_delta_bytes"] = s.reserved_delta.value();
  j["requested_bytes"] = s.requested.value();
  j["free_at_failure_bytes"] = s.free_at_failure.value();
  j["log"] = s.log_lines;
  return j;
}

LedgerStep step_from_json(const Json& j) {
  LedgerStep s;
  s.name = j.at("name").get<std::string>();
  s.outcome = outcome_from(j.at("outcome").get<std::string>());
  s.message = j.at("message").get<std::string>();
  s.used_after = bytes(json_integer<std::int64_t>(j.at("used_after_bytes")));
  s.free_after = bytes(json_integer<std::int64_t>(j.at("free_after_bytes")));
  s.peak_used = bytes(json_integer<std::int64_t>(j.at("peak_used_bytes")));
  const Json& delta = j.at("delta_bytes");
  for (size_t c = 0; c < kCategoryCount; ++c) {
    s.delta_by_category[c] =
        bytes(json_integer<std::int64_t>(delta.at(std::string(kCategoryNames[c]))));
  }
  s.allocated_after = bytes(json_integer<std::int64_t>(j.at("allocated_after_bytes")));
  s.reserved_after = bytes(json_integer<std::int64_t>(j.at("reserved_after_bytes")));
  s.allocated_delta = bytes(json_integer<std::int64_t>(j.at("allocated_delta_bytes")));
  s.reserved_delta = bytes(json_integer<std::int64_t>(j.at("reserved_delta_bytes")));
  s.requested = bytes(json_integer<std::int64_t>(j.at("requested_bytes")));
  s.free_at_failure = bytes(json_integer<std::int64_t>(j.at("free_at_failure_bytes")));
  s.log_lines = j.at("log").get<std::vector<std::string>>();
  return s;
}

Json optional_bytes(const std::optional<Bytes>& b) { return b ? Json(b->value()) : Json(); }

template <typename T>
Json optional_value(const std::optional<T>& v) {
  return v ? Json(*v) : Json();
}

}  // namespace

Json key_figures_to_json(const KeyFigures& k) {
  Json j;
  j["fits"] = k.fits;
  if (k.failure) {
    Json f;
    f["step"] = k.failure->step;
    f["gpu"] = k.failure->gpu;
    f["outcome"] = std::string(outcome_name(k.failure->outcome));
    f["message"] = k.failure->message;
    f["shortfall_bytes"] = optional_bytes(k.failure->shortfall);
    j["failure"] = std::move(f);
  } else {
    j["failure"] = nullptr;
  }
  Json weights = Json::array();
  for (Bytes b : k.weights_bytes) weights.push_back(b.value());
  j["weights_bytes"] = std::move(weights);
  j["kv_tokens"] = optional_value(k.kv_tokens);
  j["kv_bytes"] = optional_bytes(k.kv_bytes);
  j["replicas"] = k.replicas;
  j["kv_tokens_total"] = optional_value(k.kv_tokens_total);
  j["max_running_requests_total"] = optional_value(k.max_running_requests_total);
  j["max_running_requests"] = optional_value(k.max_running_requests);
  j["max_concurrency"] = optional_value(k.max_concurrency);
  j["free_before_weights_bytes"] = optional_bytes(k.free_before_weights);
  j["free_after_weights_bytes"] = optional_bytes(k.free_after_weights);
  j["cuda_graph_bytes"] = optional_bytes(k.cuda_graph_bytes);
  j["min_headroom_bytes"] = optional_bytes(k.min_headroom);
  return j;
}

namespace {

Json fit_advice_to_json(const std::optional<FitAdviceRecord>& advice) {
  if (!advice) return nullptr;
  Json j;
  Json options = Json::array();
  for (const FitOption& o : advice->options) {
    Json oj;
    oj["flag"] = o.flag;
    oj["value"] = o.value;
    oj["instead_of"] = o.instead_of;
    options.push_back(std::move(oj));
  }
  j["options"] = std::move(options);
  j["none_found"] = advice->none_found;
  j["min_headroom_bytes"] = advice->min_headroom.value();
  return j;
}

}  // namespace

std::string ledger_to_json(const Ledger& ledger) {
  Json j;
  j["schema"] = kLedgerSchema;
  j["scenario"] = ledger.scenario;
  j["engine"] = ledger.engine;
  j["gpu_type"] = ledger.gpu_type;
  j["calibration"] = ledger.calibration;
  j["calibrated"] = ledger.calibrated;
  j["fits"] = ledger.fits();
  j["key_figures"] = key_figures_to_json(key_figures(ledger));
  j["fit_advice"] = fit_advice_to_json(ledger.fit_advice);
  j["facts"] = facts_to_json(ledger.facts);
  Json gpus = Json::array();
  for (const GpuLedger& g : ledger.gpus) {
    Json gj;
    gj["gpu"] = g.gpu;
    gj["node"] = g.node;
    gj["rank"] = g.rank;
    gj["total_bytes"] = g.total.value();
    gj["used_before_bytes"] = g.used_before.value();
    gj["facts"] = facts_to_json(g.facts);
    Json steps = Json::array();
    for (const LedgerStep& s : g.steps) steps.push_back(step_to_json(s));
    gj["steps"] = std::move(steps);
    gpus.push_back(std::move(gj));
  }
  j["gpus"] = std::move(gpus);
  return j.dump(1) + "\n";
}

Result<Ledger> ledger_from_json(const std::string& file, const std::string& text) {
  try {
    const Json j = Json::parse(text);
    // gpumem.ledger/2 names its schema; a v1 file its format (read alike: facts by label).
    const bool v2 = j.contains("schema") && j.at("schema") == kLedgerSchema;
    const bool v1 = !j.contains("schema") && j.contains("format") &&
                    j.at("format") == "gpumem.ledger.v1";
    if (!v1 && !v2) {
      const std::string what = j.contains("schema")   ? j.at("schema").dump()
                               : j.contains("format") ? j.at("format").dump()
                                                      : "none";
      return invalid_input(
          Diagnostic{location_of_pointer(file, text, j.contains("schema") ? "/schema" : "/format"),
                     "not a " + std::string(kLedgerSchema) + " ledger (schema " + what + ")"}
              .to_string());
    }
    Ledger l;
    l.scenario = j.at("scenario").get<std::string>();
    l.engine = j.at("engine").get<std::string>();
    l.gpu_type = j.at("gpu_type").get<std::string>();
    l.calibration = j.at("calibration").get<std::string>();
    l.calibrated = j.at("calibrated").get<bool>();
    l.facts = facts_from_json(j.at("facts"));
    if (j.contains("fit_advice") && !j.at("fit_advice").is_null()) {
      FitAdviceRecord a;
      for (const Json& o : j.at("fit_advice").at("options")) {
        a.options.push_back({o.at("flag").get<std::string>(), o.at("value").get<std::string>(),
                             o.at("instead_of").get<std::string>()});
      }
      a.none_found = j.at("fit_advice").at("none_found").get<std::vector<std::string>>();
      if (j.at("fit_advice").contains("min_headroom_bytes")) {
        a.min_headroom = bytes(json_integer<std::int64_t>(j.at("fit_advice").at("min_headroom_bytes"), 0));
      }
      l.fit_advice = std::move(a);
    }
    for (const Json& gj : j.at("gpus")) {
      GpuLedger g;
      g.gpu = json_integer<int>(gj.at("gpu"), 0);
      g.node = json_integer<int>(gj.at("node"), 0);
      g.rank = json_integer<int>(gj.at("rank"), 0);
      g.total = bytes(json_integer<std::int64_t>(gj.at("total_bytes")));
      g.used_before = bytes(json_integer<std::int64_t>(gj.at("used_before_bytes")));
      g.facts = facts_from_json(gj.at("facts"));
      for (const Json& sj : gj.at("steps")) g.steps.push_back(step_from_json(sj));
      l.gpus.push_back(std::move(g));
    }
    return l;
  } catch (const nlohmann::json::exception& e) {
    return invalid_input(json_error(file, text, "malformed ledger JSON", e));
  }
}

}  // namespace gpumem
