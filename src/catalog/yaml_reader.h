// Strict, located reading of YAML documents (scenarios, catalog entries, calibration).
//
// yaml-cpp gives a tree with marks; this layer adds the rules every gpumem input follows:
// a mapping's keys must all be known (unknown ones are reported with a did-you-mean), a key
// may appear once, every value has the type its schema says, sizes carry a unit, and each
// error is recorded as `file:line:col: message` in a Diagnostics instead of being thrown.
// Readers keep going after an error so one pass reports every problem of a file.
#ifndef GPUMEM_CATALOG_YAML_READER_H_
#define GPUMEM_CATALOG_YAML_READER_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/atomic_file.h"
#include "core/diagnostics.h"
#include "core/status.h"
#include "core/units.h"

namespace gpumem {

// A parsed YAML file plus where its errors go.
struct YamlDocument {
  std::string file;  // as given by the user; used in every message
  YAML::Node root;
};

// The diagnostic of a document yaml-cpp could not parse, at the place it stopped. Its
// message may quote a byte of the input; control bytes are written as \xNN so that binary
// junk cannot cut or garble the message. Nesting beyond yaml-cpp's depth guard is said as
// such (yaml-cpp itself calls it "bad file").
Diagnostic yaml_syntax_error(const std::string& file, const YAML::Exception& e);
// Parses `text` as one YAML document; a syntax error, or a second document (which would
// otherwise be silently ignored), becomes one diagnostic and an empty Result.
Result<YamlDocument> parse_yaml(std::string file, const std::string& text);
// Reads (within its kind's size cap) and parses a file; a missing or unreadable file is a
// diagnostic too.
Result<YamlDocument> load_yaml_file(const std::string& path, InputKind kind);

// Where `node` starts, as a 1-based location in `file`.
SourceLoc location(const std::string& file, const YAML::Node& node);
// How a node reads in a message: "nothing", "a list", "a mapping" or its quoted text.
std::string describe(const YAML::Node& node);

// A cursor over one YAML mapping that knows which keys its schema accepts.
//
// Each typed getter declares its key as known, checks presence and type, and records any
// error in `diags`. `finish()` then reports keys that no getter asked for. Getters return
// nullopt when the key is absent or wrong; `required` keys report their absence.
class MapReader {
 public:
  MapReader(const std::string& file, const YAML::Node& node, std::string what, Diagnostics& diags);

  bool valid() const { return valid_; }  // false when the node is not a mapping
  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  Diagnostics& diags() { return diags_; }

  // Declares `key` as known and returns its value node (undefined when absent).
  YAML::Node child(std::string_view key, bool required = false);

  std::optional<std::string> string(std::string_view key, bool required = false);
  std::optional<std::int64_t> integer(std::string_view key, bool required = false);
  std::optional<double> number(std::string_view key, bool required = false);
  std::optional<bool> boolean(std::string_view key, bool required = false);
  std::optional<Bytes> size(std::string_view key, bool required = false);

  // Reports unknown and duplicate keys. Call once, after all getters.
  void finish();

  // Error at `node` (or at this mapping when `node` is undefined).
  void error(const YAML::Node& node, const std::string& message);

 private:
  std::string file_;
  YAML::Node node_;
  std::string what_;
  Diagnostics& diags_;
  std::vector<std::string> known_;
  std::vector<std::pair<std::string, YAML::Node>> entries_;  // the scalar keys, in order
  bool valid_ = true;
};

// Scalar conversions shared by MapReader and by readers of sequences and flag values.
// Each returns nullopt and records "<what> must be …, got '…'" at `node` on failure.
std::optional<std::int64_t> scalar_integer(const std::string& file, const YAML::Node& node,
                                           const std::string& what, Diagnostics& diags);
std::optional<double> scalar_number(const std::string& file, const YAML::Node& node,
                                    const std::string& what, Diagnostics& diags);
std::optional<bool> scalar_boolean(const std::string& file, const YAML::Node& node,
                                   const std::string& what, Diagnostics& diags);
std::optional<Bytes> scalar_size(const std::string& file, const YAML::Node& node,
                                 const std::string& what, Diagnostics& diags);
std::optional<std::string> scalar_string(const std::string& file, const YAML::Node& node,
                                         const std::string& what, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_YAML_READER_H_
