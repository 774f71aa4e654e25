// A writer of Chrome Trace Event JSON, the format Perfetto UI and chrome://tracing open
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
// processes and threads named by metadata events, complete-duration slices ("X"), instant
// events ("i") and counters ("C").
//
// Timestamps are whole microseconds, so the output is deterministic to the byte. Events are
// written in the order they were added; callers add each process's events in time order,
// which keeps every track's timestamps monotonic.
#ifndef GPUMEM_PICTURE_CHROME_TRACE_H_
#define GPUMEM_PICTURE_CHROME_TRACE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace gpumem {

class ChromeTrace {
 public:
  using Json = nlohmann::ordered_json;

  // Names process `pid`; viewers order processes by `sort_index`.
  void add_process(int pid, const std::string& name, int sort_index);
  void add_thread(int pid, int tid, const std::string& name);
  // A slice from `ts_us` lasting `dur_us` on thread `tid` of process `pid`.
  void add_slice(int pid, int tid, const std::string& name, std::int64_t ts_us, std::int64_t dur_us,
                 Json args);
  // A mark at one instant, drawn on its thread.
  void add_instant(int pid, int tid, const std::string& name, std::int64_t ts_us, Json args);
  // A sample of counter `name` of process `pid`: one track per counter name, holding `value`
  // until the next sample.
  void add_counter(int pid, const std::string& name, std::int64_t ts_us, double value);
  // Trace-wide metadata, shown by Perfetto in its info page.
  void set_metadata(const std::string& key, Json value);

  // The whole trace: {"traceEvents": [...], "displayTimeUnit": "ms", "metadata": {...}}.
  std::string to_json() const;

 private:
  Json events_ = Json::array();
  Json metadata_ = Json::object();
};

}  // namespace gpumem

#endif  // GPUMEM_PICTURE_CHROME_TRACE_H_
