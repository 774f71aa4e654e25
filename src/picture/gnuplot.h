// Drawing a memory map (memory_map.h) with gnuplot, the plotting program Debian packages as
// gnuplot-nox: one stacked bar per GPU coloured by category, the free memory on top, the
// capacity as a dashed line, and a GPU that ran out of memory marked with the request that
// did not fit (hatched, reaching past the capacity line) and the step's name.
//
// gnuplot runs as a child process reading a generated script and writing the picture to its
// standard output; the picture is then written atomically (core/atomic_file.h), so a failure
// leaves no partial file.
#ifndef GPUMEM_PICTURE_GNUPLOT_H_
#define GPUMEM_PICTURE_GNUPLOT_H_

#include <string>

#include "core/status.h"
#include "picture/memory_map.h"

namespace gpumem {

enum class PictureFormat { kSvg, kPng };

// The picture format a file name asks for (.svg or .png); kInvalidInput otherwise.
Result<PictureFormat> picture_format_for(const std::string& path);

// The gnuplot script that draws `map` to standard output.
std::string memory_map_script(const MemoryMap& map, PictureFormat format);

// Draws `map` into `path` (format by its extension).
Status draw_memory_map(const MemoryMap& map, const std::string& path);

}  // namespace gpumem

#endif  // GPUMEM_PICTURE_GNUPLOT_H_
