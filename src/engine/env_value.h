// How the engines read an environment variable's text: an integer, or a boolean written as
// an integer ("0"/"1", as NCCL reads it) or as true/false (sglang v0.5.9 environ.py EnvBool,
// vllm envs.py). Nothing else is accepted, so a typo in a value is reported, not ignored.
#ifndef GPUMEM_ENGINE_ENV_VALUE_H_
#define GPUMEM_ENGINE_ENV_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>

namespace gpumem {

std::optional<std::int64_t> env_int(const std::string& text);
std::optional<bool> env_bool(const std::string& text);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ENV_VALUE_H_
