// --disable-hybrid-kv-cache-manager: vLLM unifies the KV specs of every layer when it is set
// (v1/core/kv_cache_utils.py unify_hybrid_kv_cache_specs). A model whose layers all keep one
// kind of KV cache is laid out the same either way; one with sliding-window or other layers
// is refused by name, never answered as if the flag changed nothing.
#include <gtest/gtest.h>

#include "catalog/scenario.h"
#include "runtime/fact_ids.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

std::optional<Ledger> run(const std::string& model, const std::string& args, Diagnostics& diags) {
  const std::string text =
      "hardware: {gpu: h200, count: 1}\nengine:\n  name: vllm\n  version: 0.30.0\n  args:\n"
      "    --max-model-len: 8192\n" +
      args + "model: " + model + "\n";
  std::optional<Scenario> s = parse_scenario("h.yaml", text, test_catalogs().gpus, diags);
  if (!s || !diags.empty()) return std::nullopt;
  return simulate_scenario(*s, SimulationInputs{test_catalogs().gpus, test_catalogs().models, {}},
                           diags);
}

Bytes kv_bytes(const std::string& model, const std::string& args) {
  Diagnostics diags;
  const std::optional<Ledger> l = run(model, args, diags);
  EXPECT_TRUE(l && diags.empty()) << diags.to_string();
  if (!l) return Bytes{};
  const Fact* f = l->gpus.front().fact(fact_id::kKvBytes);
  EXPECT_NE(f, nullptr);
  return f == nullptr ? Bytes{} : std::get<Bytes>(f->value);
}

TEST(VllmHybridKvManager, OneKindOfLayerIsLaidOutTheSame) {
  const Bytes with =
      kv_bytes("llama-3.1-8b-instruct", "    --disable-hybrid-kv-cache-manager: true\n");
  EXPECT_GT(with.value(), 0);
  EXPECT_EQ(with, kv_bytes("llama-3.1-8b-instruct", ""));
}

TEST(VllmHybridKvManager, SlidingWindowLayersAreRefused) {
  Diagnostics diags;
  EXPECT_FALSE(run("gpt-oss-20b", "    --disable-hybrid-kv-cache-manager: true\n", diags));
  EXPECT_EQ(diags.to_string(),
            "h.yaml:7:40: --disable-hybrid-kv-cache-manager with GptOssForCausalLM is not "
            "modelled: its layers keep KV caches of different kinds (sliding-window, recurrent "
            "state or other shapes), which vLLM then gives full-length KV or refuses\n");
}

}  // namespace
}  // namespace gpumem
