#include "launch/container_run.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace gpumem {
namespace {

// docker container run's options that take a value (docs.docker.com/reference/cli/docker/
// container/run, "Options").
constexpr std::string_view kValueOptions[] = {"--add-host",
                                              "--annotation",
                                              "--attach",
                                              "--blkio-weight",
                                              "--blkio-weight-device",
                                              "--cap-add",
                                              "--cap-drop",
                                              "--cgroup-parent",
                                              "--cgroupns",
                                              "--cidfile",
                                              "--cpu-period",
                                              "--cpu-quota",
                                              "--cpu-rt-period",
                                              "--cpu-rt-runtime",
                                              "--cpu-shares",
                                              "--cpus",
                                              "--cpuset-cpus",
                                              "--cpuset-mems",
                                              "--detach-keys",
                                              "--device",
                                              "--device-cgroup-rule",
                                              "--device-read-bps",
                                              "--device-read-iops",
                                              "--device-write-bps",
                                              "--device-write-iops",
                                              "--dns",
                                              "--dns-option",
                                              "--dns-search",
                                              "--domainname",
                                              "--entrypoint",
                                              "--env",
                                              "--env-file",
                                              "--expose",
                                              "--gpus",
                                              "--group-add",
                                              "--health-cmd",
                                              "--health-interval",
                                              "--health-retries",
                                              "--health-start-interval",
                                              "--health-start-period",
                                              "--health-timeout",
                                              "--hostname",
                                              "--ip",
                                              "--ip6",
                                              "--ipc",
                                              "--isolation",
                                              "--kernel-memory",
                                              "--label",
                                              "--label-file",
                                              "--link",
                                              "--link-local-ip",
                                              "--log-driver",
                                              "--log-opt",
                                              "--mac-address",
                                              "--memory",
                                              "--memory-reservation",
                                              "--memory-swap",
                                              "--memory-swappiness",
                                              "--mount",
                                              "--name",
                                              "--network",
                                              "--net",
                                              "--network-alias",
                                              "--oom-score-adj",
                                              "--pid",
                                              "--pids-limit",
                                              "--platform",
                                              "--publish",
                                              "--pull",
                                              "--restart",
                                              "--runtime",
                                              "--security-opt",
                                              "--shm-size",
                                              "--stop-signal",
                                              "--stop-timeout",
                                              "--storage-opt",
                                              "--sysctl",
                                              "--tmpfs",
                                              "--ulimit",
                                              "--user",
                                              "--userns",
                                              "--uts",
                                              "--volume",
                                              "--volumes-from",
                                              "--workdir"};
// Its options without a value.
constexpr std::string_view kSwitches[] = {"--detach",
                                          "--interactive",
                                          "--tty",
                                          "--rm",
                                          "--privileged",
                                          "--init",
                                          "--read-only",
                                          "--sig-proxy",
                                          "--publish-all",
                                          "--no-healthcheck",
                                          "--oom-kill-disable",
                                          "--quiet"};
// One-letter forms: those taking a value, and switches.
constexpr std::string_view kShortValued = "acehlmpuvw";
constexpr std::string_view kShortSwitches = "diPqt";

bool takes_value(std::string_view option) {
  return std::find(std::begin(kValueOptions), std::end(kValueOptions), option) !=
         std::end(kValueOptions);
}

bool is_switch(std::string_view option) {
  return std::find(std::begin(kSwitches), std::end(kSwitches), option) != std::end(kSwitches);
}

std::string_view base_name(std::string_view word) {
  const size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

// `-e` / `--env` with its value `setting` at `words[word]` from `from`.
ContainerEnv env_setting(std::string_view setting, size_t word, size_t from) {
  const size_t eq = setting.find('=');
  if (eq == std::string_view::npos) {
    return {word, from, std::string(setting), "$" + std::string(setting)};
  }
  return {word, from, std::string(setting.substr(0, eq)), std::string(setting.substr(eq + 1))};
}

}  // namespace

bool starts_container_run(std::span<const std::string> words, size_t at) {
  if (at < words.size() && words[at] == "sudo") ++at;
  if (at + 1 >= words.size()) return false;
  const std::string_view runner = base_name(words[at]);
  return (runner == "docker" || runner == "podman") && words[at + 1] == "run";
}

std::optional<ContainerRun> read_container_run(std::span<const std::string> words, size_t at,
                                               ContainerRunError& error) {
  if (words[at] == "sudo") ++at;
  ContainerRun run;
  // Each option's value is after its '=' (`--name=value`), attached to a one-letter option
  // (`-p8000:8000`, `-e=NAME=VALUE` as docker's flag parser reads it), or the next word.
  size_t i = at + 2;
  const auto fail = [&](size_t word, size_t from, std::string message) {
    error = {word, from, std::move(message)};
    return std::nullopt;
  };
  while (i < words.size()) {
    const std::string& w = words[i];
    if (w.empty() || w.front() != '-' || w == "-") break;  // the image
    std::string option;
    std::optional<std::string> value;
    size_t value_word = i;
    size_t value_from = 0;
    if (w.starts_with("--")) {
      const size_t eq = w.find('=');
      option = w.substr(0, eq);
      if (eq != std::string::npos) {
        value = w.substr(eq + 1);
        value_from = eq + 1;
      }
      if (is_switch(option)) {
        ++i;
        continue;
      }
      if (!takes_value(option)) {
        return fail(i, 0,
                    "'" + option +
                        "' is not a docker run option gpumem knows; it cannot tell "
                        "whether the next word is its value or the image");
      }
    } else {
      // One-letter options, grouped ("-it", "-d"): switches, then at most one taking a value
      // (the rest of the word, or the next word).
      size_t k = 1;
      while (k < w.size() && kShortSwitches.find(w[k]) != std::string_view::npos) ++k;
      if (k == w.size()) {
        ++i;
        continue;
      }
      if (kShortValued.find(w[k]) == std::string_view::npos) {
        return fail(i, k,
                    std::string("'-") + w[k] +
                        "' is not a docker run option gpumem knows; it cannot tell whether the "
                        "next word is its value or the image");
      }
      option = std::string("-") + w[k];
      if (k + 1 < w.size()) {
        value_from = w[k + 1] == '=' ? k + 2 : k + 1;
        value = w.substr(value_from);
      }
    }
    if (!value) {
      if (i + 1 >= words.size()) return fail(i, 0, "'" + option + "' expects a value");
      value = words[i + 1];
      value_word = i + 1;
      value_from = 0;
      i += 2;
    } else {
      ++i;
    }
    if (option == "-e" || option == "--env") {
      run.env.push_back(env_setting(*value, value_word, value_from));
    } else if (option == "--env-file") {
      return fail(value_word, value_from,
                  "--env-file: the variables in " + *value +
                      " are not in the command, and an engine's may change its memory; write "
                      "them with -e NAME=VALUE");
    } else if (option == "--entrypoint") {
      run.entrypoint = value_word;
    }
  }
  if (i >= words.size()) return fail(words.size() - 1, 0, "the container command names no image");
  run.image = i;
  run.command = i + 1;
  if (run.entrypoint && words[*run.entrypoint].find(' ') != std::string::npos) {
    return fail(*run.entrypoint, 0,
                "--entrypoint takes one program; write its arguments after the image");
  }
  return run;
}

std::optional<ImageRelease> image_release(std::string_view image) {
  const std::string_view untagged = image.substr(0, image.find('@'));
  const size_t slash = untagged.rfind('/');
  const size_t colon = untagged.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) {
    return std::nullopt;
  }
  size_t from = colon + 1;
  std::string_view tag = untagged.substr(from);
  if (tag.starts_with('v')) {
    tag.remove_prefix(1);
    ++from;
  }
  tag = tag.substr(0, tag.find('-'));  // "-cu124", "-rocm630": the build, not the release
  // A release is digits and dots, with an optional ".postN" (SGLang's post releases).
  const size_t post = tag.find(".post");
  const std::string_view numbers = tag.substr(0, post);
  const bool dotted = !numbers.empty() && numbers.find('.') != std::string_view::npos &&
                      std::all_of(numbers.begin(), numbers.end(),
                                  [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  const bool post_ok = post == std::string_view::npos ||
                       (tag.size() > post + 5 &&
                        std::all_of(tag.begin() + static_cast<std::ptrdiff_t>(post + 5), tag.end(),
                                    [](char c) { return c >= '0' && c <= '9'; }));
  if (!dotted || !post_ok) return std::nullopt;
  return ImageRelease{std::string(tag), from};
}

std::string image_repository(std::string_view image) {
  if (const size_t at = image.find('@'); at != std::string_view::npos) image = image.substr(0, at);
  const size_t slash = image.rfind('/');
  if (const size_t colon = image.rfind(':');
      colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    image = image.substr(0, colon);
  }
  // A first component with a dot or a port, or "localhost", is a registry.
  if (const size_t first = image.find('/'); first != std::string_view::npos) {
    const std::string_view head = image.substr(0, first);
    if (head.find('.') != std::string_view::npos || head.find(':') != std::string_view::npos ||
        head == "localhost") {
      image = image.substr(first + 1);
    }
  }
  return std::string(image);
}

}  // namespace gpumem
