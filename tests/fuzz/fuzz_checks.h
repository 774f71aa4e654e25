// Properties every fuzz target checks beyond "no crash, no UB, no leak": what the readers
// promise about their errors and their results. A broken promise aborts, which libFuzzer
// reports as a crash with the input that caused it.
#ifndef GPUMEM_TESTS_FUZZ_FUZZ_CHECKS_H_
#define GPUMEM_TESTS_FUZZ_FUZZ_CHECKS_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "catalog/architecture.h"
#include "core/diagnostics.h"

namespace gpumem::fuzz {

inline void require(bool holds, std::string_view promise, std::string_view detail = {}) {
  if (holds) return;
  std::fprintf(stderr, "broken promise: %.*s\n%.*s\n", static_cast<int>(promise.size()),
               promise.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Every error about an input names the file it is about: `file:line:col: message`, or
// `file: message` when it is about the whole file.
inline void require_located(const Diagnostics& diags, std::string_view file) {
  for (const Diagnostic& d : diags.errors()) {
    const std::string text = d.to_string();
    require(text.starts_with(std::string(file) + ":") && text.size() > file.size() + 2,
            "an error starts with its file", text);
  }
}

// The invariants architecture.h states for a successfully read model.
inline void require_valid_architecture(const Architecture& a) {
  require(a.hidden_size > 0 && a.num_hidden_layers > 0 && a.num_attention_heads > 0 &&
              a.num_key_value_heads > 0 && a.vocab_size > 0,
          "a read architecture has positive counts");
  require(a.num_attention_heads % a.num_key_value_heads == 0,
          "attention heads are a multiple of KV heads");
  require(a.head_dim > 0, "head_dim is known");
  require(a.layer_types.size() == static_cast<size_t>(a.num_hidden_layers),
          "layer_types has one entry per layer");
}

}  // namespace gpumem::fuzz

#endif  // GPUMEM_TESTS_FUZZ_FUZZ_CHECKS_H_
