#include "explain/model_choice.h"

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/hf_cache.h"
#include "core/lower_case.h"

namespace gpumem {
namespace {

std::string line_note(int line) { return "line " + std::to_string(line); }

std::string basename(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// A path component that reads as a checkpoint's name: letters and digits both ("Qwen3-14B",
// "DeepSeek-V3-0324-AWQ"), not a snapshot's hex hash.
bool names_a_checkpoint(std::string_view name) {
  bool letter = false;
  bool digit = false;
  bool hex = !name.empty();
  for (char c : name) {
    letter = letter || std::isalpha(static_cast<unsigned char>(c));
    digit = digit || std::isdigit(static_cast<unsigned char>(c));
    hex = hex && std::isxdigit(static_cast<unsigned char>(c));
  }
  return letter && digit && !(hex && name.size() >= 32);
}

// A catalog entry's model_id may carry a remark after the name ("x/y (also z)").
std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

// The model `logged` names, and how it matched: the catalog slug whose Hugging Face name it
// is; else whatever a scenario's `model:` would resolve it to (catalog/model_reference.h: a
// repository alias, a bundled config, the local Hugging Face cache, a config.json path that
// exists here); else the slug, or the bundled config, whose name ends in its last component
// (a local checkpoint path elsewhere).
std::optional<Sourced> resolve_model(const std::string& logged, const ModelCatalog& models) {
  // ModelScope's cache writes a '.' of a repository name as '___' (modelscope
  // hub/file_download.py, "Meta-Llama-3___1-8B-Instruct"): the name is the repository's.
  if (const size_t at = logged.find("___"); at != std::string::npos) {
    std::string name = logged;
    for (size_t p = at; p != std::string::npos; p = name.find("___", p + 1)) {
      name.replace(p, 3, ".");
    }
    std::optional<Sourced> m = resolve_model(name, models);
    if (m) m->note = "ModelScope's '___' read as '.': " + m->note;
    return m;
  }
  // A path through a Hugging Face cache folder names its repository, whatever the snapshot.
  if (const std::optional<std::string> id = repo_id_in_cache_path(logged);
      id && lower_case(*id) != lower_case(logged)) {
    std::optional<Sourced> m = resolve_model(*id, models);
    if (m) m->note = "the cache folder names " + *id + ": " + m->note;
    return m;
  }
  const std::string want = lower_case(logged);
  const std::string want_base = lower_case(basename(logged));
  std::optional<Sourced> by_base;
  for (const std::string& slug : models.slugs()) {
    Diagnostics ignored;
    Result<ModelEntry> entry = models.find(slug, ignored);
    if (!entry.ok()) continue;
    const std::string id = lower_case(first_word(entry.value().model_id));
    if (id == want) return Sourced{slug, "model_id " + entry.value().model_id, {}};
    if (!by_base && (lower_case(basename(id)) == want_base || slug == want_base)) {
      by_base = Sourced{
          slug, "last path component matches model_id " + first_word(entry.value().model_id), {}};
    }
    // A local copy keeps the name it was downloaded under (an alias: the repository's old
    // name, its ModelScope copy).
    for (const std::string& alias : entry.value().aliases) {
      if (!by_base && lower_case(basename(alias)) == want_base) {
        by_base = Sourced{slug, "last path component matches alias " + alias, {}};
      }
    }
  }
  Diagnostics ignored;
  // A path read by its folder name is the by_base match below, with its own note.
  if (Result<ResolvedModel> r = models.resolve(logged, "", ignored);
      r.ok() && r.value().assumed.empty()) {
    constexpr std::string_view kCatalog = "catalog ";
    const std::string& identity = r.value().identity;
    return Sourced{identity.starts_with(kCatalog) ? identity.substr(kCatalog.size()) : logged,
                   r.value().origin,
                   {}};
  }
  if (by_base) return by_base;
  // A local checkpoint folder keeps the repository's name ("/models/Qwen3-4B").
  for (const ModelCatalog::BundledConfig& b : models.bundled_configs()) {
    if (lower_case(basename(b.repo_id)) == want_base) {
      return Sourced{b.repo_id, "last path component matches bundled config " + b.repo_id, {}};
    }
  }
  return std::nullopt;
}

}  // namespace

// A revision, a fine-tune or a quantization of the entry, which only the user (or a logged
// figure) can say.
std::optional<Sourced> variant_of(const std::string& logged, const ModelCatalog& models) {
  const std::string whole = lower_case(basename(logged));
  // A repository name is at most 96 characters on the Hub; a longer word is no checkpoint's
  // name, and each of its words would cost a pass over the catalog.
  constexpr size_t kLongestName = 256;
  if (whole.size() > kLongestName) return std::nullopt;
  // A local folder may carry the organisation before an underscore
  // ("cognitivecomputations_DeepSeek-V3-0324-AWQ").
  std::vector<std::string> names{whole};
  if (const size_t under = whole.find('_'); under != std::string::npos && whole.find('-') > under) {
    names.push_back(whole.substr(under + 1));
  }
  // The end of the name's last word: at a '-', or at a '.' before a letter (".w4a16"), never
  // inside a version ("qwen2.5").
  const auto last_word = [](const std::string& n) {
    for (size_t i = n.size(); i-- > 1;) {
      if (n[i] == '-') return i;
      if (n[i] == '.' && i + 1 < n.size() && std::isalpha(static_cast<unsigned char>(n[i + 1]))) {
        return i;
      }
    }
    return std::string::npos;
  };
  for (std::string name : names) {
    for (size_t end = last_word(name); end != std::string::npos; end = last_word(name)) {
      name.resize(end);
      for (const std::string& slug : models.slugs()) {
        Diagnostics ignored;
        Result<ModelEntry> entry = models.find(slug, ignored);
        if (!entry.ok()) continue;
        std::vector<std::string> ids = entry.value().aliases;
        ids.push_back(first_word(entry.value().model_id));
        for (const std::string& id : ids) {
          if (lower_case(basename(id)) == name) return Sourced{slug, id, {}};
        }
      }
      for (const ModelCatalog::BundledConfig& b : models.bundled_configs()) {
        if (lower_case(basename(b.repo_id)) == name) return Sourced{b.repo_id, b.repo_id, {}};
      }
    }
  }
  return std::nullopt;
}

ModelChoice choose_model(const LogRun& run, const ModelCatalog& models) {
  ModelChoice c;
  const LoggedFlag* served = run.flag("--served-model-name");
  std::optional<Sourced> by_served;
  if (served != nullptr && !served->values.empty()) {
    by_served = resolve_model(served->values.front(), models);
  }
  if (by_served && (!run.model || (!resolve_model(*run.model, models) &&
                                   !names_a_checkpoint(basename(*run.model))))) {
    // A local checkpoint path that names no checkpoint ("/data/models/latest", a snapshot's
    // hash) says less than the name it is served under; one that does ("DeepSeek-V3-0324-AWQ"
    // served as "deepseek-ai/DeepSeek-R1") is that checkpoint, whatever its served name.
    c.model = {by_served->value,
               "served as '" + served->values.front() + "' (" + line_note(served->line) +
                   "): " + by_served->note,
               {served->line, served->column}};
    c.resolved = true;
  } else if (run.model) {
    if (std::optional<Sourced> m = resolve_model(*run.model, models)) {
      c.model = {m->value,
                 "'" + *run.model + "' (" + line_note(run.model_line) + "): " + m->note,
                 {run.model_line, 0}};
      c.resolved = true;
    } else {
      std::string note =
          "'" + *run.model + "' (" + line_note(run.model_line) + ") is not in the model catalog";
      if (const std::optional<Sourced> base = variant_of(*run.model, models)) {
        note += "; its name extends " + base->note + "'s" +
                (base->value == base->note ? "" : " (catalog " + base->value + ")") +
                ": if it has that architecture and checkpoint format, name it with --model " +
                base->value;
      }
      c.model = {*run.model, note, {run.model_line, 0}};
    }
  } else if (const std::optional<std::string>& id = run.model_in_cache_path) {
    const std::string where = "the Hugging Face cache path on " +
                              line_note(run.model_in_cache_path_line) + " names " + *id;
    if (std::optional<Sourced> m = resolve_model(*id, models)) {
      c.model = {m->value, where + ": " + m->note, {run.model_in_cache_path_line, 0}};
      c.resolved = true;
    } else {
      c.model = {
          *id, where + ", which is not in the model catalog", {run.model_in_cache_path_line, 0}};
    }
  } else {
    c.model = {"", "the log names no model", {}};
  }
  return c;
}

}  // namespace gpumem
