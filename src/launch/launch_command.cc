#include "launch/launch_command.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iterator>

#include "catalog/yaml_reader.h"
#include "core/atomic_file.h"
#include "engine/engine_model.h"
#include "launch/container_run.h"

namespace gpumem {
namespace {

// A token of the command with its column in `EngineLaunch::text`.
struct Token {
  std::string text;
  int column = 0;
};

SourceLoc at(const Token& t) { return {kLaunchCommandFile, 1, t.column}; }

bool is_env_assignment(std::string_view t) {
  const size_t eq = t.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    const char c = t[i];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool is_python(std::string_view t) {
  const size_t slash = t.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? t : t.substr(slash + 1);
  return name == "python" || name.starts_with("python3");
}

std::string_view basename(std::string_view t) {
  const size_t slash = t.rfind('/');
  return slash == std::string_view::npos ? t : t.substr(slash + 1);
}

// The engine and form the program tokens at `i` start; advances `i` past them.
const EngineModel* match_form(const std::vector<Token>& tokens, size_t& i, LaunchForm& form) {
  for (const EngineModel* e : engine_models()) {
    for (const LaunchForm& f : e->launch_forms()) {
      if (!f.module.empty()) {
        if (i + 2 < tokens.size() && is_python(tokens[i].text) && tokens[i + 1].text == "-m" &&
            tokens[i + 2].text == f.module) {
          i += 3;
          form = f;
          return e;
        }
      } else if (i + 1 < tokens.size() && basename(tokens[i].text) == f.program &&
                 tokens[i + 1].text == f.subcommand) {
        i += 2;
        form = f;
        return e;
      }
    }
  }
  return nullptr;
}

// The engine and form whose container image `image` is (LaunchForm::image).
const EngineModel* image_form(std::string_view image, LaunchForm& form) {
  const std::string repository = image_repository(image);
  for (const EngineModel* e : engine_models()) {
    for (const LaunchForm& f : e->launch_forms()) {
      if (!f.image.empty() && f.image == repository) {
        form = f;
        return e;
      }
    }
  }
  return nullptr;
}

std::string known_forms() {
  std::string out;
  for (const EngineModel* e : engine_models()) {
    for (const LaunchForm& f : e->launch_forms()) {
      out += (out.empty() ? "" : ", ") +
             (f.module.empty() ? std::string(f.program) + " " + std::string(f.subcommand)
                               : "python -m " + std::string(f.module));
    }
  }
  return out;
}

// A flag as written, before `=`: "--max-model-len=4096" -> "--max-model-len".
std::string flag_part(std::string_view t) {
  const size_t eq = t.find('=');
  return std::string(eq == std::string_view::npos ? t : t.substr(0, eq));
}

bool looks_like_value(std::string_view t) {
  if (t.empty()) return true;
  if (t.front() != '-') return true;
  // argparse takes a negative number as a value.
  return t.size() > 1 && ((t[1] >= '0' && t[1] <= '9') || t[1] == '.');
}

// vLLM's `--config file.yaml` (vllm utils FlexibleArgumentParser._load_config_file): each key
// a flag (dashes or underscores), each value its argument; `true` a bare boolean, `false`
// leaves a boolean off; a list its values.
void read_config_file(const std::string& path, const SourceLoc& where, Diagnostics& diags,
                      std::vector<EngineArg>& args) {
  Result<YamlDocument> doc = load_yaml_file(path, InputKind::kScenario);
  if (!doc.ok()) {
    diags.error(where, "--config " + path + ": " + doc.status().message());
    return;
  }
  if (!doc->root.IsMap()) {
    diags.error(where, "--config " + path + ": a vLLM config file is a mapping of flags");
    return;
  }
  for (auto it = doc->root.begin(); it != doc->root.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    if (!key.IsScalar()) continue;
    EngineArg a;
    a.flag = key.Scalar().starts_with("-") ? key.Scalar() : "--" + key.Scalar();
    std::replace(a.flag.begin() + 2, a.flag.end(), '_', '-');
    a.flag_loc = location(path, key);
    a.value_loc = location(path, value);
    if (value.IsSequence()) {
      a.is_list = true;
      for (const YAML::Node& v : value) a.values.push_back(v.IsScalar() ? v.Scalar() : "");
    } else if (value.IsScalar()) {
      if (value.Scalar() == "false") continue;
      a.values.push_back(value.Scalar() == "true" ? "" : value.Scalar());
    } else {
      a.values.push_back(YAML::Dump(value));
    }
    args.push_back(std::move(a));
  }
}

// The keys `--flag.a.b value` sets, merged into one JSON object per flag as vLLM merges them
// (vllm v0.21 utils/argparse_utils.py FlexibleArgumentParser.parse_args): a value that reads
// as JSON is that value, any other its text.
struct DottedFlag {
  EngineArg arg;
  YAML::Node object{YAML::NodeType::Map};
};

void set_dotted_key(YAML::Node object, std::string_view keys, const std::string& value) {
  const size_t dot = keys.find('.');
  const std::string key(keys.substr(0, dot));
  if (dot == std::string_view::npos) {
    YAML::Node v;
    try {
      v = YAML::Load(value);
    } catch (const YAML::Exception&) {
      v = YAML::Node(value);
    }
    object[key] = v;
    return;
  }
  if (!object[key].IsMap()) object[key] = YAML::Node(YAML::NodeType::Map);
  set_dotted_key(object[key], keys.substr(dot + 1), value);
}

std::string flow_json(const YAML::Node& n) {
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

}  // namespace

namespace {

// Where `text` stops being UTF-8 (its size when it all is): a scenario is UTF-8 text, and a
// YAML writer replaces other bytes, so two different flags could be written as one key.
size_t first_non_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80           ? 1
                          : (lead >> 5) == 0x6  ? 2
                          : (lead >> 4) == 0xE  ? 3
                          : (lead >> 3) == 0x1E ? 4
                                                : 0;
    if (length == 0 || i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return i;
    }
    i += length;
  }
  return i;
}

}  // namespace

std::optional<EngineLaunch> read_launch_command(std::span<const std::string> argv,
                                                Diagnostics& diags) {
  const size_t errors_before = diags.count();
  EngineLaunch out;
  std::vector<Token> tokens;
  for (const std::string& a : argv) {
    if (!out.text.empty()) out.text += ' ';
    tokens.push_back({a, static_cast<int>(out.text.size()) + 1});
    out.text += a;
  }
  if (tokens.empty()) {
    diags.error({},
                "the launch command after '--' is empty; write it as you would run it, e.g. "
                "-- vllm serve Qwen/Qwen3-8B --max-model-len 32768");
    return std::nullopt;
  }
  for (const Token& t : tokens) {
    const size_t bad = first_non_utf8(t.text);
    if (bad == t.text.size()) continue;
    Token where = t;
    where.column += static_cast<int>(bad);
    diags.error(at(where), "the launch command is not UTF-8 text here (byte " +
                               std::to_string(static_cast<unsigned char>(t.text[bad])) + ")");
    return std::nullopt;
  }
  size_t i = 0;
  // Environment settings, and the programs that run the command as it is (nohup, exec, time,
  // uv run: the same process, the same memory), in any order.
  while (i < tokens.size()) {
    const std::string& t = tokens[i].text;
    if (t == "env" || t == "nohup" || t == "exec" || t == "time") {
      ++i;
    } else if (t == "uv" && i + 1 < tokens.size() && tokens[i + 1].text == "run") {
      i += 2;
    } else if (is_env_assignment(t)) {
      const size_t eq = t.find('=');
      Token value_at = tokens[i];
      value_at.column += static_cast<int>(eq) + 1;
      out.env.push_back({t.substr(0, eq), t.substr(eq + 1), at(tokens[i]), at(value_at)});
      ++i;
    } else {
      break;
    }
  }
  LaunchForm form;
  const EngineModel* engine = nullptr;
  std::vector<std::string> words;
  for (const Token& t : tokens) words.push_back(t.text);
  if (starts_container_run(words, i)) {
    ContainerRunError error;
    const std::optional<ContainerRun> run = read_container_run(words, i, error);
    if (!run) {
      Token where = tokens[error.word];
      where.column += static_cast<int>(error.from);
      diags.error(at(where), error.message);
      return std::nullopt;
    }
    for (const ContainerEnv& e : run->env) {
      Token name_at = tokens[e.word];
      name_at.column += static_cast<int>(e.from);
      Token value_at = name_at;
      value_at.column +=
          static_cast<int>(std::min(e.name.size() + 1, tokens[e.word].text.size() - e.from));
      out.env.push_back({e.name, e.value, at(name_at), at(value_at)});
    }
    // What the container runs: the entrypoint given, then the words after the image; or the
    // image's own entrypoint's arguments.
    const Token image = tokens[run->image];
    if (const std::optional<ImageRelease> r = image_release(image.text)) {
      Token version_at = image;
      version_at.column += static_cast<int>(r->from);
      out.version = r->version;
      out.version_loc = at(version_at);
    }
    std::vector<Token> command;
    if (run->entrypoint) command.push_back(tokens[*run->entrypoint]);
    command.insert(command.end(), tokens.begin() + static_cast<std::ptrdiff_t>(run->command),
                   tokens.end());
    tokens = std::move(command);
    i = 0;
    if (!run->entrypoint) engine = image_form(image.text, form);
    if (engine != nullptr && tokens.size() >= 2 && basename(tokens[0].text) == form.program &&
        tokens[1].text == form.subcommand) {
      // vLLM then reads `vllm serve vllm serve ...` and stops at the second 'serve'.
      diags.error(at(tokens[0]),
                  "the image " + image.text + " already runs '" + std::string(form.program) + " " +
                      std::string(form.subcommand) +
                      "' (its ENTRYPOINT): the words after the image are its "
                      "arguments; drop '" +
                      std::string(form.program) + " " + std::string(form.subcommand) + "'");
      return std::nullopt;
    }
    if (engine == nullptr && tokens.empty()) {
      diags.error(at(image), "the image " + image.text +
                                 " runs no serving engine gpumem knows by itself; write the "
                                 "command it runs after the image (" +
                                 known_forms() + ")");
      return std::nullopt;
    }
  }
  const size_t program_at = i;
  if (engine == nullptr && i < tokens.size()) engine = match_form(tokens, i, form);
  if (engine == nullptr) {
    diags.error(
        program_at < tokens.size() ? at(tokens[program_at]) : at(tokens.back()),
        "not a command that starts a serving engine gpumem models; it reads " + known_forms());
    return std::nullopt;
  }
  out.engine = std::string(engine->name());
  const std::vector<std::string_view> model_flags = engine->model_flags();
  std::vector<EngineArg> from_config;
  std::vector<DottedFlag> dotted;
  while (i < tokens.size()) {
    const Token& t = tokens[i++];
    if (t.text.empty() || t.text.front() != '-' || t.text == "-") {
      if (form.model_positional && !out.model) {
        out.model = t.text;
        out.model_loc = at(t);
        continue;
      }
      diags.error(at(t), "unexpected argument '" + t.text + "': " + std::string(engine->title()) +
                             " takes it as no flag's value");
      continue;
    }
    const std::string written = flag_part(t.text);
    EngineArg a;
    a.flag = engine->canonical_flag(written);
    a.flag_loc = at(t);
    const size_t eq = t.text.find('=');
    if (const size_t dot = written.find('.'); form.dotted_json_keys && dot != std::string::npos) {
      // The engine takes the next word as the key's value, whatever it looks like.
      std::string value;
      if (eq != std::string::npos) {
        value = t.text.substr(eq + 1);
      } else if (i < tokens.size()) {
        value = tokens[i++].text;
      } else {
        diags.error(a.flag_loc, "'" + t.text + "' expects a value");
        continue;
      }
      // Only the flag's own name is spelled with dashes; the keys are the config's fields.
      std::string head = engine->canonical_flag(written.substr(0, dot));
      if (Result<const FlagSpec*> spec = match_flag(head, engine->flags(), engine->title());
          spec.ok()) {
        head = std::string((*spec)->name);
      }
      auto d = std::find_if(dotted.begin(), dotted.end(),
                            [&](const DottedFlag& f) { return f.arg.flag == head; });
      if (d == dotted.end()) {
        d = dotted.insert(dotted.end(), DottedFlag{});
        d->arg.flag = head;
        d->arg.flag_loc = a.flag_loc;
        d->arg.value_loc = a.flag_loc;
      }
      set_dotted_key(d->object, std::string_view(written).substr(dot + 1), value);
      continue;
    }
    Result<const FlagSpec*> spec = match_flag(a.flag, engine->flags(), engine->title());
    if (!spec.ok() && a.flag.starts_with("--no-")) {
      // --no-X of a boolean X (argparse.BooleanOptionalAction): bare, read as X false.
      Result<const FlagSpec*> positive =
          match_flag("--" + a.flag.substr(5), engine->flags(), engine->title());
      if (positive.ok() && (*positive)->type == FlagType::kBool) spec = positive;
    }
    // argparse reads a one-letter option with its value attached: "-O3" is "-O 3".
    std::optional<std::string> attached;
    if (!spec.ok() && eq == std::string::npos && written.size() > 2 && written[0] == '-' &&
        written[1] != '-') {
      const std::string letter = engine->canonical_flag(written.substr(0, 2));
      Result<const FlagSpec*> short_spec = match_flag(letter, engine->flags(), engine->title());
      if (short_spec.ok() && (*short_spec)->type != FlagType::kBool) {
        spec = short_spec;
        a.flag = letter;
        attached = written.substr(2);
      }
    }
    if (eq != std::string::npos) {
      a.values.push_back(t.text.substr(eq + 1));
      a.value_loc = {kLaunchCommandFile, 1, t.column + static_cast<int>(eq) + 1};
    } else if (attached) {
      a.values.push_back(*attached);
      a.value_loc = {kLaunchCommandFile, 1, t.column + 2};
    } else if (spec.ok() && (*spec)->type == FlagType::kBool) {
      a.value_loc = a.flag_loc;
    } else if (spec.ok() &&
               ((*spec)->type == FlagType::kIntList || (*spec)->type == FlagType::kList)) {
      a.is_list = true;
      a.value_loc = i < tokens.size() ? at(tokens[i]) : a.flag_loc;
      while (i < tokens.size() && looks_like_value(tokens[i].text)) {
        a.values.push_back(tokens[i++].text);
      }
    } else if (i < tokens.size() && looks_like_value(tokens[i].text)) {
      a.value_loc = at(tokens[i]);
      a.values.push_back(tokens[i++].text);
    } else if (spec.ok()) {
      diags.error(a.flag_loc, "'" + t.text + "' expects a value");
      continue;
    }
    if (!spec.ok()) {
      // The engine reports the unknown flag, with its did-you-mean, when it reads the args.
      out.args.push_back(std::move(a));
      continue;
    }
    const bool is_model =
        std::find(model_flags.begin(), model_flags.end(), (*spec)->name) != model_flags.end();
    // As the engine's table spells it ("-tp" -> "--tensor-parallel-size"); --no-X stays.
    if ((!a.flag.starts_with("--no-") || (*spec)->name.starts_with("--no-")) &&
        !engine->spelling_depends_on_release(a.flag)) {
      a.flag = std::string((*spec)->name);
    }
    if ((*spec)->name == "--config") {
      if (!a.values.empty()) read_config_file(a.values.front(), a.flag_loc, diags, from_config);
      continue;
    }
    if (is_model) {
      if (out.model) {
        diags.error(a.flag_loc, "the model is given twice: '" + *out.model + "' and '" +
                                    (a.values.empty() ? std::string() : a.values.front()) + "'");
        continue;
      }
      out.model = a.values.empty() ? std::string() : a.values.front();
      out.model_loc = a.value_loc;
      continue;
    }
    out.args.push_back(std::move(a));
  }
  // vLLM appends the merged dotted keys after the other arguments.
  for (DottedFlag& d : dotted) {
    d.arg.values = {flow_json(d.object)};
    out.args.push_back(std::move(d.arg));
  }
  // The command line overrides its config file (vLLM: the file's args come first, in the
  // file's order, and argparse keeps the last value). The file's `model` is the model unless
  // the command names one (vllm docs configuration/serve_args.md: "SOME_MODEL takes
  // precedence over `model` in config file").
  std::vector<EngineArg> config_args;
  for (EngineArg& c : from_config) {
    Result<const FlagSpec*> spec = match_flag(c.flag, engine->flags(), engine->title());
    if (spec.ok() &&
        std::find(model_flags.begin(), model_flags.end(), (*spec)->name) != model_flags.end()) {
      if (!out.model && !c.values.empty()) {
        out.model = c.values.front();
        out.model_loc = c.value_loc;
      }
      continue;
    }
    const bool overridden = std::any_of(out.args.begin(), out.args.end(), [&](const EngineArg& a) {
      return engine->canonical_flag(a.flag) == engine->canonical_flag(c.flag);
    });
    if (!overridden) config_args.push_back(std::move(c));
  }
  out.args.insert(out.args.begin(), std::make_move_iterator(config_args.begin()),
                  std::make_move_iterator(config_args.end()));
  if (!out.model) {
    diags.error(at(tokens.front()),
                "the command names no model (" + std::string(model_flags.front()) + " MODEL)");
  }
  if (diags.count() != errors_before) return std::nullopt;
  return out;
}

std::vector<std::string> launch_argv(const EngineModel& engine, const std::string& model) {
  const LaunchForm form = engine.launch_forms().front();
  std::vector<std::string> argv;
  if (form.program.empty()) {
    argv = {"python", "-m", std::string(form.module)};
  } else {
    argv = {std::string(form.program), std::string(form.subcommand)};
  }
  if (!form.model_positional) argv.emplace_back(engine.model_flags().front());
  argv.push_back(model);
  return argv;
}

namespace {

// A boolean switched on is written bare ("--enforce-eager"), as users type it.
void append_flag(std::vector<std::string>& out, std::string_view flag, std::string_view value,
                 const FlagSpec* spec) {
  out.emplace_back(flag);
  if (spec == nullptr || spec->type != FlagType::kBool || value != "true") out.emplace_back(value);
}

}  // namespace

std::string launch_with_flag(std::span<const std::string> argv, std::string_view flag,
                             std::string_view value, std::span<const std::string> removed) {
  Diagnostics ignored;
  const std::optional<EngineLaunch> parsed = read_launch_command(argv, ignored);
  const EngineModel* engine = parsed ? find_engine(parsed->engine) : nullptr;
  // The spec a token names, if it is a flag of the engine.
  const auto spec_of = [&](std::string_view token) -> const FlagSpec* {
    if (engine == nullptr || !token.starts_with("-")) return nullptr;
    Result<const FlagSpec*> s =
        match_flag(engine->canonical_flag(flag_part(token)), engine->flags(), engine->title());
    return s.ok() ? *s : nullptr;
  };
  const FlagSpec* target = spec_of(flag);
  std::vector<std::string> out;
  bool replaced = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const FlagSpec* s = spec_of(argv[i]);
    bool drop = false;
    for (const std::string& r : removed) drop = drop || (s != nullptr && s == spec_of(r));
    if (s != nullptr && (s == target || drop)) {
      const bool inline_value = argv[i].find('=') != std::string::npos;
      // Skip the flag's own values.
      while (!inline_value && s->type != FlagType::kBool && i + 1 < argv.size() &&
             looks_like_value(argv[i + 1])) {
        ++i;
        if (s->type != FlagType::kIntList && s->type != FlagType::kList) break;
      }
      if (s == target && !replaced) {
        append_flag(out, flag, value, target);
        replaced = true;
      }
      continue;
    }
    out.push_back(argv[i]);
  }
  if (!replaced) append_flag(out, flag, value, target);
  return shell_command(out);
}

std::string shell_command(std::span<const std::string> argv) {
  std::string text;
  for (const std::string& t : argv) {
    const bool plain =
        !t.empty() && t.find_first_of(" \t'\"$`\\!*?;&|<>(){}[]#~") == std::string::npos;
    std::string quoted = t;
    if (!plain) {
      // ' inside single quotes: close, escaped quote, reopen.
      quoted = "'";
      for (char c : t) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      quoted += "'";
    }
    text += (text.empty() ? "" : " ") + quoted;
  }
  return text;
}

}  // namespace gpumem
