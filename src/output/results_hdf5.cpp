// Results HDF5 writer. Layout (docs/results.md):
//   /combo_id            uint64  [n]
//   /params/<name>       float64 [n]   (group attribute `order`: names in declaration order)
//   /metrics/<name>      float64 [n]
//   /topk/row            uint64  [k]   rows of the datasets above, best first
//   /topk/combo_id       uint64  [k]
//   /topk/metrics/<name> float64 [k]
//   /topk/params/<name>  float64 [k]
//   /config              string        the YAML as run
//   /profile             group; one attribute per profile entry
//   /verify              group, optional: the verification stage (docs/verify.md)
// Root attributes: kbt_version, complete = 1 (written last).

#include <hdf5.h>
#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>
#include <kbt/core/version.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "data/hdf5_support.hpp"

namespace kbt {
namespace {

using detail::H5Id;

void check(herr_t status, const std::string& what, const std::string& path) {
  if (status < 0) throw Error(ErrorCategory::io, path + ": cannot write " + what);
}

hid_t checked(hid_t id, const std::string& what, const std::string& path) {
  if (id < 0) throw Error(ErrorCategory::io, path + ": cannot create " + what);
  return id;
}

void write_1d(hid_t parent, const std::string& name, hid_t mem_type, const void* data,
              std::size_t n, const std::string& path) {
  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  H5Id space(checked(H5Screate_simple(1, dims, nullptr), "dataspace", path), H5Sclose);
  H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl, 0);
  if (n >= 4096) {
    const hsize_t chunk[1] = {std::min<hsize_t>(n, 65536)};
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
  }
  H5Id set(checked(H5Dcreate2(parent, name.c_str(), mem_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                   "dataset " + name, path),
           H5Dclose);
  if (n > 0) check(H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "dataset " + name, path);
}

void write_string(hid_t parent, const std::string& name, const std::string& value, const std::string& path,
                  bool as_attribute) {
  H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, std::max<std::size_t>(value.size(), 1));
  H5Tset_cset(type, H5T_CSET_UTF8);
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  if (as_attribute) {
    H5Id attr(checked(H5Acreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                      "attribute " + name, path),
              H5Aclose);
    check(H5Awrite(attr, type, value.c_str()), "attribute " + name, path);
  } else {
    H5Id set(checked(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     "dataset " + name, path),
             H5Dclose);
    check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, value.c_str()), "dataset " + name, path);
  }
}

void write_number_attribute(hid_t parent, const std::string& name, double value, const std::string& path) {
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id attr(checked(H5Acreate2(parent, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT),
                    "attribute " + name, path),
            H5Aclose);
  check(H5Awrite(attr, H5T_NATIVE_DOUBLE, &value), "attribute " + name, path);
}

H5Id make_group(hid_t parent, const std::string& name, const std::string& path) {
  return H5Id(checked(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      "group " + name, path),
              H5Gclose);
}

void ensure_parent_directory(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot create directory '" + parent.string() + "': " + ec.message());
}

// Column `col` of a row-major [rows][stride] matrix, restricted to `rows`.
template <class Rows>
std::vector<double> column(const std::vector<double>& m, std::size_t stride, std::size_t col, const Rows& rows) {
  std::vector<double> out;
  out.reserve(rows.size());
  for (auto r : rows) out.push_back(m[r * stride + col]);
  return out;
}

// /verify: the verification table, in candidate (sweep rank) order.
void write_verify_group(hid_t file, const SweepResults& results, const VerificationResults& v,
                        const std::string& path) {
  const std::size_t n = v.n();
  if (v.rows.size() != n || v.rank_before.size() != n || v.rank_after.size() != n || v.mismatch.size() != n ||
      v.rank_moved.size() != n || v.metrics.size() != n * n_metrics)
    throw Error(ErrorCategory::internal, path + ": verification table columns differ in length");
  H5Id g = make_group(file, "verify", path);
  write_1d(g, "row", H5T_NATIVE_UINT64, v.rows.data(), n, path);
  write_1d(g, "combo_id", H5T_NATIVE_UINT64, v.combo_ids.data(), n, path);
  write_1d(g, "rank_before", H5T_NATIVE_UINT64, v.rank_before.data(), n, path);
  write_1d(g, "rank_after", H5T_NATIVE_UINT64, v.rank_after.data(), n, path);
  write_1d(g, "mismatch", H5T_NATIVE_UINT8, v.mismatch.data(), n, path);
  write_1d(g, "rank_moved", H5T_NATIVE_UINT8, v.rank_moved.data(), n, path);
  {
    H5Id gm = make_group(g, "metrics", path);
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    for (std::size_t m = 0; m < n_metrics; ++m) {
      const auto col = column(v.metrics, n_metrics, m, all);
      write_1d(gm, metric_names()[m], H5T_NATIVE_DOUBLE, col.data(), n, path);
    }
  }
  {
    H5Id gp = make_group(g, "params", path);
    const std::size_t n_params = results.param_names.size();
    for (auto r : v.rows)
      if (r >= results.n_rows()) throw Error(ErrorCategory::internal, path + ": verification row past the end");
    for (std::size_t p = 0; p < n_params; ++p) {
      const auto col = column(results.params, n_params, p, v.rows);
      write_1d(gp, results.param_names[p], H5T_NATIVE_DOUBLE, col.data(), n, path);
    }
  }
  write_string(g, "window", v.window, path, true);
  write_number_attribute(g, "window_begin", static_cast<double>(v.window_begin), path);
  write_number_attribute(g, "window_end", static_cast<double>(v.window_end), path);
  write_number_attribute(g, "same_window", v.same_window ? 1.0 : 0.0, path);
  write_string(g, "objective", v.objective.metric, path, true);
  write_string(g, "direction", v.objective.maximize ? "max" : "min", path, true);
  write_number_attribute(g, "min_trades", v.objective.min_trades, path);
  write_string(g, "sweep_precision", v.sweep_precision, path, true);
  write_number_attribute(g, "mismatch_checked", v.mismatch_checked ? 1.0 : 0.0, path);
  write_number_attribute(g, "rank_checked", v.rank_checked ? 1.0 : 0.0, path);
  write_number_attribute(g, "rank_threshold", static_cast<double>(v.rank_threshold), path);
  write_number_attribute(g, "n_mismatches", static_cast<double>(v.n_mismatches()), path);
  write_number_attribute(g, "n_rank_moved", static_cast<double>(v.n_rank_moved()), path);
  write_number_attribute(g, "threads", static_cast<double>(v.threads), path);
  write_number_attribute(g, "seconds", v.seconds, path);
}

}  // namespace

std::size_t VerificationResults::n_mismatches() const {
  return static_cast<std::size_t>(std::count(mismatch.begin(), mismatch.end(), std::uint8_t{1}));
}

std::size_t VerificationResults::n_rank_moved() const {
  return static_cast<std::size_t>(std::count(rank_moved.begin(), rank_moved.end(), std::uint8_t{1}));
}

void write_results_hdf5(const std::string& path, const SweepResults& results,
                        const std::string& config_yaml, const RunProfile& profile,
                        const VerificationResults* verification) {
  ensure_parent_directory(path);
  AtomicOutput out(path);
  write_results_hdf5(out, results, config_yaml, profile, verification);
  out.commit();
}

void write_results_hdf5(AtomicOutput& out, const SweepResults& results, const std::string& config_yaml,
                        const RunProfile& profile, const VerificationResults* verification) {
  const std::string& path = out.final_path();
  ensure_parent_directory(path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    H5Id file(checked(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                      "file", path),
              H5Fclose);
    const std::size_t n = results.n_rows();
    const std::size_t n_params = results.param_names.size();
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;

    write_1d(file, "combo_id", H5T_NATIVE_UINT64, results.combo_ids.data(), n, path);
    {
      H5Id g = make_group(file, "params", path);
      // HDF5 lists members by name; keep the declaration order explicitly.
      std::string order;
      for (const auto& name : results.param_names) order += (order.empty() ? "" : ",") + name;
      write_string(g, "order", order, path, true);
      for (std::size_t p = 0; p < n_params; ++p) {
        const auto col = column(results.params, n_params, p, all);
        write_1d(g, results.param_names[p], H5T_NATIVE_DOUBLE, col.data(), n, path);
      }
    }
    {
      H5Id g = make_group(file, "metrics", path);
      for (std::size_t m = 0; m < n_metrics; ++m) {
        const auto col = column(results.metrics, n_metrics, m, all);
        write_1d(g, metric_names()[m], H5T_NATIVE_DOUBLE, col.data(), n, path);
      }
    }
    {
      H5Id g = make_group(file, "topk", path);
      const auto& rows = results.top_k;
      std::vector<std::uint64_t> row_ids(rows.begin(), rows.end()), ids;
      for (auto r : rows) ids.push_back(results.combo_ids[r]);
      write_1d(g, "row", H5T_NATIVE_UINT64, row_ids.data(), rows.size(), path);
      write_1d(g, "combo_id", H5T_NATIVE_UINT64, ids.data(), rows.size(), path);
      write_string(g, "objective", results.objective_metric, path, true);
      write_string(g, "direction", results.maximize ? "max" : "min", path, true);
      H5Id gm = make_group(g, "metrics", path);
      for (std::size_t m = 0; m < n_metrics; ++m) {
        const auto col = column(results.metrics, n_metrics, m, rows);
        write_1d(gm, metric_names()[m], H5T_NATIVE_DOUBLE, col.data(), rows.size(), path);
      }
      H5Id gp = make_group(g, "params", path);
      for (std::size_t p = 0; p < n_params; ++p) {
        const auto col = column(results.params, n_params, p, rows);
        write_1d(gp, results.param_names[p], H5T_NATIVE_DOUBLE, col.data(), rows.size(), path);
      }
    }
    write_string(file, "config", config_yaml, path, false);
    {
      H5Id g = make_group(file, "profile", path);
      for (const auto& [k, v] : profile.text) write_string(g, k, v, path, true);
      for (const auto& [k, v] : profile.numbers) write_number_attribute(g, k, v, path);
    }
    if (verification) write_verify_group(file, results, *verification, path);
    write_string(file, "kbt_version", version_string, path, true);
    write_number_attribute(file, "complete", 1.0, path);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", path);
    check(file.close(), "file", path);  // the last metadata is written here
  }
}

void write_verification_hdf5(const std::string& in_path, const std::string& out_path,
                             const VerificationResults& verification) {
  // The params of the candidates come from the file itself.
  const LoadedResults loaded = read_results_hdf5(in_path);
  ensure_parent_directory(out_path);
  AtomicOutput out(out_path);
  std::error_code ec;
  std::filesystem::copy_file(in_path, out.temp_path(), std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot copy '" + in_path + "' to '" + out.temp_path() + "': " + ec.message());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    H5Id file(checked(H5Fopen(out.temp_path().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "file", out_path), H5Fclose);
    // The old group's space is not reclaimed (HDF5 never shrinks a file); its
    // size is small next to the sweep's datasets.
    if (H5Lexists(file, "verify", H5P_DEFAULT) > 0)
      check(H5Ldelete(file, "verify", H5P_DEFAULT), "(delete) group /verify", out_path);
    write_verify_group(file, loaded.results, verification, out_path);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", out_path);
    check(file.close(), "file", out_path);
  }
  out.commit();
}

void write_top_k_csv(const std::string& path, const SweepResults& results) {
  ensure_parent_directory(path);
  AtomicOutput out(path);
  write_top_k_csv(out, results);
  out.commit();
}

void write_top_k_csv(AtomicOutput& out, const SweepResults& results) {
  const std::string& path = out.final_path();
  ensure_parent_directory(path);
  {
    std::ofstream csv(out.temp_path());
    if (!csv) throw Error(ErrorCategory::io, path + ": cannot write the top-K CSV");
    csv.precision(17);
    csv << "rank,combo_id";
    for (const auto& p : results.param_names) csv << ',' << p;
    for (const auto* m : metric_names()) csv << ',' << m;
    csv << '\n';
    const std::size_t n_params = results.param_names.size();
    for (std::size_t rank = 0; rank < results.top_k.size(); ++rank) {
      const std::size_t r = results.top_k[rank];
      csv << rank + 1 << ',' << results.combo_ids[r];
      for (std::size_t p = 0; p < n_params; ++p) csv << ',' << results.params[r * n_params + p];
      for (std::size_t m = 0; m < n_metrics; ++m) csv << ',' << results.metrics[r * n_metrics + m];
      csv << '\n';
    }
    if (!csv.flush()) throw Error(ErrorCategory::io, path + ": cannot write the top-K CSV");
    csv.close();
    if (csv.fail()) throw Error(ErrorCategory::io, path + ": cannot write the top-K CSV");
  }
}

}  // namespace kbt
