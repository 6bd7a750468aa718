#pragma once
// The reference portfolio simulator (docs/semantics.md): plain sequential host code, the
// source of truth every sweep kernel must reproduce bit for bit in fp64.
// The exact semantics are in docs/semantics.md, the metrics in docs/metrics.md.

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/lang/strategy_outputs.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

enum class ExitReason { signal, stop_loss, take_profit, trailing_stop, end_of_data, ruin };

// Stable lower-case name ("signal", "stop_loss", ...).
const char* to_string(ExitReason reason) noexcept;

// One round trip: from the fill that opens a position until the fill that
// closes or reverses it (resizing fills in between belong to the trade).
struct Trade {
  std::size_t symbol = 0;        // index into BarData::symbols
  int side = 0;                  // +1 long, -1 short
  std::size_t entry_bar = 0;     // bar of the opening fill
  std::size_t exit_bar = 0;      // bar of the closing fill (end_of_data: last window bar)
  double entry_price = 0;        // executed price of the opening fill (slippage included)
  double exit_price = 0;         // executed price of the closing fill; end_of_data: the mark
  double units = 0;              // signed units of the opening fill
  double pnl = 0;                // sum of the trade's cash flows (currency), costs included
  double trade_return = 0;       // pnl / (|units| * entry_price)
  double fees = 0;               // fees of all the trade's fills
  double funding = 0;            // funding charged while open (positive = paid)
  double borrow = 0;             // borrow charged while open
  ExitReason exit_reason = ExitReason::signal;
};

struct SimulationOptions {
  bool keep_ledger = false;  // fill SimulationResult::trades
  bool keep_equity = false;  // fill SimulationResult::equity
  // Optional end of the scoring window (exclusive; ScoreEnd), for the overload
  // that resolves the settings; a ResolvedSimulation has its window already.
  std::optional<std::int64_t> score_end_bar;
  std::optional<std::int64_t> score_end_time_ns;
};

struct SimulationResult {
  MetricRow metrics{};           // kbt::Metric order
  ScoringWindow window;          // the bars simulated and scored
  double periods_per_year = 0;   // as given or inferred
  std::string periods_per_year_source;  // ResolvedSimulation::periods_per_year_source
  std::vector<Trade> trades;     // keep_ledger: in the order they closed
  std::vector<double> equity;    // keep_equity: equity at the close of each window bar
  std::vector<double> cash;      // keep_equity: cash at the close of each window bar
  std::vector<double> units;     // keep_equity: units held at each close, [bar * n_symbols + symbol]
  // keep_equity: the open trades' PnL at each close, summed over symbols in
  // symbol order: each trade's cash flows so far (fills with fees and
  // slippage, borrow, funding) + units * mark.
  std::vector<double> open_pnl;
  // The window bar (an index of the data) whose close found the equity <= 0,
  // and that equity before the floor to 0: the account was ruined there and
  // halted (docs/semantics.md "Ruin"). Empty when it was not.
  std::optional<std::size_t> ruin_bar;
  double ruin_equity = 0;
};

// Simulates one strategy output on `bars` and reduces it to the 21 metrics.
// Throws kbt::Error(config) for invalid settings, kbt::Error(internal) when the
// signals do not match the data's shape.
SimulationResult simulate_reference(const BarData& bars, const SimulationSettings& sim,
                                    const StrategyOutputs& signals,
                                    const SimulationOptions& opts = {});

// The same with the settings resolved once by the caller (resolve_simulation),
// as a sweep does for every combo. `opts` must not set a score end.
SimulationResult simulate_reference(const BarData& bars, const ResolvedSimulation& sim,
                                    const StrategyOutputs& signals,
                                    const SimulationOptions& opts = {});

}  // namespace kbt
