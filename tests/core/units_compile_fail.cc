// Compiled by two ctest entries (see tests/CMakeLists.txt): as is, it must compile; with
// GPUMEM_SUBTRACT_BYTES_FROM_GIB it must not, because a float GiB value minus a byte count
// is the unit bug gpumem exists to make impossible.
#include "core/units.h"

namespace gpumem {

EngineGiB subtract() {
  EngineGiB free_gib = engine_gib(93.0);
  Bytes weights = bytes(17'640'734'720);
#ifdef GPUMEM_SUBTRACT_BYTES_FROM_GIB
  return free_gib - weights;
#else
  return free_gib - to_engine_gib(weights);
#endif
}

}  // namespace gpumem
