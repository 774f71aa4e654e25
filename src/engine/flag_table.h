// Reading an engine's command-line flags, as written in a scenario, into typed values.
//
// Each engine model declares the flags it knows in a table: name, aliases, value type, and
// whether the flag changes memory (modelled) or not (accepted so users can paste their real
// command line, and ignored). A flag the engine has whose memory effect gpumem does not model
// is in the table too, with the reason, and refused naming it: a pasted command is never
// simulated without one of its flags. A flag not in the table is an error with a
// did-you-mean; a value of the wrong type is an error at the value's location.
//
// Flags are matched as the engines' argparse parsers match them: the name or an alias
// (`-tp`), else an unambiguous prefix of a long name (`--tensor-parallel` for
// `--tensor-parallel-size`; argparse's allow_abbrev, on in both engines), an ambiguous one
// being an error naming the candidates. A boolean given bare (`--enforce-eager`, from a
// launch command) is true; `--no-X` is X false (argparse.BooleanOptionalAction).
#ifndef GPUMEM_ENGINE_FLAG_TABLE_H_
#define GPUMEM_ENGINE_FLAG_TABLE_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "core/status.h"

namespace gpumem {

// kByteCount: an integer number of bytes (read like kInt, with a wider range). kList: one or
// more words of any kind (argparse nargs '+' or '*' of strings or numbers), which gpumem keeps
// as text and never reads: only flags without a modelled memory effect have it.
enum class FlagType { kInt, kByteCount, kFloat, kBool, kString, kIntList, kList };

struct FlagSpec {
  std::string_view name;  // canonical spelling, with dashes
  std::vector<std::string_view> aliases;
  FlagType type;
  bool affects_memory;
  std::vector<std::string_view> choices;  // allowed strings for kString; empty: any
  // kInt read as vLLM's human_readable_int: "32k" = 32,000, "32K" = 32,768 (vllm
  // engine/arg_utils.py human_readable_int; k m g t decimal, K M G T binary).
  bool human_readable = false;
  // Non-empty: the engine has the flag and it changes start-up memory in a way gpumem does not
  // model; set (a boolean true, any other value) it is refused with this reason.
  std::string_view not_modelled = {};
  // The engine's own value for "this feature off" (SGLang's --moe-a2a-backend none), read
  // like false: only that flag's, since "none" is a real value of others (a LoRA path).
  std::string_view off_value = {};
  // kInt read as vLLM's human_readable_int_or_auto: "auto" (any case) is -1.
  bool auto_is_minus_one = false;
};

// A flag the engine has whose start-up memory effect gpumem does not model: set to anything
// but `default_value` (and false, and "auto"), it is refused with `why`.
FlagSpec refused_flag(std::string_view name, FlagType type, std::string_view why,
                      std::string_view default_value = {},
                      std::vector<std::string_view> aliases = {});

// The tables one after another (an engine's modelled flags, then its newest release's
// others), as one table.
std::vector<FlagSpec> joined_tables(std::initializer_list<std::span<const FlagSpec>> tables);

// Typed values of the flags a scenario gives, keyed by canonical name.
class FlagValues {
 public:
  std::optional<std::int64_t> integer(std::string_view flag) const;
  std::optional<double> number(std::string_view flag) const;
  bool boolean(std::string_view flag) const;  // absent = false, as store_true flags
  std::optional<std::string> string(std::string_view flag) const;
  std::optional<std::vector<std::int64_t>> int_list(std::string_view flag) const;
  // Where the flag was written (for errors found later, e.g. against the model).
  std::optional<SourceLoc> location(std::string_view flag) const;

  struct Entry {
    std::string_view name;
    FlagType type;
    std::vector<std::int64_t> ints;
    double number = 0;
    bool flag = false;
    std::string text;
    SourceLoc loc;
  };
  std::vector<Entry> entries;

 private:
  const Entry* find(std::string_view flag) const;
};

// A positive integer flag (1 to 4096, counts of GPUs, stages, slots), or `fallback` when it is
// absent or wrong; the error names the flag as the engine spells it.
int positive_flag(const FlagValues& v, std::string_view flag, int fallback, Diagnostics& diags);

// A positive integer flag of any size, or nothing when it is absent or wrong.
std::optional<std::int64_t> positive_flag_opt(const FlagValues& v, std::string_view flag,
                                              Diagnostics& diags);

// The entry of `table` whose name or one of whose aliases is `flag`; null when none is.
const FlagSpec* find_flag(std::string_view flag, std::span<const FlagSpec> table);

// As argparse finds it: exactly (name or alias), else the one long name or alias that
// `flag` is a prefix of. kNotFound with a did-you-mean; kInvalidInput when ambiguous
// ("ambiguous option: --max could match --max-model-len, --max-num-seqs").
Result<const FlagSpec*> match_flag(std::string_view flag, std::span<const FlagSpec> table,
                                   std::string_view engine_name);

// The args of `args` that `table` matches to a flag named in `names`: a reading of only the
// flags that set a launch's parallel layout, which a problem in another flag must not hide.
std::vector<EngineArg> args_naming(std::span<const EngineArg> args, std::span<const FlagSpec> table,
                                   std::span<const std::string_view> names);

// Reads `args` against `table`; every problem goes to `diags`.
FlagValues read_flags(std::span<const EngineArg> args, std::span<const FlagSpec> table,
                      std::string_view engine_name, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_FLAG_TABLE_H_
