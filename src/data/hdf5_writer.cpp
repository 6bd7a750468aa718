// Writing the docs/data-format.md HDF5 layout. Reproducible: no object timestamps, fixed
// chunking and filters, fixed-length strings (no global heap), so equal
// content gives equal bytes with the same HDF5 version.

#include <kbt/core/atomic_output.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>

#include "data/hdf5_support.hpp"

namespace kbt {
namespace {

using detail::H5Id;

class Hdf5Writer {
 public:
  Hdf5Writer(const std::string& temp_path, const std::string& final_path) : final_(final_path) {
    file_ = H5Id(H5Fcreate(temp_path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) throw Error(ErrorCategory::io, "cannot create '" + final_path + "' (HDF5 create failed)");
  }

  void check(herr_t status, const std::string& what) const {
    if (status < 0) throw Error(ErrorCategory::io, final_ + ": writing " + what + " failed");
  }

  void group(const std::string& name) {
    H5Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    check(H5Pset_obj_track_times(gcpl.get(), 0), name);
    H5Id g(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose);
    if (!g.valid()) check(-1, name);
  }

  void int64_1d(const std::string& name, const std::vector<std::int64_t>& v) {
    detail::write_numeric_dataset(file_, name, H5T_STD_I64LE, H5T_NATIVE_INT64, {v.size()}, v.data(), final_);
  }
  void float64(const std::string& name, const std::vector<hsize_t>& dims, const double* v) {
    detail::write_numeric_dataset(file_, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, v, final_);
  }
  void strings(const std::string& name, const std::vector<std::string>& v) {
    detail::write_string_dataset(file_, name, v, final_);
  }

  void close() { check(file_.close(), "the file"); }

 private:
  std::string final_;
  H5Id file_;
};

}  // namespace

void write_bars_hdf5(const BarData& bars, const std::map<std::string, ExoSeries>& exo, const std::string& path) {
  validate_market_data(bars, exo, path);
  detail::SilenceHdf5Errors quiet;
  AtomicOutput out(path);
  {
    Hdf5Writer w(out.temp_path(), path);
    w.int64_1d("/timestamps", bars.timestamps);
    w.strings("/symbols", bars.symbols);
    if (!bars.venues.empty()) w.strings("/venues", bars.venues);
    w.group("/bars");
    const std::vector<hsize_t> dims{bars.n_symbols(), bars.n_bars()};
    // Required columns first, then the rest by name (file layout order).
    for (const auto& name : required_bar_columns()) w.float64("/bars/" + name, dims, bars.columns.at(name).data());
    for (const auto& [name, values] : bars.columns) {
      const auto& req = required_bar_columns();
      if (std::find(req.begin(), req.end(), name) != req.end()) continue;
      w.float64("/bars/" + name, dims, values.data());
    }
    if (!exo.empty()) {
      w.group("/exo");
      for (const auto& [name, series] : exo) {
        w.group("/exo/" + name);
        w.int64_1d("/exo/" + name + "/timestamps", series.timestamps);
        w.float64("/exo/" + name + "/values", {series.values.size()}, series.values.data());
      }
    }
    w.close();
  }
  out.commit();
}

}  // namespace kbt
