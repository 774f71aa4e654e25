// What the weight tests share: architectures from the bundled catalog (model/llm) and
// tensors looked up by name.
#ifndef GPUMEM_TESTS_SUPPORT_WEIGHT_TEST_MODELS_H_
#define GPUMEM_TESTS_SUPPORT_WEIGHT_TEST_MODELS_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_catalogs.h"
#include "weights/weight_tensor.h"

namespace gpumem::weight_tests {

// The architecture of catalog entry `slug` (a failed lookup fails the test).
inline Architecture model(const std::string& slug) {
  Diagnostics diags;
  Result<ModelEntry> entry = test_catalogs().models.find(slug, diags);
  EXPECT_TRUE(entry.ok()) << entry.status().message();
  return entry->architecture;
}

// The tensor named `name`, or null.
inline const WeightTensor* find(const std::vector<WeightTensor>& ts, const std::string& name) {
  for (const WeightTensor& t : ts) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// The bytes of the tensor named `name` (-1, and a failure, when there is none).
inline std::int64_t bytes_of(const std::vector<WeightTensor>& ts, const std::string& name) {
  const WeightTensor* t = find(ts, name);
  EXPECT_NE(t, nullptr) << name;
  return t ? t->bytes.value() : -1;
}

// Whether the tensor named `name` stays allocated after loading.
inline bool resident(const std::vector<WeightTensor>& ts, const std::string& name) {
  const WeightTensor* t = find(ts, name);
  EXPECT_NE(t, nullptr) << name;
  return t != nullptr && t->released_after == kResident;
}

}  // namespace gpumem::weight_tests

#endif  // GPUMEM_TESTS_SUPPORT_WEIGHT_TEST_MODELS_H_
