#include "probe/trace_recorder.h"

namespace gpumem::probe {

using nlohmann::json;

TraceRecorder::TraceRecorder(RankRuntime& rt, const CachingAllocator& allocator)
    : rt_(rt), allocator_(allocator), initial_(rt.sampler().read()), before_(initial_) {}

void TraceRecorder::begin_step(std::string_view name) {
  name_ = std::string(name);
  before_ = rt_.sampler().read();
  rt_.log("step " + name_);
}

void TraceRecorder::end_step(const Status& outcome) {
  const Sample after = rt_.sampler().read();
  json own = json::object();
  for (std::size_t c = 0; c < kCategoryCount; ++c) {
    own[std::string(kCategoryNames[c])] = rt_.device().allocated(static_cast<Category>(c)).value();
  }
  json step = {{"name", name_},
               {"outcome", status_code_name(outcome.code())},
               {"message", outcome.message()},
               {"wall_s", after.t_mono_s - before_.t_mono_s},
               {"before", to_json(before_)},
               {"after", to_json(after)},
               {"allocated_after_bytes", allocator_.memory_allocated().value()},
               {"reserved_after_bytes", allocator_.memory_reserved().value()},
               {"own_allocations_after_bytes", std::move(own)},
               {"log", lines_}};
  steps_.push_back(std::move(step));
  lines_.clear();
  if (!outcome.ok()) {
    failed_ = true;
    rt_.log("step " + name_ + " ended: " + outcome.message());
  }
}

void TraceRecorder::log_line(std::string_view line) { lines_.emplace_back(line); }

}  // namespace gpumem::probe
