#include "cli/headroom_option.h"

#include "core/size_parse.h"

namespace gpumem::cli {

void add_min_headroom_option(CLI::App& app, std::string& text) {
  app.add_option("--min-headroom", text,
                 "count a start-up as starting only when every GPU keeps at least this much "
                 "free at its tightest step (e.g. 2GiB)");
}

std::optional<Bytes> read_min_headroom(const std::string& text, Diagnostics& diags) {
  if (text.empty()) return bytes(0);
  Result<Bytes> size = parse_size(text);
  if (!size.ok()) {
    diags.error({"--min-headroom", 0, 0}, size.status().message());
    return std::nullopt;
  }
  return *size;
}

}  // namespace gpumem::cli
