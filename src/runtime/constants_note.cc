#include "runtime/constants_note.h"

namespace gpumem {

std::string uncalibrated_source(std::string_view constants_name) {
  // SimulationConstants' default name (simulate/simulate.h): nothing added.
  if (constants_name.empty() || constants_name == "published figures") {
    return "published figures only";
  }
  return std::string(constants_name);
}

std::string not_calibrated_note(std::string_view constants_name) {
  return "not calibrated: " + uncalibrated_source(constants_name) +
         ", predictions may be off by hundreds of MiB";
}

}  // namespace gpumem
