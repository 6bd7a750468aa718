#pragma once
// Runs a market-data read in a forked child process (internal; the switch is
// kbt::set_hdf5_read_isolation). libhdf5 may crash on a corrupt file; the
// child dies instead of kbt, and the caller gets kbt::Error(data_format)
// naming the file and the signal. Errors the read throws come back with their
// category and message unchanged; data comes back bit for bit.

#include <kbt/data_io.hpp>

#include <functional>
#include <string>

namespace kbt::detail {

// `read` runs in the child (or here, under Hdf5ReadIsolation::in_process or
// where fork is unavailable). `path` only names the file in messages.
MarketData read_isolated(const std::string& path, const std::function<MarketData()>& read);

}  // namespace kbt::detail
