#pragma once
// Runs a market-data read in a forked child process (internal; the switch is
// kbt::set_hdf5_read_isolation). libhdf5 may crash on a corrupt file; the
// child dies instead of kbt, and the caller gets kbt::Error(data_format)
// naming the file and the signal. Errors the read throws come back with their
// category and message unchanged; data comes back bit for bit.

#include <kbt/data/data_io.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kbt::detail {

// Where a reader puts what it has read and validated, part by part: in the
// reader process each part is sent to kbt at once (overlapping the transfer
// with the rest of the read, and holding one column at a time), in process
// it is collected.
class MarketDataSink {
 public:
  virtual ~MarketDataSink() = default;
  virtual void bars_axis(std::vector<std::int64_t> timestamps, std::vector<std::string> symbols,
                         std::vector<std::string> venues) = 0;
  virtual void column(const std::string& name, std::vector<double> values) = 0;
  virtual void exo(std::map<std::string, ExoSeries> series) = 0;
};

// `read` runs in the child (or here, under Hdf5ReadIsolation::in_process or
// where fork is unavailable). `path` only names the file in messages.
MarketData read_isolated(const std::string& path, const std::function<void(MarketDataSink&)>& read);

}  // namespace kbt::detail
