#pragma once
// Host-side preparation of a Kokkos sweep (docs/sweep.md): which register of the
// compiled Program lives where during the sweep kernel.
//
//   scalar        one value per combo, evaluated in-thread before the bar loop
//   materialized  a param-free series, computed once per run, read by index
//   hoisted       a param-free windowed op whose window is a param: one series
//                 per distinct window value, selected per combo
//   streamed      depends on the combo: evaluated in-thread bar by bar, with
//                 per-thread ring buffers and recurrence state
//
// docs/sweep.md explains the layout; nothing here is per combo per bar.

#include <kbt/data/bar_data.hpp>
#include <kbt/kernels/fold_request.hpp>
#include <kbt/lang/program.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

// `fused`: a streamed comparison evaluated inside the `where` that reads it,
// never stored (set by the sweep functor's setup, never by make_sweep_plan;
// sweep/fused_selects.hpp).
enum class RegisterHome : std::int32_t { scalar = 0, materialized = 1, hoisted = 2, streamed = 3, fused = 4 };

struct SweepPlan {
  std::size_t n_symbols = 0, n_bars = 0, n_registers = 0, n_params = 0;

  // Per register: where it lives and its index there (materialized: row of
  // `materialized`; hoisted: index into `hoisted_regs`; others: unused).
  std::vector<RegisterHome> home;
  std::vector<std::int32_t> home_index;

  // Param-free series [n_materialized][n_symbols * n_bars], symbol-major.
  std::vector<std::vector<double>> materialized;

  // Hoisted registers: for hoisted register k, the param holding its window,
  // its distinct window values (ascending), the fold stage that computes it and,
  // per window value, the fold request of its series. The series themselves are
  // computed by the fold kernels on the sweep's own execution space
  // (sweep/hoisted_rows.hpp), a tile of windows at a time when they do not
  // all fit the memory budget (sweep/hoist_tiling.hpp).
  std::vector<std::int32_t> hoisted_regs;
  // Its window: a param index (WindowKind::param), or the scalar register of a
  // window expression (WindowKind::scalar), evaluated per combo from
  // `window_code`, the program's instructions.
  std::vector<WindowKind> hoisted_window_kind;
  std::vector<std::int32_t> hoisted_window_param;
  std::vector<Instr> window_code;
  std::vector<std::vector<std::int64_t>> hoisted_windows;
  std::vector<std::int32_t> hoisted_stage;
  std::vector<std::vector<kernels::FoldRequest>> hoisted_requests;

  // A fold stage's inputs: param-free series computed once on the host,
  // [n_inputs][n_symbols * stage_bars], and the bars of its timeframe.
  struct FoldStage {
    std::int32_t frame = 0;
    std::size_t n_bars = 0;
    std::vector<std::vector<double>> inputs;
  };
  std::vector<FoldStage> fold_stages;

  // Streamed registers in program order, and per register its per-thread
  // ring-buffer slice (offset, capacity per symbol) and recurrence-state slice.
  std::vector<std::int32_t> streamed;
  std::vector<std::int32_t> ring_offset, ring_capacity;  // [n_registers], -1 when none
  std::vector<std::int32_t> state_offset;                // [n_registers], -1 when none
  std::size_t ring_size = 0;   // Reals per thread (all symbols)
  std::size_t state_size = 0;  // Reals per thread (all symbols)
  // Scans evaluated in-thread: the streamed register that triggers each scan's
  // step (-1: the scan is param-free and materialized), state slice and tape size.
  std::vector<std::int32_t> scan_trigger;
  std::vector<std::int32_t> scan_state_offset;
  std::size_t scan_slots = 0;  // longest tape

  // Higher timeframes: bars per frame (frame 0 = base) and, per frame, the htf
  // bar visible at each base bar (-1 when none is complete), [n_frames][n_bars].
  std::vector<std::int64_t> frame_bars;
  std::vector<std::vector<std::int64_t>> frame_visible;

  // Hoisted series over the whole grid (one per hoisted register and window value).
  std::size_t n_hoisted_series() const {
    std::size_t n = 0;
    for (const auto& w : hoisted_windows) n += w.size();
    return n;
  }
  // Bytes of every materialized and hoisted series, were they all resident at once.
  std::size_t series_bytes(std::size_t real_size) const {
    return (materialized.size() + n_hoisted_series()) * n_symbols * n_bars * real_size;
  }
};

// Why a program cannot run in the sweep kernel, as a stable `unsupported:<reason>`
// string, or nothing when it can.
std::optional<std::string> sweep_kernel_unsupported(const Program& program);

// Classifies every register, computes the materialized series and the inputs of
// the hoisted folds on the host with the reference evaluator, and lists the fold
// requests of every hoisted series (computed later, on the sweep's space).
SweepPlan make_sweep_plan(const Program& program, const BarData& bars);

}  // namespace kbt
