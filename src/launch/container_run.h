// `docker run` and `podman run` in front of an engine's command, as users paste them: the
// container options are read and set aside, the `-e NAME=VALUE` ones kept as the engine's
// environment, and what follows the image is the command the container runs — the image's
// own entrypoint's arguments (vllm/vllm-openai: ENTRYPOINT ["vllm", "serve"]), or, for an
// image without a serving entrypoint (lmsysorg/sglang), the engine's command itself.
//
// The options are those of `docker container run` (docs.docker.com/reference/cli/docker/
// container/run, the same for podman's common subset): which take a value is a table here,
// because a value would otherwise be read as the image. None changes what a GPU holds: the
// GPUs the container sees (`--gpus`) are the engine's to use as its parallel sizes say, and
// shared memory, IPC namespace, ports, volumes and limits are the host's. An option not in the
// table is refused by name, never guessed.
#ifndef GPUMEM_LAUNCH_CONTAINER_RUN_H_
#define GPUMEM_LAUNCH_CONTAINER_RUN_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpumem {

// An `-e`/`--env` setting: `words[word]` from character `from` is NAME=VALUE; `-e NAME` alone
// passes the host's value, which the command does not show, and reads as NAME=$NAME.
struct ContainerEnv {
  size_t word = 0;
  size_t from = 0;
  std::string name;
  std::string value;
};

struct ContainerRun {
  size_t image = 0;                  // the image's word
  size_t command = 0;                // the first word after the image
  std::optional<size_t> entrypoint;  // the word --entrypoint gives
  std::vector<ContainerEnv> env;
};

// Where a container command cannot be read: the word (and character in it) and why.
struct ContainerRunError {
  size_t word = 0;
  size_t from = 0;
  std::string message;
};

// True when `words` from `at` start a container run: [sudo] docker|podman run.
bool starts_container_run(std::span<const std::string> words, size_t at);

// Reads the run's options from `at` (the container runner's word) to the image.
std::optional<ContainerRun> read_container_run(std::span<const std::string> words, size_t at,
                                               ContainerRunError& error);

// The image's repository without registry, tag or digest: "docker.io/vllm/vllm-openai:v0.10.1"
// -> "vllm/vllm-openai".
std::string image_repository(std::string_view image);

// The engine release an image's tag names, and where it starts in `image`: both engines tag
// their images by release ("vllm/vllm-openai:v0.10.1", "lmsysorg/sglang:v0.4.6.post1-cu124":
// "0.10.1", "0.4.6.post1"); nullopt for a tag that names none ("latest", "nightly", a digest).
struct ImageRelease {
  std::string version;
  size_t from = 0;
};
std::optional<ImageRelease> image_release(std::string_view image);

}  // namespace gpumem

#endif  // GPUMEM_LAUNCH_CONTAINER_RUN_H_
