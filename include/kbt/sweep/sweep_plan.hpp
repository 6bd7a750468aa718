#pragma once
// Host-side preparation of a Kokkos sweep (SPEC §6): which register of the
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

#include <kbt/bar_data.hpp>
#include <kbt/lang/program.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

enum class RegisterHome : std::int32_t { scalar = 0, materialized = 1, hoisted = 2, streamed = 3 };

struct SweepPlan {
  std::size_t n_symbols = 0, n_bars = 0, n_registers = 0, n_params = 0;

  // Per register: where it lives and its index there (materialized: row of
  // `materialized`; hoisted: index into `hoisted_regs`; others: unused).
  std::vector<RegisterHome> home;
  std::vector<std::int32_t> home_index;

  // Param-free series [n_materialized][n_symbols * n_bars], symbol-major.
  std::vector<std::vector<double>> materialized;

  // Hoisted registers: for hoisted register k, its distinct window values
  // (ascending) and the first row of its series in `hoisted_series`.
  std::vector<std::int32_t> hoisted_regs;
  std::vector<std::vector<std::int64_t>> hoisted_windows;
  std::vector<std::int32_t> hoisted_first_row;
  std::vector<std::vector<double>> hoisted_series;  // [n_rows][n_symbols * n_bars]

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

  // Bytes of series resident on the device.
  std::size_t series_bytes(std::size_t real_size) const {
    return (materialized.size() + hoisted_series.size()) * n_symbols * n_bars * real_size;
  }
};

// Why a program cannot run in the sweep kernel, as a stable `unsupported:<reason>`
// string, or nothing when it can.
std::optional<std::string> sweep_kernel_unsupported(const Program& program);

// Classifies every register and computes the materialized and hoisted series on
// the host with the reference evaluator. `param_axes` gives each param's values
// (Program::param_axes).
SweepPlan make_sweep_plan(const Program& program, const BarData& bars);

}  // namespace kbt
