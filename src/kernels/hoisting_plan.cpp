// Program::hoisted -> staged fold requests (kbt/kernels/hoisting_plan.hpp).

#include <kbt/kernels/hoisting_plan.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include <kbt/core/error.hpp>

namespace kbt::kernels {

FoldOp fold_op_of(OpCode op) {
  if (!is_windowed(op))
    throw Error(ErrorCategory::internal, std::string("opcode '") + to_string(op) + "' is not a fold op");
  return op;
}

int HoistingStage::series_index(std::int32_t reg, std::int64_t window) const {
  for (const Entry& e : entries) {
    if (e.reg != reg) continue;
    const auto it = std::lower_bound(e.windows.begin(), e.windows.end(), window);
    if (it == e.windows.end() || *it != window) return -1;
    return e.series[static_cast<std::size_t>(it - e.windows.begin())];
  }
  return -1;
}

std::vector<HoistedRegister> hoisted_registers(const Program& program) {
  std::vector<HoistedRegister> hoisted(program.code.size());
  for (const HoistedSeries& h : program.hoisted)
    if (window_varies(h.window_kind)) hoisted[static_cast<std::size_t>(h.reg)].fold = h.reg;
  for (std::size_t r = 0; r < program.code.size(); ++r) {  // register order: inputs come first
    const Instr& i = program.code[r];
    if (op_info(i.op).family != OpFamily::cross_sectional || i.frame != 0 || i.a < 0) continue;
    const HoistedRegister& in = hoisted[static_cast<std::size_t>(i.a)];
    if (in.fold < 0 || program.code[static_cast<std::size_t>(in.fold)].frame != 0 ||
        in.cross_section.n == CrossSectionChain::capacity)
      continue;
    HoistedRegister& out = hoisted[r];
    out = in;
    out.cross_section.ops[out.cross_section.n++] = i.op;
  }
  return hoisted;
}

std::vector<HoistingStage> make_hoisting_plan(const Program& program, std::int32_t frame) {
  // Stage of every hoisted register: 0 unless it reads another hoisted one.
  std::map<std::int32_t, int> stage_of;
  int n_stages = 0;
  for (const HoistedSeries& h : program.hoisted) {  // register order: inputs come first
    if (h.frame != frame) continue;
    int stage = 0;
    for (std::int32_t in : {h.a, h.b, h.c}) {
      const auto it = stage_of.find(in);
      if (in >= 0 && it != stage_of.end()) stage = std::max(stage, it->second + 1);
    }
    stage_of[h.reg] = stage;
    n_stages = std::max(n_stages, stage + 1);
  }

  std::vector<HoistingStage> stages(static_cast<std::size_t>(n_stages));
  std::vector<std::map<std::int32_t, int>> input_index(stages.size());
  using Key = std::tuple<int, int, int, int, int>;
  std::vector<std::map<Key, int>> request_index(stages.size());
  for (auto& s : stages) s.frame = frame;
  const auto input_of = [&](std::size_t stage, std::int32_t reg) {
    auto& index = input_index[stage];
    const auto it = index.find(reg);
    if (it != index.end()) return it->second;
    const int i = static_cast<int>(stages[stage].input_registers.size());
    stages[stage].input_registers.push_back(reg);
    index.emplace(reg, i);
    return i;
  };

  for (const HoistedSeries& h : program.hoisted) {
    if (h.frame != frame) continue;
    const auto stage = static_cast<std::size_t>(stage_of.at(h.reg));
    HoistingStage& s = stages[stage];
    const FoldOp op = fold_op_of(h.op);
    FoldRequest base;
    base.op = op;
    if (op == FoldOp::atr) {  // a = high, b = low, c = close
      base.high = input_of(stage, h.a);
      base.low = input_of(stage, h.b);
      base.input = input_of(stage, h.c);
    } else {
      base.input = input_of(stage, h.a);
    }
    HoistingStage::Entry entry;
    entry.reg = h.reg;
    entry.windows = hoisted_window_values(program, h);
    for (std::int64_t w : entry.windows) {
      if (w < min_window(op) || w > 0x7fffffff)
        throw Error(ErrorCategory::grid, std::string("window ") + std::to_string(w) + " of " +
                                             to_string(op) + " is out of range");
      FoldRequest r = base;
      r.window = static_cast<int>(w);
      const Key key{static_cast<int>(r.op), r.input, r.window, r.high, r.low};
      const auto found = request_index[stage].emplace(key, static_cast<int>(s.requests.size()));
      if (found.second) s.requests.push_back(r);
      entry.series.push_back(found.first->second);
    }
    s.entries.push_back(std::move(entry));
  }
  return stages;
}

}  // namespace kbt::kernels
