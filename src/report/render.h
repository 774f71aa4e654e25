// Human-readable renderings of a ledger: a terminal table and a Markdown document (the
// golden reports under reports/scenarios are the Markdown form). Both show GPUs with
// identical steps once, every step's change, free memory after it and its peak, the
// engine's facts and log lines, and the verdict. Deterministic: no timestamps.
#ifndef GPUMEM_REPORT_RENDER_H_
#define GPUMEM_REPORT_RENDER_H_

#include <string>

#include "runtime/ledger.h"

namespace gpumem {

struct RenderOptions {
  int only_gpu = -1;  // global rank to show, or -1 for all
};

std::string render_table(const Ledger& ledger, const RenderOptions& options = {});
std::string render_markdown(const Ledger& ledger, const RenderOptions& options = {});

// A fact's value as text: bytes as "17,640,734,720 B (16,823.00 MiB)", floats as Python
// prints them, lists as "[1, 2, 4]".
std::string format_fact(const Fact& fact);

}  // namespace gpumem

#endif  // GPUMEM_REPORT_RENDER_H_
