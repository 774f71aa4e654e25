#include "explain/log_line.h"

#include <array>
#include <cctype>
#include <charconv>

namespace gpumem {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool digits_at(std::string_view s, size_t pos, size_t count) {
  if (pos + count > s.size()) return false;
  for (size_t i = pos; i < pos + count; ++i) {
    if (!is_digit(s[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The number right after `key` in `text` ("TP3" with key "TP"), if `key` starts a word or
// follows an underscore ("Worker_TP0").
std::optional<int> labelled_number(std::string_view text, std::string_view key) {
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    const bool starts_word = at == 0 || text[at - 1] == ' ' || text[at - 1] == '_';
    const size_t p = at + key.size();
    if (!starts_word || p >= text.size() || !is_digit(text[p])) continue;
    int value = 0;
    std::from_chars(text.data() + p, text.data() + text.size(), value);
    return value;
  }
  return std::nullopt;
}

// HH:MM:SS with optional ",mmm" or ".mmm"; the position after it, or npos.
size_t match_time(std::string_view s, size_t p) {
  if (!digits_at(s, p, 2) || p + 8 > s.size() || s[p + 2] != ':' || !digits_at(s, p + 3, 2) ||
      s[p + 5] != ':' || !digits_at(s, p + 6, 2)) {
    return std::string_view::npos;
  }
  p += 8;
  if (p < s.size() && (s[p] == '.' || s[p] == ',')) {
    ++p;
    while (p < s.size() && is_digit(s[p])) ++p;
  }
  return p;
}

// SGLang's 2024 releases: "[23:17:01 TP7] ", the time and a rank label, no date. A bare
// "[23:17:01]" is many loggers' frame and says nothing of the engine: not one.
size_t match_dateless_sglang_frame(std::string_view s, size_t pos, std::string& labels) {
  if (pos >= s.size() || s[pos] != '[') return std::string_view::npos;
  const size_t t = match_time(s, pos + 1);
  if (t == std::string_view::npos || t >= s.size() || s[t] != ' ') return std::string_view::npos;
  const size_t close = s.find(']', t);
  if (close == std::string_view::npos) return std::string_view::npos;
  const std::string_view rank = trim(s.substr(t, close - t));
  if (!labelled_number(rank, "TP") && !labelled_number(rank, "DP")) {
    return std::string_view::npos;
  }
  labels = std::string(rank);
  return close + 1;
}

// SGLang: "[2025-03-08 12:29:13 TP0] " (labels optional), or the date-less form above. Returns
// the position after the closing bracket, or npos; `labels` gets the rank labels.
size_t match_sglang_frame(std::string_view s, size_t pos, std::string& labels) {
  if (const size_t e = match_dateless_sglang_frame(s, pos, labels); e != std::string_view::npos) {
    return e;
  }
  if (pos >= s.size() || s[pos] != '[' || !digits_at(s, pos + 1, 4) || pos + 11 > s.size() ||
      s[pos + 5] != '-' || !digits_at(s, pos + 6, 2) || s[pos + 8] != '-' ||
      !digits_at(s, pos + 9, 2)) {
    return std::string_view::npos;
  }
  size_t p = pos + 11;
  if (p < s.size() && (s[p] == ' ' || s[p] == 'T')) {
    const size_t t = match_time(s, p + 1);
    if (t == std::string_view::npos) return std::string_view::npos;
    p = t;
  }
  const size_t close = s.find(']', p);
  if (close == std::string_view::npos) return std::string_view::npos;
  labels = std::string(trim(s.substr(p, close - p)));
  return close + 1;
}

// vLLM: "INFO 12-13 19:54:18 worker.py:243] " or "INFO 09-23 18:12:21 [gpu_worker.py:298] ";
// also as posts abbreviate it, without the time: "INFO [kv_cache_utils.py:1319] " (a log
// collector that keeps only the level and the source) or "INFO  [kv_cache_utils.py]  ", or at
// the start of a line without the level: "[kv_cache_utils.py:868] ".
size_t match_vllm_frame(std::string_view s, size_t pos, std::string& level) {
  // A post that cut the level and the time keeps "[kv_cache_utils.py:868] " at the start of
  // the line: the frame, with no level.
  if (pos < s.size() && s[pos] == '[' && s.find_first_not_of(' ') == pos) {
    const size_t close = s.find(']', pos);
    const std::string_view source =
        close == std::string_view::npos ? std::string_view() : s.substr(pos + 1, close - pos - 1);
    const size_t colon = source.rfind(':');
    if (colon != std::string_view::npos && source.substr(0, colon).ends_with(".py") &&
        digits_at(source, colon + 1, 1) &&
        source.find_first_not_of("0123456789", colon + 1) == std::string_view::npos) {
      level.clear();
      return close + 1;
    }
  }
  static constexpr std::array<std::string_view, 6> kLevels = {"INFO",  "WARNING",  "ERROR",
                                                              "DEBUG", "CRITICAL", "WARN"};
  for (std::string_view l : kLevels) {
    if (s.substr(pos, l.size()) != l || pos + l.size() >= s.size() || s[pos + l.size()] != ' ') {
      continue;
    }
    size_t p = pos + l.size();
    while (p < s.size() && s[p] == ' ') ++p;
    bool timed = false;
    if (digits_at(s, p, 2) && p + 6 <= s.size() && s[p + 2] == '-' && digits_at(s, p + 3, 2) &&
        s[p + 5] == ' ') {
      p = match_time(s, p + 6);
      if (p == std::string_view::npos || p >= s.size() || s[p] != ' ') {
        return std::string_view::npos;
      }
      ++p;
      timed = true;
    }
    // The source location: "[file.py:123]", "file.py:123]"; untimed, only "[file.py:123]"
    // or "[file.py]", so that a sentence after a level is not taken for a frame.
    const bool bracket = p < s.size() && s[p] == '[';
    if (!timed && !bracket) return std::string_view::npos;
    const size_t close = s.find(']', p);
    if (close == std::string_view::npos || close - p > 120) return std::string_view::npos;
    const std::string_view source = s.substr(bracket ? p + 1 : p, close - p - (bracket ? 1 : 0));
    const size_t colon = source.rfind(':');
    const bool numbered = colon != std::string_view::npos && digits_at(source, colon + 1, 1);
    if (!numbered && !(bracket && source.ends_with(".py"))) return std::string_view::npos;
    if (!timed && source.find(".py") == std::string_view::npos) return std::string_view::npos;
    level = std::string(l);
    return close + 1;
  }
  return std::string_view::npos;
}

// vLLM worker processes: "(VllmWorkerProcess pid=6494) ", "(VllmWorker rank=1 pid=42) ",
// "(EngineCore_DP0 pid=3021) ", "(Worker_TP0 pid=26347) ".
size_t match_process(std::string_view s, size_t pos, std::string& process) {
  if (pos >= s.size() || s[pos] != '(') return std::string_view::npos;
  const size_t close = s.find(')', pos);
  if (close == std::string_view::npos) return std::string_view::npos;
  const std::string_view content = s.substr(pos + 1, close - pos - 1);
  if (content.find("pid=") == std::string_view::npos &&
      content.find("rank=") == std::string_view::npos) {
    return std::string_view::npos;
  }
  process = std::string(content);
  return close + 1;
}

// A wrapper's logger that re-frames vLLM's lines can cut the pid and the level out of a V0
// worker's prefix: "(VllmWorkerProcess 04-23 11:32:58 model_runner.py:1115] " (ai-dynamo
// dynamo #787). The process's name, then vLLM's time and source; the position after the ']'.
size_t match_levelless_worker_frame(std::string_view s, size_t pos, std::string& process) {
  if (pos >= s.size() || s[pos] != '(') return std::string_view::npos;
  size_t p = pos + 1;
  while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_')) ++p;
  if (p == pos + 1 || p >= s.size() || s[p] != ' ') return std::string_view::npos;
  // vLLM's process names: VllmWorkerProcess, Worker_TP0, EngineCore_DP0, APIServer.
  const std::string_view name = s.substr(pos + 1, p - pos - 1);
  if (name.find("Worker") == std::string_view::npos &&
      name.find("EngineCore") == std::string_view::npos && name != "APIServer") {
    return std::string_view::npos;
  }
  const size_t t = p + 1;
  if (!digits_at(s, t, 2) || t + 6 > s.size() || s[t + 2] != '-' || !digits_at(s, t + 3, 2) ||
      s[t + 5] != ' ') {
    return std::string_view::npos;
  }
  const size_t after_time = match_time(s, t + 6);
  if (after_time == std::string_view::npos || after_time >= s.size() || s[after_time] != ' ') {
    return std::string_view::npos;
  }
  const size_t close = s.find(']', after_time);
  if (close == std::string_view::npos || close - after_time > 120) return std::string_view::npos;
  const std::string_view source = trim(s.substr(after_time, close - after_time));
  const size_t colon = source.rfind(':');
  if (colon == std::string_view::npos || !source.substr(0, colon).ends_with(".py") ||
      !digits_at(source, colon + 1, 1)) {
    return std::string_view::npos;
  }
  process = std::string(s.substr(pos + 1, p - pos - 1));
  return close + 1;
}

// Ray's deduplication suffix, " [repeated 30x across cluster]": the count, and the message
// without it.
int take_cluster_repeats(std::string& message) {
  constexpr std::string_view kTail = "x across cluster]";
  if (!std::string_view(message).ends_with(kTail)) return 0;
  const size_t open = message.rfind("[repeated ");
  if (open == std::string::npos) return 0;
  const size_t digits = open + std::string_view("[repeated ").size();
  const size_t end = message.size() - kTail.size();
  int count = 0;
  const auto [ptr, ec] = std::from_chars(message.data() + digits, message.data() + end, count);
  if (ec != std::errc() || ptr != message.data() + end || count <= 0) return 0;
  message = std::string(trim(std::string_view(message).substr(0, open)));
  return count;
}

// Where a frame may start: at the line's start, after a space, tab or '|' (docker compose's
// "qwen3-1  | "), or after the "288:" that `grep -n` puts in front of each line.
bool word_start(std::string_view s, size_t i) {
  if (i == 0 || s[i - 1] == ' ' || s[i - 1] == '|' || s[i - 1] == '\t') return true;
  return s[i - 1] == ':' && i >= 2 && digits_at(s, 0, i - 1);
}

// Removes every frame from the front of `s` (and whatever precedes the first one); the
// message's offset in `s` is returned.
size_t unframe(std::string_view s, LogLine& out) {
  constexpr size_t kSearch = 160;  // a frame starts within a container/timestamp prefix
  size_t begin = 0;
  for (size_t i = 0; i < s.size() && i < kSearch; ++i) {
    std::string scratch;
    // SGLang's "[2025-05-07 13:39:14 TP0]" is distinctive enough to be found anywhere: a
    // progress bar redrawn without a newline may run straight into it ("...3.89it/s][2026").
    if (match_sglang_frame(s, i, scratch) != std::string_view::npos ||
        (word_start(s, i) &&
         (match_process(s, i, scratch) != std::string_view::npos ||
          match_levelless_worker_frame(s, i, scratch) != std::string_view::npos ||
          match_vllm_frame(s, i, scratch) != std::string_view::npos))) {
      begin = i;
      break;
    }
  }
  size_t p = begin;
  std::string labels;
  for (bool matched = true; matched;) {
    while (p < s.size() && s[p] == ' ') ++p;
    matched = false;
    std::string text;
    if (size_t e = match_process(s, p, text); e != std::string_view::npos) {
      if (!out.process.empty()) out.outer_process = out.process;
      out.process = text;
      p = e;
      matched = true;
      out.framed = true;
      if (text.find("pid=") != std::string::npos) out.frame = FrameKind::kVllm;
    } else if (size_t e2 = match_sglang_frame(s, p, text); e2 != std::string_view::npos) {
      labels = text;
      if (!labels.empty()) out.process = labels;
      // "[2025-03-08 12:29:13" (or "[23:17:01"): the time, sortable as text.
      const size_t stamp = digits_at(s, p + 1, 4) ? 19 : 8;
      out.time = std::string(s.substr(p + 1, std::min<size_t>(stamp, e2 - p - 1)));
      p = e2;
      matched = true;
      out.framed = true;
      out.frame = FrameKind::kSglang;
    } else if (size_t e4 = match_levelless_worker_frame(s, p, text); e4 != std::string_view::npos) {
      if (!out.process.empty()) out.outer_process = out.process;
      out.process = text;
      const size_t t = s.find(' ', p) + 1;
      out.time = std::string(s.substr(t, 14));
      const std::string_view frame = s.substr(p, e4 - 1 - p);
      out.source = std::string(frame.substr(frame.find_last_of(' ') + 1));
      p = e4;
      matched = true;
      out.framed = true;
      out.frame = FrameKind::kVllm;
    } else if (size_t e3 = match_vllm_frame(s, p, text); e3 != std::string_view::npos) {
      out.level = text;
      // "INFO 12-13 19:54:18 ...": month, day and time (no year), sortable within a log.
      const size_t t = p + text.size() + 1;
      if (t + 14 <= s.size() && digits_at(s, t, 2) && s[t + 2] == '-') {
        out.time = std::string(s.substr(t, 14));
      }
      // "... [gpu_worker.py:298]" or "... worker.py:243]": the last word before the ']'.
      const std::string_view frame = s.substr(p, e3 - 1 - p);
      const size_t word = frame.find_last_of("[ ");
      out.source = std::string(word == std::string_view::npos ? frame : frame.substr(word + 1));
      p = e3;
      matched = true;
      out.framed = true;
      out.frame = FrameKind::kVllm;
    }
  }
  while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  // A full date in what was taken off (SGLang's frame, a logger's or collector's timestamp);
  // vLLM's own "MM-DD" has no year and dates nothing.
  for (size_t i = 0; i + 10 <= p; ++i) {
    if (digits_at(s, i, 4) && s[i + 4] == '-' && digits_at(s, i + 5, 2) && s[i + 7] == '-' &&
        digits_at(s, i + 8, 2)) {
      out.date = std::string(s.substr(i, 10));
      break;
    }
  }
  out.message = std::string(trim(s.substr(p)));
  out.cluster_repeats = take_cluster_repeats(out.message);
  const std::string_view who = out.process;
  out.tp = labelled_number(who, "TP");
  if (!out.tp) out.tp = labelled_number(who, "rank=");
  out.pp = labelled_number(who, "PP");
  out.dp = labelled_number(who, "DP");
  out.ep = labelled_number(who, "EP");
  return p;
}

}  // namespace

LogPosition LogLine::position(size_t offset) const {
  LogPosition p{number, column + static_cast<int>(offset)};
  for (const Continuation& c : continuations) {
    if (offset < c.offset) break;
    p = {c.at.line, c.at.column + static_cast<int>(offset - c.offset)};
  }
  return p;
}

std::string strip_ansi(std::string_view text, std::vector<size_t>* origin) {
  std::string out;
  out.reserve(text.size());
  if (origin != nullptr) origin->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    // ESC written in caret notation ("^[[0;36m"), as a terminal's text copied through a pager
    // or a CI page shows it, is an escape as well.
    const bool caret =
        text[i] == '^' && i + 2 < text.size() && text[i + 1] == '[' && text[i + 2] == '[';
    const bool esc = caret || (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[');
    const size_t open = caret ? i + 2 : esc ? i + 1 : i;
    if (esc || text[i] == '[') {
      size_t p = open + 1;
      while (p < text.size() && (is_digit(text[p]) || text[p] == ';')) ++p;
      // An escape ends with any final byte; a bare "[32m" only with 'm' after digits.
      const bool has_params = p > open + 1;
      if (p < text.size() &&
          ((esc && text[p] >= '@' && text[p] <= '~') || (!esc && has_params && text[p] == 'm'))) {
        i = p;
        continue;
      }
    }
    if (text[i] == '\x1b') continue;
    out += text[i];
    if (origin != nullptr) origin->push_back(i);
  }
  return out;
}

std::vector<LogLine> split_log_lines(std::string_view text) {
  std::vector<LogLine> lines;
  std::vector<size_t> origin;
  int number = 0;
  while (!text.empty() || number == 0) {
    const size_t nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++number;
    // A progress bar redraws itself after '\r': the last non-empty redraw is what shows.
    while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    size_t shown = 0;  // where the line's last redraw starts
    if (size_t cr = raw.rfind('\r'); cr != std::string_view::npos) shown = cr + 1;
    raw = raw.substr(shown);
    LogLine line;
    line.number = number;
    std::string clean = strip_ansi(raw, &origin);
    // A post's quote is not the engine's: Markdown's "> " before each line, or the bar a
    // chat or an issue tracker's rendering copies as "▎ " (U+258E) or "│ " / "┃ " (U+2502,
    // U+2503).
    size_t quoted = 0;
    for (bool more = true; more;) {
      more = false;
      for (std::string_view mark : {">", "\xe2\x96\x8e", "\xe2\x94\x82", "\xe2\x94\x83"}) {
        const std::string_view rest = std::string_view(clean).substr(quoted);
        if (!rest.starts_with(mark) || (rest.size() > mark.size() && rest[mark.size()] != ' ')) {
          continue;
        }
        quoted += std::min(rest.size(), mark.size() + 1);
        more = true;
      }
    }
    const size_t at = quoted + unframe(std::string_view(clean).substr(quoted), line);
    line.column = static_cast<int>(shown + (at < origin.size() ? origin[at] : raw.size()) + 1);
    lines.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
  }
  return lines;
}

}  // namespace gpumem
