// A labelling job's files. HDF5 layout (docs/results.md "Label files"):
//   /timestamps               int64   [bars]        ns since the epoch, UTC
//   /symbols                  string  [symbols]
//   /settings/profit_take     float64 [S]
//   /settings/stop            float64 [S]
//   /settings/horizon         int64   [S]
//   /series/volatility        float64 [symbols][bars]
//   /series/side              float64 [symbols][bars]
//   /labels/label             int8    [S][symbols][bars]
//   /labels/barrier           int8    [S][symbols][bars]
//   /labels/touch_bar         int64   [S][symbols][bars]
//   /labels/ret               float64 [S][symbols][bars]
//   /config                   string  the YAML as run
//   /profile                  group; one attribute per profile entry
// Root attributes: kbt_version, job = "label", complete = 1 (written last).

#include <hdf5.h>
#include <kbt/core/error.hpp>
#include <kbt/core/version.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/output/labels.hpp>

#include <fstream>

#include "config/number_text.hpp"
#include "output/results_io.hpp"

namespace kbt {

const char* barrier_name(std::int8_t barrier) {
  switch (barrier) {
    case detail::barrier_profit: return "profit";
    case detail::barrier_stop: return "stop";
    case detail::barrier_vertical: return "vertical";
    default: return "none";
  }
}

std::string labels_csv_path_for(const std::string& h5_path) { return companion_path(h5_path, "_labels.csv"); }

void write_labels_hdf5(AtomicOutput& out, const BarData& bars, const LabelJobResult& r,
                       const std::string& config_yaml, const RunProfile& profile) {
  const std::string& path = out.final_path();
  detail::ensure_parent_directory(path);
  detail::SilenceHdf5Errors quiet;
  const hsize_t ns = bars.n_symbols(), nb = bars.n_bars(), S = r.settings.size();
  std::vector<double> pt, sl;
  std::vector<std::int64_t> h;
  for (const auto& s : r.settings) pt.push_back(s.profit_take), sl.push_back(s.stop), h.push_back(s.horizon);
  {
    detail::H5Id file(detail::checked_create(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                                     "file", path),
              H5Fclose);
    detail::write_described(file, {nb},
                    {"timestamps", detail::ColumnType::int64, bars.timestamps.data(),
                     "bar times, the labels' last axis", "ns since 1970-01-01 UTC"},
                    path);
    detail::write_string_dataset(file, "symbols", bars.symbols, path);
    detail::make_group(file, "settings", path);
    detail::write_described(file, {S},
                    {"settings/profit_take", detail::ColumnType::float64, pt.data(),
                     "profit barrier at this multiple of the event's volatility (0: none)", "volatility multiple"},
                    path);
    detail::write_described(file, {S},
                    {"settings/stop", detail::ColumnType::float64, sl.data(),
                     "stop barrier at this multiple of the event's volatility (0: none)", "volatility multiple"},
                    path);
    detail::write_described(file, {S},
                    {"settings/horizon", detail::ColumnType::int64, h.data(),
                     "vertical barrier: bars after the event", "bars"},
                    path);
    detail::make_group(file, "series", path);
    detail::write_described(file, {ns, nb},
                    {"series/volatility", detail::ColumnType::float64, r.volatility.data(),
                     "label.volatility: the barrier width per bar", "return fraction"},
                    path);
    detail::write_described(file, {ns, nb},
                    {"series/side", detail::ColumnType::float64, r.side.data(),
                     "the side each bar was labelled with (label.side, else 1; NaN: label.events false)",
                     "+1 long / -1 short"},
                    path);
    detail::make_group(file, "labels", path);
    const std::vector<hsize_t> dims{S, ns, nb};
    detail::write_described(file, dims,
                    {"labels/label", detail::ColumnType::int8, r.labels.label.data(),
                     "+1 profit barrier first, -1 stop barrier first, 0 vertical barrier or no event", "label"},
                    path);
    detail::write_described(file, dims,
                    {"labels/barrier", detail::ColumnType::int8, r.labels.barrier.data(),
                     "the barrier touched first: 0 none (no event), 1 profit, 2 stop, 3 vertical", "code"},
                    path);
    detail::write_described(file, dims,
                    {"labels/touch_bar", detail::ColumnType::int64, r.labels.touch_bar.data(),
                     "the bar of the first touch (-1: no event)", "bar index"},
                    path);
    detail::write_described(file, dims,
                    {"labels/ret", detail::ColumnType::float64, r.labels.ret.data(),
                     "side * (exit price / event close - 1) (NaN: no event)", "return fraction"},
                    path);
    detail::finish_job_file(file, "label", config_yaml, profile, path);
    detail::check_write(file.close(), "file", path);
  }
}

void write_labels_csv(AtomicOutput& out, const BarData& bars, const LabelJobResult& r) {
  const std::string& path = out.final_path();
  detail::ensure_parent_directory(path);
  std::ofstream csv(out.temp_path());
  if (!csv) throw Error(ErrorCategory::io, path + ": cannot write the labels CSV");
  const std::size_t ns = bars.n_symbols(), nb = bars.n_bars(), n = ns * nb;
  using detail::format_number;
  csv << "setting,profit_take,stop,horizon,symbol,time,side,volatility,label,barrier,touch_time,touch_bar,ret\n";
  for (std::size_t s = 0; s < r.settings.size(); ++s) {
    const BarrierSetting& set = r.settings[s];
    const std::string head = std::to_string(s) + ',' + format_number(set.profit_take) + ',' + format_number(set.stop) +
                             ',' + std::to_string(set.horizon) + ',';
    for (std::size_t y = 0; y < ns; ++y)
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t i = s * n + y * nb + b;
        if (r.labels.barrier[i] == detail::barrier_none) continue;
        const auto touch = static_cast<std::size_t>(r.labels.touch_bar[i]);
        csv << head << bars.symbols[y] << ',' << format_iso8601_utc(bars.timestamps[b]) << ','
            << format_number(r.side[y * nb + b]) << ',' << format_number(r.volatility[y * nb + b]) << ','
            << int(r.labels.label[i]) << ',' << barrier_name(r.labels.barrier[i]) << ','
            << format_iso8601_utc(bars.timestamps[touch]) << ',' << touch << ',' << format_number(r.labels.ret[i])
            << '\n';
      }
  }
  if (!csv.flush()) throw Error(ErrorCategory::io, path + ": cannot write the labels CSV");
  csv.close();
  if (csv.fail()) throw Error(ErrorCategory::io, path + ": cannot write the labels CSV");
}

}  // namespace kbt
