#include "probe/atomic_file.h"

namespace gpumem::probe {

Status write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value) {
  return write_file_atomically(
      path.string(), value.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace gpumem::probe
