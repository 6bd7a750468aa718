#pragma once
// Setting up the sweep functor on a space: the program, the data and the
// resolved simulation uploaded once per run (make_sweep_functor), the combos
// of each call and their scratch (load_combos), and the chunked launch.

#include <kbt/core/detail/upload.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/simulation/portfolio_rules.hpp>
#include <kbt/simulation/portfolio_upload.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/sweep/detail/compared_select.hpp>
#include <kbt/sweep/detail/sweep_functor.hpp>
#include <kbt/sweep/fused_selects.hpp>
#include <kbt/sweep/kernel_sweep_options.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kbt {
namespace detail {

template <class Real, class Space>
Kokkos::View<Real**, Space> upload_rows(const std::vector<std::vector<double>>& rows, std::size_t width,
                                         const char* label) {
  Kokkos::View<Real**, Space> dev(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows.size(), width);
  auto host = Kokkos::create_mirror_view(dev);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t k = 0; k < width; ++k)
      host(r, k) = k < rows[r].size() ? static_cast<Real>(rows[r][k]) : Real(0);  // htf rows are shorter
  Kokkos::deep_copy(dev, host);
  return dev;
}

inline std::vector<int> to_int(const std::vector<std::int32_t>& v) { return std::vector<int>(v.begin(), v.end()); }

// Per-combo scratch needs, fixed for a run.
struct ScratchShape {
  std::size_t cur_width = 1, ring = 1, state = 1, slots = 1, per_combo_bytes = 0;
};

// Uploads the program, the data and the plan's series: everything that does
// not depend on the combos.
template <class ExecSpace, class Real>
SweepFunctor<ExecSpace, Real> make_sweep_functor(const Program& program, const SweepPlan& plan,
                                                 const BarData& bars, const ResolvedSimulation& sim,
                                                 const KernelSweepOptions& options, ScratchShape& shape) {
  using Space = typename ExecSpace::memory_space;
  using Functor = SweepFunctor<ExecSpace, Real>;
  using Evaluator = typename Functor::Evaluator;
  const std::size_t n_params = plan.n_params;
  const std::size_t n_sym = plan.n_symbols;

  Functor f;
  f.metric_groups = compiled_set_for(metrics_of_groups(options.metric_groups));  // a compiled set
  Evaluator& e = f.eval;
  e.n_regs = static_cast<int>(plan.n_registers);
  e.n_sym = static_cast<int>(n_sym);
  e.n_bars = static_cast<int>(plan.n_bars);
  e.n_params = static_cast<int>(n_params);
  // Comparisons read only by a `where` are evaluated inside it (fused_selects.hpp;
  // host spaces only): their home is `fused`, and they leave the streamed list and `cur`.
  std::vector<RegisterHome> homes = plan.home;
  std::vector<std::int32_t> streamed;
  {
    const bool fuse = options.fuse_compare_selects && Evaluator::fuses_compare_selects;
    const std::vector<bool> fused = fuse ? fusable_compares(program, plan) : std::vector<bool>(plan.n_registers, false);
    for (std::size_t r = 0; r < homes.size(); ++r)
      if (fused[r]) homes[r] = RegisterHome::fused;
    for (std::int32_t r : plan.streamed)
      if (!fused[static_cast<std::size_t>(r)]) streamed.push_back(r);
  }
  e.n_streamed = static_cast<int>(streamed.size());
  f.position_per_bar = options.position_per_bar && Functor::host_space &&
                       position_is_compared_select(program, homes, streamed);
  e.n_hoisted = static_cast<int>(plan.hoisted_regs.size());
  e.position = program.position;
  e.long_entry = program.long_entry;
  e.long_exit = program.long_exit;
  e.short_entry = program.short_entry;
  e.short_exit = program.short_exit;

  e.code = upload_1d<Instr, Space>(program.code, "kbt::code");
  std::vector<int> home(homes.size());
  for (std::size_t r = 0; r < home.size(); ++r) home[r] = static_cast<int>(homes[r]);
  e.home = upload_1d<int, Space>(home, "kbt::home");
  e.home_index = upload_1d<int, Space>(to_int(plan.home_index), "kbt::home_index");
  e.ring_offset = upload_1d<int, Space>(to_int(plan.ring_offset), "kbt::ring_offset");
  e.ring_capacity = upload_1d<int, Space>(to_int(plan.ring_capacity), "kbt::ring_capacity");
  e.state_offset = upload_1d<int, Space>(to_int(plan.state_offset), "kbt::state_offset");
  e.streamed = upload_1d<int, Space>(to_int(streamed), "kbt::streamed");
  {
    std::vector<int> stride(program.code.size());
    for (std::size_t r = 0; r < stride.size(); ++r) {
      const int frame = program.code[r].frame;
      stride[r] = static_cast<int>(plan.frame_bars[static_cast<std::size_t>(frame > 0 ? frame : 0)]);
    }
    e.stride = upload_1d<int, Space>(stride, "kbt::stride");
    Kokkos::View<int**, Space> visible("kbt::frame_visible", plan.frame_visible.size(), plan.n_bars);
    auto hv = Kokkos::create_mirror_view(visible);
    for (std::size_t fr = 1; fr < plan.frame_visible.size(); ++fr)
      for (std::size_t b = 0; b < plan.n_bars; ++b) hv(fr, b) = static_cast<int>(plan.frame_visible[fr][b]);
    Kokkos::deep_copy(visible, hv);
    e.frame_visible = visible;
  }
  e.scans = upload_1d<ScanProgram, Space>(program.scans, "kbt::scans");
  e.scan_tape = upload_1d<Instr, Space>(program.scan_tape, "kbt::scan_tape");
  e.scan_refs = upload_1d<int, Space>(to_int(program.scan_refs), "kbt::scan_refs");
  e.scan_trigger = upload_1d<int, Space>(to_int(plan.scan_trigger), "kbt::scan_trigger");
  e.scan_state_offset = upload_1d<int, Space>(to_int(plan.scan_state_offset), "kbt::scan_state");
  {
    // Every streamed output register of each scan: the scan's trigger writes them all.
    std::vector<int> begin(program.scans.size() + 1, 0), regs;
    for (std::size_t sc = 0; sc < program.scans.size(); ++sc) {
      begin[sc] = static_cast<int>(regs.size());
      for (std::int32_t r : plan.streamed) {
        const Instr& ins = program.code[static_cast<std::size_t>(r)];
        if (ins.op == OpCode::scan_output && ins.aux == static_cast<std::int32_t>(sc)) regs.push_back(r);
      }
    }
    begin[program.scans.size()] = static_cast<int>(regs.size());
    e.scan_out_begin = upload_1d<int, Space>(begin, "kbt::scan_out_begin");
    e.scan_out_regs = upload_1d<int, Space>(regs, "kbt::scan_out_regs");
  }
  // Slots in `cur`: scalar and streamed registers only.
  std::vector<int> cur_slot(plan.n_registers, -1);
  int n_slots = 0;
  for (std::size_t r = 0; r < plan.n_registers; ++r)
    if (homes[r] == RegisterHome::scalar || homes[r] == RegisterHome::streamed) cur_slot[r] = n_slots++;
  e.cur_slot = upload_1d<int, Space>(cur_slot, "kbt::cur_slot");
  e.block = options.block_bars > 0 ? options.block_bars : default_block_bars<ExecSpace>();
  const std::size_t width = n_sym * plan.n_bars;
  e.materialized = upload_rows<Real, Space>(plan.materialized, width, "kbt::materialized");
  // e.hoisted: HoistedRows' rows, set per tile of windows.

  // The portfolio: the data's prices, the fee per symbol and the rules, all
  // resolved already (ResolvedSimulation).
  if (plan.n_bars != bars.n_bars() || n_sym != bars.n_symbols())
    throw Error(ErrorCategory::internal, "sweep kernel: the plan's shape differs from the data's");
  f.portfolio = upload_portfolio_step<ExecSpace, Real>(bars, sim, program.form == StrategyOutputs::Form::position,
                                                       program.param_names);
  const auto& p = f.portfolio;
  if (p.rules.any_swept && sim.step != PortfolioStepKind::general)
    throw Error(ErrorCategory::internal, "sweep kernel: swept settings need the general portfolio step");

  // Scratch per combo: registers, rings, states, scan slots, symbol states.
  // Each combo's scratch rows are padded to whole cache lines: host threads
  // running neighbouring combos would otherwise write the same lines (a
  // 1-Real state row packs 8 combos into one line) and stall each other.
  const auto lines = [](std::size_t reals) { return whole_cache_lines<Real>(reals); };
  // cs_rank sorts each cross-section, values and symbols, in 2 * n_sym more values of the row.
  const std::size_t register_values = static_cast<std::size_t>(n_slots) * n_sym * e.block;
  bool any_rank = false;
  for (std::int32_t r : plan.streamed) any_rank = any_rank || program.code[static_cast<std::size_t>(r)].op == OpCode::cs_rank;
  e.rank_keys = any_rank ? static_cast<int>(register_values) : -1;
  shape.cur_width = lines(register_values + (any_rank ? 2 * n_sym : 0));
  shape.ring = lines(plan.ring_size);
  shape.state = lines(plan.state_size);
  shape.slots = lines(plan.scan_slots);
  shape.per_combo_bytes = sizeof(Real) * (shape.cur_width + shape.ring + shape.state + shape.slots + 3) +
                          sizeof(PortfolioSymbol<Real>) * Functor::symbol_row(n_sym);
  return f;
}

// Loads a list of combos into `f`: their params ([n_combos][n_params]), their
// rows of the hoisted series ([n_combos][n_hoisted]), room for their metrics,
// and scratch for chunks of `chunk_out` combos (kept when the previous scratch
// is large enough).
template <class ExecSpace, class Real>
void load_combos(SweepFunctor<ExecSpace, Real>& f, const ScratchShape& shape, std::size_t n_params,
                 std::size_t n_hoisted, const std::vector<double>& combo_params, const std::vector<int>& hoist_rows,
                 std::size_t scratch_budget, const KernelSweepOptions& options, std::size_t& n_combos_out,
                 std::size_t& chunk_out) {
  using Space = typename ExecSpace::memory_space;
  using Functor = SweepFunctor<ExecSpace, Real>;
  const std::size_t n_combos = n_params == 0 ? (combo_params.empty() ? 1 : combo_params.size())
                                             : combo_params.size() / n_params;
  {
    Kokkos::View<Real**, Space> params(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::params")), n_combos,
                                       std::max<std::size_t>(n_params, 1));
    Kokkos::View<int**, Space> rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::hoist_row")), n_combos,
                                    std::max<std::size_t>(n_hoisted, 1));
    auto hp = Kokkos::create_mirror_view(params);
    auto hr = Kokkos::create_mirror_view(rows);
    for (std::size_t c = 0; c < n_combos; ++c) {
      for (std::size_t k = 0; k < n_params; ++k) hp(c, k) = static_cast<Real>(combo_params[c * n_params + k]);
      for (std::size_t h = 0; h < n_hoisted; ++h) hr(c, h) = hoist_rows[c * n_hoisted + h];
    }
    Kokkos::deep_copy(params, hp);
    Kokkos::deep_copy(rows, hr);
    f.eval.params = params;
    f.eval.hoist_row = rows;
  }
  std::size_t chunk = options.chunk_combos;
  if (chunk == 0) {
    chunk = std::max<std::size_t>(1, scratch_budget / shape.per_combo_bytes);
    // A host space works on `concurrency` combos at a time: a few thousand
    // combos per thread keep every thread busy and the scratch small.
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible)
      chunk = std::min<std::size_t>(chunk, std::size_t(4096) * static_cast<std::size_t>(ExecSpace().concurrency()));
  }
  chunk = std::min(chunk, std::max<std::size_t>(n_combos, 1));
  if (f.eval.cur.extent(0) < chunk) {
    using Scratch = Kokkos::View<Real**, Space>;
    f.eval.cur = Scratch("kbt::cur", chunk, shape.cur_width);
    f.eval.ring = Scratch("kbt::ring", chunk, shape.ring);
    f.eval.state = Scratch("kbt::state", chunk, shape.state);
    f.eval.slots = Scratch("kbt::slots", chunk, shape.slots);
    f.sym = typename Functor::SymbolStates(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::symbol_state")), chunk,
        Functor::symbol_row(static_cast<std::size_t>(f.portfolio.n_sym)));
  }
  f.metrics = Kokkos::View<double**, Space>("kbt::metrics", n_combos, n_metrics);
  n_combos_out = n_combos;
  chunk_out = chunk;
}

// all(index(i), m) = part(i, m): a tile's metrics into the call's order.
template <class ExecSpace>
struct ScatterMetricRows {
  Kokkos::View<const double**, typename ExecSpace::memory_space> part;
  Kokkos::View<double**, typename ExecSpace::memory_space> all;
  Kokkos::View<const std::int64_t*, typename ExecSpace::memory_space> index;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    for (int m = 0; m < int(n_metrics); ++m) all(index(i), m) = part(i, m);
  }
};

// Runs every loaded combo, chunk by chunk, and fences.
template <class ExecSpace, class Real>
void launch_sweep(const ExecSpace& exec, SweepFunctor<ExecSpace, Real>& f, std::size_t n_combos, std::size_t chunk) {
  for (std::size_t first = 0; first < n_combos; first += chunk) {
    f.eval.first = static_cast<long>(first);
    const std::size_t count = std::min(chunk, n_combos - first);
    // Dynamic schedule, one work item at a time: combos differ in cost (a
    // combo that trades often does more per bar), and a static split of a
    // grid in row order gives one host thread the expensive end of an axis.
    // GPUs ignore the schedule.
    f.with_variant([&](auto kind, auto groups, auto symbols) {
      using Functor = SweepFunctor<ExecSpace, Real>;
      using Launch = SweepLaunch<Functor, decltype(kind)::value, decltype(groups)::value, decltype(symbols)::value>;
      using Bounds = typename Functor::template launch_bounds<decltype(kind)::value, decltype(groups)::value>;
      const Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>, Bounds> policy(
          exec, 0, static_cast<int>(count), Kokkos::ChunkSize(1));
      Kokkos::parallel_for("kbt::sweep", policy, Launch{f});
    });
  }
  exec.fence();
}

}  // namespace detail

}  // namespace kbt
