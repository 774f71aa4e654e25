#include "sweep/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/comment_text.h"
#include "runtime/constants_note.h"

namespace gpumem::sweep {
namespace {

std::string_view status_name(PointStatus s) {
  switch (s) {
    case PointStatus::kFits:
      return "yes";
    case PointStatus::kTight:
      return "tight";
    case PointStatus::kFails:
      return "no";
    case PointStatus::kInvalid:
      return "invalid";
  }
  return "invalid";
}

std::string note(const PointResult& r) {
  if (r.status == PointStatus::kFails) {
    return std::string(r.failed_outcome == StepOutcome::kOutOfMemory ? "out of memory: "
                                                                     : "error: ") +
           r.reason;
  }
  return r.reason;
}

std::string failure(const PointResult& r) {
  if (r.status != PointStatus::kFails) return "-";
  return r.failed_step + ", GPU " + std::to_string(r.failed_gpu);
}

std::string optional_count(const std::optional<std::int64_t>& v) {
  return v ? format_count(*v) : "-";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The JSON text of one point, indented to sit in the top-level "points" array.
std::string json_point(const Grid& grid, size_t p, const PointResult& r) {
  using nlohmann::ordered_json;
  ordered_json point;
  point["index"] = p;
  ordered_json values = ordered_json::object();
  for (size_t a = 0; a < grid.axes().size(); ++a) values[grid.axes()[a].key] = grid.value(p, a);
  point["values"] = std::move(values);
  point["status"] = r.status == PointStatus::kFits    ? "fits"
                    : r.status == PointStatus::kTight ? "tight"
                    : r.status == PointStatus::kFails ? "fails"
                                                      : "invalid";
  if (r.status == PointStatus::kFails) {
    point["failed_step"] = r.failed_step;
    point["failed_gpu"] = r.failed_gpu;
    point["outcome"] = outcome_name(r.failed_outcome);
  }
  if (!r.reason.empty()) point["reason"] = r.reason;
  if (r.kv_tokens) point["kv_tokens"] = *r.kv_tokens;
  if (r.kv_tokens_total) point["kv_tokens_total"] = *r.kv_tokens_total;
  if (r.status != PointStatus::kInvalid) {
    point["replicas"] = r.replicas;
    point["calibration"] = r.calibrated ? ordered_json(r.calibration) : ordered_json(nullptr);
  }
  if (r.max_running_requests) point["max_running_requests"] = *r.max_running_requests;
  if (r.min_headroom) point["min_headroom_bytes"] = r.min_headroom->value();
  std::string text = "    ";
  for (char c : point.dump(2)) text += c == '\n' ? std::string("\n    ") : std::string(1, c);
  return text;
}

// The members of a JSON object as dump(2) writes them at the top level, without its braces.
std::string json_members(const nlohmann::ordered_json& object) {
  const std::string text = object.dump(2);
  return text.substr(2, text.size() - 4);  // "{\n" ... "\n}"
}

// Cells of a table row in the spill file: separated by the unit separator, one row a line;
// control characters in a cell are shown as '?' (core/comment_text.h), so neither occurs in one.
constexpr char kCellSeparator = '\x1f';

class TableWriter final : public SweepWriter {
 public:
  TableWriter(SweepHeading heading, TextOut out, std::FILE* spill)
      : SweepWriter(std::move(heading), std::move(out)), spill_(spill) {
    for (const Axis& a : heading_.grid->axes()) header_.push_back(a.key);
    for (const char* h :
         {"fits", "first failure", "kv tokens", "total kv tokens", "max running", "min headroom"}) {
      header_.emplace_back(h);
    }
    for (const std::string& h : header_) width_.push_back(h.size());
  }
  ~TableWriter() override { std::fclose(spill_); }

  Status row(size_t p, const PointResult& r) override {
    note_calibration(r);
    const Grid& grid = *heading_.grid;
    std::vector<std::string> cells;
    for (size_t a = 0; a < grid.axes().size(); ++a) cells.push_back(comment_text(grid.value(p, a)));
    cells.emplace_back(status_name(r.status));
    cells.push_back(comment_text(failure(r)));
    cells.push_back(optional_count(r.kv_tokens));
    cells.push_back(optional_count(r.kv_tokens_total));
    cells.push_back(optional_count(r.max_running_requests));
    cells.push_back(r.min_headroom ? format_mib(*r.min_headroom) : "-");
    cells.push_back(comment_text(note(r)));
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c < width_.size()) width_[c] = std::max(width_[c], cells[c].size());
      line += cells[c];
      line += c + 1 < cells.size() ? kCellSeparator : '\n';
    }
    if (std::fwrite(line.data(), 1, line.size(), spill_) != line.size()) {
      return io_error(std::string("the table's temporary file: ") + std::strerror(errno));
    }
    return {};
  }

  Status finish() override {
    std::string text = fmt::format("scenario  {}: {}\n", heading_.scenario, summary_line());
    for (const std::string& c : calibrations_) text += "          " + c + "\n";
    text += "\n";
    std::vector<std::string> head = header_;
    head.emplace_back("note");
    text += line(head);
    GPUMEM_RETURN_IF_ERROR(out_(text));
    if (std::fflush(spill_) != 0 || std::fseek(spill_, 0, SEEK_SET) != 0) {
      return io_error(std::string("the table's temporary file: ") + std::strerror(errno));
    }
    char* buffer = nullptr;
    size_t capacity = 0;
    std::vector<std::string> cells;
    Status status;
    for (ssize_t n; status.ok() && (n = ::getline(&buffer, &capacity, spill_)) > 0;) {
      cells.clear();
      std::string_view rest(buffer, static_cast<size_t>(n) - 1);  // without its newline
      for (size_t at; (at = rest.find(kCellSeparator)) != std::string_view::npos;) {
        cells.emplace_back(rest.substr(0, at));
        rest.remove_prefix(at + 1);
      }
      cells.emplace_back(rest);
      status = out_(line(cells));
    }
    std::free(buffer);
    return status;
  }

 private:
  // Values and words align left, the three numbers right.
  std::string line(const std::vector<std::string>& row) const {
    const size_t axes = heading_.grid->axes().size();
    std::string out;
    for (size_t c = 0; c < header_.size(); ++c) {
      const bool number = c >= axes + 2;
      out += number ? fmt::format("{:>{}}  ", row[c], width_[c])
                    : fmt::format("{:<{}}  ", row[c], width_[c]);
    }
    if (row.size() > header_.size()) out += row.back();
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  }

  std::FILE* spill_;
  std::vector<std::string> header_;
  std::vector<size_t> width_;
};

class CsvWriter final : public SweepWriter {
 public:
  CsvWriter(SweepHeading heading, TextOut out) : SweepWriter(std::move(heading), std::move(out)) {}

  Status row(size_t p, const PointResult& r) override {
    GPUMEM_RETURN_IF_ERROR(start());
    const Grid& grid = *heading_.grid;
    std::string out;
    for (size_t a = 0; a < grid.axes().size(); ++a) out += csv_field(grid.value(p, a)) + ",";
    const bool fails = r.status == PointStatus::kFails;
    const auto number = [](const std::optional<std::int64_t>& v) {
      return v ? std::to_string(*v) : std::string();
    };
    const bool simulated = r.status != PointStatus::kInvalid;
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{}\n", status_name(r.status), fails ? r.failed_step : "",
        fails ? std::to_string(r.failed_gpu) : "", number(r.kv_tokens), number(r.kv_tokens_total),
        simulated ? std::to_string(r.replicas) : "", number(r.max_running_requests),
        r.min_headroom ? std::to_string(r.min_headroom->value()) : "",
        csv_field(simulated ? (r.calibrated ? r.calibration : "none") : ""), csv_field(note(r)));
    return out_(out);
  }

  Status finish() override { return start(); }

 private:
  Status start() {
    if (started_) return {};
    started_ = true;
    std::string out;
    for (const Axis& a : heading_.grid->axes()) out += csv_field(a.key) + ",";
    out +=
        "fits,failed_step,failed_gpu,kv_tokens,kv_tokens_total,replicas,max_running_requests,"
        "min_headroom_bytes,calibration,note\n";
    return out_(out);
  }

  bool started_ = false;
};

class JsonWriter final : public SweepWriter {
 public:
  JsonWriter(SweepHeading heading, TextOut out) : SweepWriter(std::move(heading), std::move(out)) {}

  Status row(size_t p, const PointResult& r) override {
    note_calibration(r);
    GPUMEM_RETURN_IF_ERROR(start());
    GPUMEM_RETURN_IF_ERROR(out_(rows_ == 0 ? "[\n" : ",\n"));
    ++rows_;
    return out_(json_point(*heading_.grid, p, r));
  }

  Status finish() override {
    GPUMEM_RETURN_IF_ERROR(start());
    nlohmann::ordered_json tail;
    tail["starting_points"] = fitting_;
    tail["calibration"] = calibrations_;
    return out_((rows_ == 0 ? "[],\n" : "\n  ],\n") + json_members(tail) + "\n}\n");
  }

 private:
  Status start() {
    if (started_) return {};
    started_ = true;
    nlohmann::ordered_json head;
    head["schema"] = "gpumem.sweep/1";
    head["scenario"] = heading_.scenario;
    head["axes"] = nlohmann::ordered_json::array();
    for (const Axis& a : heading_.grid->axes()) head["axes"].push_back(a.key);
    head["grid_points"] = heading_.grid->size();
    if (!heading_.best_by.empty()) head["best_by"] = heading_.best_by;
    head["min_headroom_bytes"] = heading_.min_headroom.value();
    return out_("{\n" + json_members(head) + ",\n  \"points\": ");
  }

  bool started_ = false;
  size_t rows_ = 0;
};

}  // namespace

SweepWriter::SweepWriter(SweepHeading heading, TextOut out)
    : heading_(std::move(heading)), out_(std::move(out)) {}

void SweepWriter::count(const PointResult& r) {
  ++counted_;
  fitting_ += r.status == PointStatus::kFits ? 1 : 0;
}

std::string SweepWriter::summary_line() const {
  const std::string safely =
      heading_.min_headroom.value() > 0
          ? " with " + format_mib(heading_.min_headroom) + " free at every step"
          : "";
  if (!heading_.best_by.empty()) {
    return fmt::format("{} among the {} of {} points that start{}", heading_.best_by, fitting_,
                       counted_, safely);
  }
  return fmt::format("{} points, {} start{}", counted_, fitting_, safely);
}

void SweepWriter::note_calibration(const PointResult& r) {
  if (r.status == PointStatus::kInvalid) return;
  std::string line =
      r.calibrated ? "predicted with " + r.calibration : not_calibrated_note(r.calibration);
  if (std::find(calibrations_.begin(), calibrations_.end(), line) == calibrations_.end()) {
    calibrations_.push_back(std::move(line));
  }
}

Result<std::unique_ptr<SweepWriter>> sweep_writer(std::string_view format, SweepHeading heading,
                                                  TextOut out) {
  if (format == "csv")
    return std::unique_ptr<SweepWriter>(new CsvWriter(std::move(heading), std::move(out)));
  if (format == "json")
    return std::unique_ptr<SweepWriter>(new JsonWriter(std::move(heading), std::move(out)));
  std::FILE* spill = std::tmpfile();
  if (spill == nullptr) {
    return io_error(std::string("cannot make the table's temporary file: ") + std::strerror(errno));
  }
  return std::unique_ptr<SweepWriter>(new TableWriter(std::move(heading), std::move(out), spill));
}

}  // namespace gpumem::sweep
