#pragma once
// Unit conversions of the simulation settings (docs/semantics.md "Settings"),
// in one place for the host resolution and the kernels' swept settings, so
// that both make the same bits.

#include <Kokkos_Core.hpp>

namespace kbt {

// Basis points (fee_bps, slippage_bps) to a fraction of notional or price.
KOKKOS_INLINE_FUNCTION double fraction_of_bps(double bps) { return bps / 10000.0; }

}  // namespace kbt
