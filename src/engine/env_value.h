// Reading one environment variable of a scenario as the engines and NCCL read it: a boolean
// written as an integer ("0"/"1", as NCCL reads it) or as true/false (sglang v0.5.9
// environ.py EnvBool, vllm envs.py), a count in a range, or a byte size. Nothing else is
// accepted: a bad value is an error at the value ("NAME must be 0 or 1, got 'yes'"), never a
// silent default.
#ifndef GPUMEM_ENGINE_ENV_VALUE_H_
#define GPUMEM_ENGINE_ENV_VALUE_H_

#include <optional>
#include <string>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "core/units.h"

namespace gpumem {

class EnvValueReader {
 public:
  EnvValueReader(const EnvVar& var, Diagnostics& diags) : var_(var), diags_(diags) {}

  // Each sets `out` when the value is valid and reports an error otherwise.
  void as_bool(std::optional<bool>& out) const;
  void as_count(std::optional<int>& out, int lowest, int highest) const;
  void as_bytes(std::optional<Bytes>& out) const;

  // Reports the value as not what `expected` describes.
  void bad(const std::string& expected) const;

 private:
  const EnvVar& var_;
  Diagnostics& diags_;
};

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ENV_VALUE_H_
