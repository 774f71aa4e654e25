// fmt's compiled half, built into gpumem-probe.
//
// gpumem's libraries call fmt's non-inline functions (fmt::vformat and the like), which
// Debian ships only in the shared libfmt.so.9 — absent on the GPU machines the probe is
// carried to. Including fmt's implementation header in a translation unit built without
// FMT_HEADER_ONLY defines those functions here, so the binary needs no libfmt at run time
// (the link uses --as-needed and drops it). The two instantiations below are the ones
// fmt 9's format.h declares `extern template` for char, whose definitions fmt keeps in its
// own library source.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl<char>(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
