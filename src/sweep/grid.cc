#include "sweep/grid.h"

#include <charconv>

#include "engine/engine_model.h"
#include "engine/flag_table.h"

namespace gpumem::sweep {
namespace {

int to_int(const std::string& s) {
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// The position of `axis`'s flag among `engine`'s args, or args.size() when absent.
size_t find_flag_arg(const ScenarioEngine& engine, const Axis& axis) {
  const EngineModel& model = *find_engine(engine.name);  // the sweep checked it is modelled
  for (size_t i = 0; i < engine.args.size(); ++i) {
    const FlagSpec* spec = find_flag(model.canonical_flag(engine.args[i].flag), model.flags());
    if (spec != nullptr && spec->name == axis.name) return i;
  }
  return engine.args.size();
}

}  // namespace

std::optional<size_t> grid_size(const std::vector<Axis>& axes) {
  size_t n = 1;
  for (const Axis& a : axes) {
    if (a.values.empty() || n > kMaxGridPoints / a.values.size()) return std::nullopt;
    n *= a.values.size();
  }
  return n;
}

Grid::Grid(std::vector<Axis> axes) : axes_(std::move(axes)) {
  extents_.resize(axes_.size());
  strides_.resize(axes_.size());
  for (size_t a = axes_.size(); a-- > 0;) {
    extents_[a] = axes_[a].values.size();
    strides_[a] = size_;
    size_ *= extents_[a];
  }
}

PointScenarios::PointScenarios(const Scenario& base, const Grid& grid)
    : grid_(grid), scenario_(base), slots_(grid.axes().size(), 0) {
  ScenarioEngine& engine = scenario_.engine;
  for (size_t a = 0; a < grid.axes().size(); ++a) {
    const Axis& axis = grid.axes()[a];
    if (axis.kind == AxisKind::kFlag) {
      size_t slot = find_flag_arg(engine, axis);
      if (slot == engine.args.size()) {
        EngineArg arg;
        arg.flag = axis.key;
        arg.flag_loc = axis.loc;
        arg.value_loc = {axis.loc.file, axis.loc.line, axis.value_columns.front()};
        engine.args.push_back(std::move(arg));
      }
      engine.args[slot].is_list = false;
      engine.args[slot].values.assign(1, std::string());
      slots_[a] = slot;
    } else if (axis.kind == AxisKind::kEnv) {
      size_t slot = 0;
      while (slot < engine.env.size() && engine.env[slot].name != axis.name) ++slot;
      if (slot == engine.env.size()) {
        engine.env.push_back(
            {axis.name, "", axis.loc, {axis.loc.file, axis.loc.line, axis.value_columns.front()}});
      }
      slots_[a] = slot;
    }
  }
}

const Scenario& PointScenarios::at(size_t point, std::string& error) {
  error.clear();
  for (size_t a = 0; a < grid_.axes().size(); ++a) {
    const std::string& v = grid_.value(point, a);
    switch (grid_.axes()[a].kind) {
      case AxisKind::kFlag:
        scenario_.engine.args[slots_[a]].values[0] = v;
        break;
      case AxisKind::kEnv:
        scenario_.engine.env[slots_[a]].value = v;
        break;
      case AxisKind::kGpu:
        scenario_.hardware.gpu = v;
        break;
      case AxisKind::kGpuCount:
        scenario_.hardware.gpus_per_node = to_int(v);
        break;
      case AxisKind::kNodes:
        scenario_.hardware.nodes = to_int(v);
        break;
      case AxisKind::kInterconnect:
        scenario_.hardware.interconnect =
            v == "nvlink" ? Interconnect::kNvlink : Interconnect::kPcie;
        break;
    }
  }
  // The scenario reader's rule: preoccupied GPU indices lie within one node.
  for (const auto& [index, held] : scenario_.hardware.preoccupied) {
    if (index >= scenario_.hardware.gpus_per_node) {
      error = "GPU index " + std::to_string(index) + " in 'preoccupied' is outside 0.." +
              std::to_string(scenario_.hardware.gpus_per_node - 1);
      break;
    }
  }
  return scenario_;
}

}  // namespace gpumem::sweep
