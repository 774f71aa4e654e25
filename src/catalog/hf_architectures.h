// Which Hugging Face model classes (config.json `architectures[0]`) gpumem reads, as which
// family, and which the engines serve but gpumem refuses, with what their memory needs that is
// not modelled yet. hf_config.cc looks a config's class up here before reading its keys.
#ifndef GPUMEM_CATALOG_HF_ARCHITECTURES_H_
#define GPUMEM_CATALOG_HF_ARCHITECTURES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/architecture.h"

namespace gpumem {

// The family of a modelled class; nullopt for any other name.
std::optional<ArchitectureFamily> family_of(std::string_view architecture);

// Every modelled class name, for did-you-mean suggestions.
std::vector<std::string> family_architecture_names();

// For a class the engines serve but gpumem does not model: what it needs ("the per-request SSM
// state of its Mamba layers"); nullopt otherwise.
std::optional<std::string_view> unmodelled_need(std::string_view architecture);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_ARCHITECTURES_H_
