#include "picture/chrome_trace.h"

namespace gpumem {

void ChromeTrace::add_process(int pid, const std::string& name, int sort_index) {
  events_.push_back({{"name", "process_name"},
                     {"ph", "M"},
                     {"pid", pid},
                     {"tid", 0},
                     {"ts", 0},
                     {"args", {{"name", name}}}});
  events_.push_back({{"name", "process_sort_index"},
                     {"ph", "M"},
                     {"pid", pid},
                     {"tid", 0},
                     {"ts", 0},
                     {"args", {{"sort_index", sort_index}}}});
}

void ChromeTrace::add_thread(int pid, int tid, const std::string& name) {
  events_.push_back({{"name", "thread_name"},
                     {"ph", "M"},
                     {"pid", pid},
                     {"tid", tid},
                     {"ts", 0},
                     {"args", {{"name", name}}}});
}

void ChromeTrace::add_slice(int pid, int tid, const std::string& name, std::int64_t ts_us,
                            std::int64_t dur_us, Json args) {
  events_.push_back({{"name", name},
                     {"ph", "X"},
                     {"pid", pid},
                     {"tid", tid},
                     {"ts", ts_us},
                     {"dur", dur_us},
                     {"args", std::move(args)}});
}

void ChromeTrace::add_instant(int pid, int tid, const std::string& name, std::int64_t ts_us,
                              Json args) {
  // "s": "t" scopes the mark to its thread rather than the whole process or trace.
  events_.push_back({{"name", name},
                     {"ph", "i"},
                     {"s", "t"},
                     {"pid", pid},
                     {"tid", tid},
                     {"ts", ts_us},
                     {"args", std::move(args)}});
}

void ChromeTrace::add_counter(int pid, const std::string& name, std::int64_t ts_us, double value) {
  events_.push_back({{"name", name},
                     {"ph", "C"},
                     {"pid", pid},
                     {"tid", 0},
                     {"ts", ts_us},
                     {"args", {{"MiB", value}}}});
}

void ChromeTrace::set_metadata(const std::string& key, Json value) {
  metadata_[key] = std::move(value);
}

std::string ChromeTrace::to_json() const {
  // One event per line: small enough to diff and read, still one JSON document.
  std::string out = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < events_.size(); ++i) {
    out += events_[i].dump();
    out += i + 1 < events_.size() ? ",\n" : "\n";
  }
  out += "],\n\"displayTimeUnit\": \"ms\",\n\"metadata\": " + metadata_.dump() + "}\n";
  return out;
}

}  // namespace gpumem
