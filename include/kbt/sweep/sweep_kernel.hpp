#pragma once
// Runs the sweep functor over a list of combos on one execution space, in
// chunks that bound the per-thread scratch memory. Results do not depend on
// the chunk size or the thread count: every combo is independent.

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/detail/kokkos_compat.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/device_top_k.hpp>
#include <kbt/sweep/detail/hoist_tiling.hpp>
#include <kbt/sweep/detail/hoisted_rows.hpp>
#include <kbt/sweep/detail/sweep_functor.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace kbt {

struct KernelSweepOptions {
  // Memory the sweep may use on its space (bytes); 0 = default_memory_budget.
  // Half of it bounds the hoisted series of a tile of windows
  // (hoist_tiling.hpp), a quarter the per-chunk scratch.
  std::size_t memory_budget_bytes = 0;
  // Upper bound on the per-chunk scratch (bytes); 0 = a quarter of the budget,
  // at most 512 MiB.
  std::size_t scratch_budget_bytes = 0;
  // Hoisted series resident at once (0 = derived from the budget). For tests.
  std::size_t hoist_rows = 0;
  // Fixed chunk size in combos (0 = derived from the budget). For tests.
  std::size_t chunk_combos = 0;
  // Bars per evaluation block (0 = the space's default, default_block_bars).
  // Results do not depend on it; it trades scratch memory for dispatch cost.
  int block_bars = 0;
  // Two combos per thread (1), one (0), or the space's default (-1,
  // default_pair_combos). Results do not depend on it.
  int pair_combos = -1;
};

// Host spaces pair combos (the metrics' division chains of two combos overlap
// in one core's pipeline); a GPU hides that latency across its warps already
// and keeps one combo per thread.
template <class ExecSpace>
int default_pair_combos() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible ? 1 : 0;
}

// 64 bars on host spaces (decode each instruction once per 64 bars, loops the
// compiler vectorises, scratch that stays in L1); 16 on a GPU, where dispatch
// is uniform across a warp and the scratch lives in global memory.
template <class ExecSpace>
int default_block_bars() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible ? 64 : 16;
}

namespace detail {

template <class T, class Space>
Kokkos::View<T*, Space> upload_1d(const std::vector<T>& host, const char* label) {
  Kokkos::View<T*, Space> dev(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), host.size());
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(host.data(), host.size());
  Kokkos::deep_copy(dev, src);
  return dev;
}

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

template <class Real, class Space>
Kokkos::View<Real*, Space> upload_column(const BarData& bars, const std::string& name, const char* label) {
  std::vector<Real> host(bars.n_symbols() * bars.n_bars(), Real(0));
  if (bars.has_column(name)) {
    const auto& col = bars.columns.at(name);
    for (std::size_t k = 0; k < host.size(); ++k) host[k] = static_cast<Real>(col[k]);
  }
  return upload_1d<Real, Space>(host, label);
}

inline std::vector<int> to_int(const std::vector<std::int32_t>& v) { return std::vector<int>(v.begin(), v.end()); }

}  // namespace detail

namespace detail {

// Per-combo scratch needs, fixed for a run.
struct ScratchShape {
  std::size_t cur_width = 1, ring = 1, state = 1, slots = 1, per_combo_bytes = 0;
};

// Uploads the program, the data and the plan's series: everything that does
// not depend on the combos.
template <class ExecSpace, class Real>
SweepFunctor<ExecSpace, Real> make_sweep_functor(const Program& program, const SweepPlan& plan,
                                                 const BarData& bars, const SimulationSettings& sim,
                                                 const KernelSweepOptions& options, ScratchShape& shape) {
  using Space = typename ExecSpace::memory_space;
  using Functor = SweepFunctor<ExecSpace, Real>;
  const std::size_t n_params = plan.n_params;
  const std::size_t n_sym = plan.n_symbols;

  Functor f;
  f.n_regs = static_cast<int>(plan.n_registers);
  f.n_sym = static_cast<int>(n_sym);
  f.n_bars = static_cast<int>(plan.n_bars);
  f.n_params = static_cast<int>(n_params);
  f.n_streamed = static_cast<int>(plan.streamed.size());
  f.n_hoisted = static_cast<int>(plan.hoisted_regs.size());
  f.position = program.position;
  f.long_entry = program.long_entry;
  f.long_exit = program.long_exit;
  f.short_entry = program.short_entry;
  f.short_exit = program.short_exit;
  f.position_form = program.form == StrategyOutputs::Form::position ? 1 : 0;

  f.code = detail::upload_1d<Instr, Space>(program.code, "kbt::code");
  std::vector<int> home(plan.home.size());
  for (std::size_t r = 0; r < home.size(); ++r) home[r] = static_cast<int>(plan.home[r]);
  f.home = detail::upload_1d<int, Space>(home, "kbt::home");
  f.home_index = detail::upload_1d<int, Space>(detail::to_int(plan.home_index), "kbt::home_index");
  f.ring_offset = detail::upload_1d<int, Space>(detail::to_int(plan.ring_offset), "kbt::ring_offset");
  f.ring_capacity = detail::upload_1d<int, Space>(detail::to_int(plan.ring_capacity), "kbt::ring_capacity");
  f.state_offset = detail::upload_1d<int, Space>(detail::to_int(plan.state_offset), "kbt::state_offset");
  f.streamed = detail::upload_1d<int, Space>(detail::to_int(plan.streamed), "kbt::streamed");
  {
    std::vector<int> stride(program.code.size());
    for (std::size_t r = 0; r < stride.size(); ++r) {
      const int frame = program.code[r].frame;
      stride[r] = static_cast<int>(plan.frame_bars[static_cast<std::size_t>(frame > 0 ? frame : 0)]);
    }
    f.stride = detail::upload_1d<int, Space>(stride, "kbt::stride");
    Kokkos::View<int**, Space> visible("kbt::frame_visible", plan.frame_visible.size(), plan.n_bars);
    auto hv = Kokkos::create_mirror_view(visible);
    for (std::size_t fr = 1; fr < plan.frame_visible.size(); ++fr)
      for (std::size_t b = 0; b < plan.n_bars; ++b) hv(fr, b) = static_cast<int>(plan.frame_visible[fr][b]);
    Kokkos::deep_copy(visible, hv);
    f.frame_visible = visible;
  }
  f.scans = detail::upload_1d<ScanProgram, Space>(program.scans, "kbt::scans");
  f.scan_tape = detail::upload_1d<Instr, Space>(program.scan_tape, "kbt::scan_tape");
  f.scan_refs = detail::upload_1d<int, Space>(detail::to_int(program.scan_refs), "kbt::scan_refs");
  f.scan_trigger = detail::upload_1d<int, Space>(detail::to_int(plan.scan_trigger), "kbt::scan_trigger");
  f.scan_state_offset = detail::upload_1d<int, Space>(detail::to_int(plan.scan_state_offset), "kbt::scan_state");
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
    f.scan_out_begin = detail::upload_1d<int, Space>(begin, "kbt::scan_out_begin");
    f.scan_out_regs = detail::upload_1d<int, Space>(regs, "kbt::scan_out_regs");
  }
  // Slots in `cur`: scalar and streamed registers only.
  std::vector<int> cur_slot(plan.n_registers, -1);
  int n_slots = 0;
  for (std::size_t r = 0; r < plan.n_registers; ++r)
    if (plan.home[r] == RegisterHome::scalar || plan.home[r] == RegisterHome::streamed) cur_slot[r] = n_slots++;
  f.cur_slot = detail::upload_1d<int, Space>(cur_slot, "kbt::cur_slot");
  f.block = options.block_bars > 0 ? options.block_bars : default_block_bars<ExecSpace>();

  const std::size_t width = n_sym * plan.n_bars;
  f.open = detail::upload_column<Real, Space>(bars, "open", "kbt::open");
  f.high = detail::upload_column<Real, Space>(bars, "high", "kbt::high");
  f.low = detail::upload_column<Real, Space>(bars, "low", "kbt::low");
  f.close = detail::upload_column<Real, Space>(bars, "close", "kbt::close");
  f.has_funding = bars.has_column("funding_rate") ? 1 : 0;
  f.funding = detail::upload_column<Real, Space>(bars, "funding_rate", "kbt::funding_rate");
  f.materialized = detail::upload_rows<Real, Space>(plan.materialized, width, "kbt::materialized");
  // f.hoisted: HoistedRows' rows, set per tile of windows.

  const std::vector<double> fees = resolve_fee_bps(bars, sim);
  std::vector<Real> fee_rate(fees.size());
  for (std::size_t s = 0; s < fees.size(); ++s) fee_rate[s] = static_cast<Real>(fees[s] / 10000.0);
  f.fee_rate = detail::upload_1d<Real, Space>(fee_rate, "kbt::fee_rate");

  const ScoringWindow window = resolve_scoring_window(bars, sim);
  const double ppy = resolve_periods_per_year(bars, sim);
  SweepSimSettings<Real>& ss = f.sim;
  ss.initial_capital = static_cast<Real>(sim.initial_capital);
  ss.slippage = static_cast<Real>(sim.slippage_bps / 10000.0);
  ss.borrow_per_bar = static_cast<Real>(sim.borrow_rate / ppy);
  ss.max_gross_leverage = static_cast<Real>(sim.max_gross_leverage);
  ss.periods_per_year = static_cast<Real>(ppy);
  ss.has_stop_loss = sim.stop_loss ? 1 : 0;
  ss.has_take_profit = sim.take_profit ? 1 : 0;
  ss.has_trailing_stop = sim.trailing_stop ? 1 : 0;
  ss.stop_loss = static_cast<Real>(sim.stop_loss.value_or(0.0));
  ss.take_profit = static_cast<Real>(sim.take_profit.value_or(0.0));
  ss.trailing_stop = static_cast<Real>(sim.trailing_stop.value_or(0.0));
  ss.fill_next_open = sim.fill == SimulationSettings::Fill::next_open ? 1 : 0;
  ss.weighting_equal = sim.weighting == SimulationSettings::Weighting::equal ? 1 : 0;
  ss.stop_first = sim.sltp_priority == SimulationSettings::SltpPriority::stop_first ? 1 : 0;
  ss.window_begin = static_cast<int>(window.begin);
  ss.window_end = static_cast<int>(window.end);
  if (ss.fill_next_open || ss.has_stop_loss || ss.has_take_profit || ss.has_trailing_stop)
    ss.portfolio_step = step_general;
  else
    ss.portfolio_step = ss.borrow_per_bar != Real(0) || f.has_funding ? step_close_fills_with_carry : step_close_fills;

  // Scratch per combo: registers, rings, states, scan slots, symbol states.
  // Each combo's scratch rows are padded to whole 64-byte cache lines: host
  // threads running neighbouring combos would otherwise write the same lines
  // (a 1-Real state row packs 8 combos into one line) and stall each other.
  const auto lines = [](std::size_t reals) {
    constexpr std::size_t per_line = 64 / sizeof(Real);
    return (std::max<std::size_t>(reals, 1) + per_line - 1) / per_line * per_line;
  };
  shape.cur_width = lines(static_cast<std::size_t>(n_slots) * n_sym * f.block);
  shape.ring = lines(plan.ring_size);
  shape.state = lines(plan.state_size);
  shape.slots = lines(plan.scan_slots);
  shape.per_combo_bytes = sizeof(Real) * (shape.cur_width + shape.ring + shape.state + shape.slots + 3) +
                          sizeof(SweepSymbolState<Real>) * n_sym;
  f.pair_combos = options.pair_combos >= 0 ? options.pair_combos : default_pair_combos<ExecSpace>();
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
    f.params = params;
    f.hoist_row = rows;
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
  if (f.cur.extent(0) < chunk) {
    f.cur = typename Functor::template V2<Real>("kbt::cur", chunk, shape.cur_width);
    f.ring = typename Functor::template V2<Real>("kbt::ring", chunk, shape.ring);
    f.state = typename Functor::template V2<Real>("kbt::state", chunk, shape.state);
    f.slots = typename Functor::template V2<Real>("kbt::slots", chunk, shape.slots);
    f.sym = typename Functor::SymbolStates(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::symbol_state")), chunk, f.n_sym);
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
    f.first = static_cast<long>(first);
    const std::size_t count = std::min(chunk, n_combos - first);
    f.chunk_count = static_cast<int>(count);
    // Dynamic schedule, one work item at a time: combos differ in cost (a
    // combo that trades often does more per bar), and a static split of a
    // grid in row order gives one host thread the expensive end of an axis.
    // GPUs ignore the schedule.
    Kokkos::parallel_for(
        "kbt::sweep",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(exec, 0, f.threads_for(static_cast<int>(count)),
                                                                          Kokkos::ChunkSize(1)),
        f);
  }
  exec.fence();
}

}  // namespace detail

// Top-K selected where the metrics are (device_top_k.hpp), for `kbt run`.
struct KernelTopKRequest {
  Objective objective;
  std::size_t k = 0;
  std::vector<std::uint64_t> combo_ids;  // [n_combos]: ties are broken by id
};
struct KernelSweepOutput {
  std::vector<double> metrics;     // [n_combos][n_metrics], row-major
  std::vector<std::size_t> top_k;  // rows, best first
  // Phases of this call (seconds, each fenced) and the kernel's memory.
  double seconds_upload = 0;    // the combos' params and hoisting rows, scratch
  double seconds_hoist = 0;     // fold kernels computing the hoisted series
  double seconds_kernel = 0;    // the sweep kernel
  double seconds_topk = 0;      // top-K selection on the space
  double seconds_download = 0;  // metrics and top-K rows to the host
  std::size_t kernel_bytes = 0; // every View of the kernel and its series after this call
  std::size_t hoist_tiles = 0;  // tiles of windows this call computed
};

// A sweep kernel set up once for a run — program, data, fold inputs uploaded,
// memory for the hoisted series allocated — that then simulates any number of
// combo lists (checkpoint chunks): per call only the combos' params, hoisting
// rows and metrics move, and the scratch is reused. It reads the SweepPlan it
// was made from: keep the plan alive while the runner is used.
class KernelSweepRunner {
 public:
  virtual ~KernelSweepRunner() = default;
  // combo_params: [n][n_params]; top_k.combo_ids: [n].
  virtual KernelSweepOutput run(const std::vector<double>& combo_params, const KernelTopKRequest& top_k) = 0;
  // Hoisted series resident at once and the tiles of windows the grid needs.
  virtual std::size_t hoist_rows() const = 0;
  virtual std::size_t hoist_tiles() const = 0;
  // Whether rows in grid order revisit tiles (HoistTiling::recomputes_along_rows).
  virtual bool hoist_recomputes_along_rows() const = 0;
};

// The memory a sweep on ExecSpace may use when the config does not say: on a
// GPU three quarters of its free memory; on the host half of the available
// memory, at most 2 GiB (1 GiB of hoisted series: every window of a 1,000-value
// axis over 100k bars stays resident, and the process stays under 2 GB).
std::size_t host_available_memory_bytes();
template <class ExecSpace>
std::size_t default_memory_budget() {
#ifdef KOKKOS_ENABLE_CUDA
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return free_bytes / 4 * 3;
  }
#endif
  return std::min<std::size_t>(std::size_t(2) << 30, host_available_memory_bytes() / 2);
}

template <class ExecSpace, class Real>
class KernelSweeper final : public KernelSweepRunner {
 public:
  using memory_space = typename ExecSpace::memory_space;

  KernelSweeper(const ExecSpace& exec, const Program& program, const SweepPlan& plan, const BarData& bars,
                const SimulationSettings& sim, const KernelSweepOptions& options = {})
      : exec_(exec), options_(options), plan_(plan) {
    const std::size_t budget = options.memory_budget_bytes ? options.memory_budget_bytes
                                                           : default_memory_budget<ExecSpace>();
    scratch_budget_ = options.scratch_budget_bytes ? options.scratch_budget_bytes
                                                   : std::min<std::size_t>(budget / 4, std::size_t(512) << 20);
    std::size_t rows = options.hoist_rows;
    if (rows == 0) {
      const std::size_t per_row = std::max<std::size_t>(HoistedRows<ExecSpace, Real>::bytes_per_row(plan_), 1);
      rows = budget / 2 / per_row;
      if (rows < plan_.hoisted_regs.size()) {  // in MiB: what the config sets
        const auto mib = [](double bytes) {
          char text[32];
          std::snprintf(text, sizeof text, "%.2f MiB", bytes / 1048576.0);
          return std::string(text);
        };
        throw Error(ErrorCategory::limit,
                    "memory budget of " + mib(static_cast<double>(budget)) + ": its half for hoisted series holds " +
                        std::to_string(rows) + " series of " + std::to_string(plan_.n_symbols) + " symbols x " +
                        std::to_string(plan_.n_bars) + " bars, and this strategy needs " +
                        std::to_string(plan_.hoisted_regs.size()) + " at a time (a budget of at least " +
                        mib(2.0 * static_cast<double>(per_row * plan_.hoisted_regs.size())) +
                        "): raise sweep.memory_budget_mb");
      }
    }
    tiling_ = std::make_unique<HoistTiling>(plan_, rows);
    rows_ = std::min(rows, std::max<std::size_t>(plan_.n_hoisted_series(), 1));
    hoisted_ = HoistedRows<ExecSpace, Real>(exec_, plan_, rows_);
    functor_ = detail::make_sweep_functor<ExecSpace, Real>(program, plan_, bars, sim, options, shape_);
    functor_.hoisted = hoisted_.rows();
  }

  // Simulates `combo_params` ([n][n_params]) and returns their metrics
  // [n][n_metrics] on the space (fenced). Combos are run tile by tile of
  // hoisted windows; the metrics come back in the given order.
  Kokkos::View<double**, memory_space> metrics_on_space(const std::vector<double>& combo_params,
                                                        KernelSweepOutput* phases = nullptr) {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    const std::size_t n_params = plan_.n_params, n_h = plan_.hoisted_regs.size();
    const std::size_t n = n_params == 0 ? (combo_params.empty() ? 1 : combo_params.size()) : combo_params.size() / n_params;
    // Each combo's tile and window indices; combos grouped by tile, in order.
    std::vector<std::size_t> tile(n), window_index(n * n_h);
    for (std::size_t c = 0; c < n; ++c)
      tile[c] = n_h == 0 ? 0 : tiling_->tile_of(combo_params.data() + c * n_params, window_index.data() + c * n_h);
    std::vector<std::size_t> order(n);
    for (std::size_t c = 0; c < n; ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return tile[x] < tile[y]; });
    const bool one_tile = n == 0 || tile[order.front()] == tile[order.back()];
    Kokkos::View<double**, memory_space> all;
    if (!one_tile) all = Kokkos::View<double**, memory_space>("kbt::metrics", n, n_metrics);
    for (std::size_t g0 = 0; g0 < n;) {
      std::size_t g1 = g0;
      while (g1 < n && tile[order[g1]] == tile[order[g0]]) ++g1;
      auto t = Clock::now();
      if (use_tile(tile[order[g0]]) && phases) ++phases->hoist_tiles;
      if (phases) phases->seconds_hoist += since(t);
      t = Clock::now();
      std::vector<double> params;
      std::vector<int> rows;
      params.reserve((g1 - g0) * n_params);
      rows.reserve((g1 - g0) * n_h);
      for (std::size_t j = g0; j < g1; ++j) {
        const std::size_t c = order[j];
        params.insert(params.end(), combo_params.begin() + static_cast<long>(c * n_params),
                      combo_params.begin() + static_cast<long>((c + 1) * n_params));
        append_rows(window_index.data() + c * n_h, rows);
      }
      std::size_t loaded = 0, chunk = 0;
      detail::load_combos(functor_, shape_, n_params, n_h, params, rows, scratch_budget_, options_, loaded, chunk);
      exec_.fence();
      if (phases) phases->seconds_upload += since(t);
      t = Clock::now();
      detail::launch_sweep(exec_, functor_, loaded, chunk);  // fences
      if (phases) phases->seconds_kernel += since(t);
      if (!one_tile) {
        std::vector<std::int64_t> index(order.begin() + static_cast<long>(g0), order.begin() + static_cast<long>(g1));
        const auto dev_index = detail::upload_1d<std::int64_t, memory_space>(index, "kbt::metric_rows");
        detail::ScatterMetricRows<ExecSpace> scatter{functor_.metrics, all, dev_index};
        Kokkos::parallel_for("kbt::sweep::scatter_metrics",
                             Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                                 exec_, 0, static_cast<std::int64_t>(g1 - g0)),
                             scatter);
        exec_.fence();
      }
      g0 = g1;
    }
    return one_tile ? functor_.metrics : all;
  }

  KernelSweepOutput run(const std::vector<double>& combo_params, const KernelTopKRequest& top_k) override {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    KernelSweepOutput out;
    const auto metrics = metrics_on_space(combo_params, &out);
    const std::size_t n_combos = metrics.extent(0);
    if (top_k.combo_ids.size() != n_combos)
      throw Error(ErrorCategory::internal, "top-K request: combo ids do not match the combos");
    auto t = Clock::now();
    const auto ids = detail::upload_1d<std::uint64_t, memory_space>(top_k.combo_ids, "kbt::combo_ids");
    const auto rows = select_top_k_on(exec_, metrics, ids, top_k.objective, top_k.k);  // fences
    out.seconds_topk = since(t);
    t = Clock::now();
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), metrics);
    out.metrics.resize(n_combos * n_metrics);
    for (std::size_t c = 0; c < n_combos; ++c)
      for (std::size_t m = 0; m < n_metrics; ++m) out.metrics[c * n_metrics + m] = host(c, m);
    auto host_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
    for (std::size_t j = 0; j < host_rows.extent(0); ++j) out.top_k.push_back(static_cast<std::size_t>(host_rows(j)));
    out.seconds_download = since(t);
    out.kernel_bytes = functor_.bytes() + hoisted_.bytes() - functor_.hoisted.span() * sizeof(Real);
    return out;
  }

  // The series of register `reg` for one combo, [n_symbols][n_bars] on the
  // space, by the sweep kernel's in-thread evaluator (no simulation).
  Kokkos::View<Real**, memory_space> evaluate_on_space(const std::vector<double>& params, int reg) {
    const std::size_t n_h = plan_.hoisted_regs.size();
    std::vector<std::size_t> window_index(n_h);
    use_tile(n_h == 0 ? 0 : tiling_->tile_of(params.data(), window_index.data()));
    std::vector<int> rows;
    append_rows(window_index.data(), rows);
    KernelSweepOptions one = options_;
    one.chunk_combos = 1;
    std::size_t loaded = 0, chunk = 0;
    detail::load_combos(functor_, shape_, plan_.n_params, n_h, params, rows, scratch_budget_, one, loaded, chunk);
    auto f = functor_;
    f.first = 0;
    f.chunk_count = 1;
    f.emit_register = reg;
    f.emitted = typename SweepFunctor<ExecSpace, Real>::template V2<Real>("kbt::emitted", plan_.n_symbols, plan_.n_bars);
    Kokkos::parallel_for("kbt::evaluate", Kokkos::RangePolicy<ExecSpace>(exec_, 0, 1), f);
    exec_.fence();
    return f.emitted;
  }

  std::size_t hoist_rows() const override { return rows_; }
  std::size_t hoist_tiles() const override { return tiling_->n_tiles(); }
  bool hoist_recomputes_along_rows() const override { return tiling_->recomputes_along_rows(); }

 private:
  // Makes tile `t`'s series resident (fenced); true when they had to be computed.
  bool use_tile(std::size_t t) {
    if (computed_ && current_tile_ == t) return false;
    hoisted_.compute(tiling_->tile(t));
    current_tile_ = t;
    computed_ = true;
    return true;
  }
  // A combo's rows of the resident tile, from its window indices (one per hoisted register).
  void append_rows(const std::size_t* window_index, std::vector<int>& rows) const {
    for (std::size_t h = 0; h < plan_.hoisted_regs.size(); ++h) rows.push_back(hoisted_.row(h, window_index[h]));
  }

  ExecSpace exec_;
  KernelSweepOptions options_;
  const SweepPlan& plan_;  // the caller keeps the plan alive while the sweeper runs
  std::size_t scratch_budget_ = 0, rows_ = 0;
  std::unique_ptr<HoistTiling> tiling_;
  HoistedRows<ExecSpace, Real> hoisted_;
  bool computed_ = false;
  std::size_t current_tile_ = 0;
  detail::ScratchShape shape_;
  SweepFunctor<ExecSpace, Real> functor_;
};

// Simulates every combo of `combo_params` ([n_combos][n_params], row-major, in
// Program::param_names order) on `exec` and returns their metrics
// [n_combos][n_metrics] in `exec`'s memory space (fenced: ready to read).
// `sim` must have periods_per_year resolved (resolve_periods_per_year).
template <class ExecSpace, class Real>
Kokkos::View<double**, typename ExecSpace::memory_space> sweep_metrics_on(
    const ExecSpace& exec, const Program& program, const SweepPlan& plan, const BarData& bars,
    const SimulationSettings& sim, const std::vector<double>& combo_params, const KernelSweepOptions& options = {}) {
  KernelSweeper<ExecSpace, Real> sweeper(exec, program, plan, bars, sim, options);
  return sweeper.metrics_on_space(combo_params);
}

// The same, with the metrics copied to the host, row-major.
template <class ExecSpace, class Real>
std::vector<double> run_sweep_kernel(const ExecSpace& exec, const Program& program, const SweepPlan& plan,
                                     const BarData& bars, const SimulationSettings& sim,
                                     const std::vector<double>& combo_params,
                                     const KernelSweepOptions& options = {}) {
  const auto metrics = sweep_metrics_on<ExecSpace, Real>(exec, program, plan, bars, sim, combo_params, options);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), metrics);
  const std::size_t n_combos = metrics.extent(0);
  std::vector<double> out(n_combos * n_metrics);
  for (std::size_t c = 0; c < n_combos; ++c)
    for (std::size_t m = 0; m < n_metrics; ++m) out[c * n_metrics + m] = host(c, m);
  return out;
}

// The series of register `reg` (e.g. Program::expression) for one combo,
// [n_symbols * n_bars] symbol-major, evaluated by the sweep kernel's in-thread
// evaluator on `exec` (`kbt eval --device`).
template <class ExecSpace, class Real>
std::vector<double> evaluate_register_kernel(const ExecSpace& exec, const Program& program, const SweepPlan& plan,
                                             const BarData& bars, const std::vector<double>& params, int reg) {
  SimulationSettings sim;
  sim.periods_per_year = 1.0;  // unused: no simulation
  KernelSweeper<ExecSpace, Real> sweeper(exec, program, plan, bars, sim);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sweeper.evaluate_on_space(params, reg));
  std::vector<double> out(plan.n_symbols * plan.n_bars);
  for (std::size_t s = 0; s < plan.n_symbols; ++s)
    for (std::size_t b = 0; b < plan.n_bars; ++b) out[s * plan.n_bars + b] = static_cast<double>(host(s, b));
  return out;
}

// Dispatch by device name ("serial", "openmp", "cuda") and precision.
std::vector<double> run_sweep_kernel_on(const std::string& device, bool fp32, const Program& program,
                                        const SweepPlan& plan, const BarData& bars, const SimulationSettings& sim,
                                        const std::vector<double>& combo_params,
                                        const KernelSweepOptions& options = {});
// A KernelSweeper for the space named `device` ("serial", "openmp", "cuda").
std::unique_ptr<KernelSweepRunner> make_kernel_sweep_runner(const std::string& device, bool fp32,
                                                           const Program& program, const SweepPlan& plan,
                                                           const BarData& bars, const SimulationSettings& sim,
                                                           const KernelSweepOptions& options = {});
KernelSweepOutput run_sweep_kernel_with_top_k_on(const std::string& device, bool fp32, const Program& program,
                                                 const SweepPlan& plan, const BarData& bars,
                                                 const SimulationSettings& sim,
                                                 const std::vector<double>& combo_params,
                                                 const KernelTopKRequest& top_k,
                                                 const KernelSweepOptions& options = {});
std::vector<double> evaluate_register_kernel_on(const std::string& device, bool fp32, const Program& program,
                                                const SweepPlan& plan, const BarData& bars,
                                                const std::vector<double>& params, int reg);

}  // namespace kbt
