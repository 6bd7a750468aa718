// Reader for the results HDF5 file (layout in results_hdf5.cpp / docs/results.md).

#include <hdf5.h>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>

#include <filesystem>
#include <optional>

#include "data/isolated_read.hpp"
#include "output/results_io.hpp"

#include <kbt/validation/validation.hpp>

namespace kbt {
namespace {

using detail::H5Id;
using detail::read_number_attribute;
using detail::read_small_1d;
using detail::read_string_attribute;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::data_format, path + ": " + what);
}

// Columns of a table group (/topk, /verify): metrics/<name> and params/<name>, row-major.
void read_table_columns(hid_t file, const std::string& group, const std::vector<std::string>& param_names,
                        std::size_t n, std::vector<double>& params, std::vector<double>& metrics,
                        const std::string& path) {
  metrics.assign(n * n_metrics, 0.0);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    const std::string name = group + "/metrics/" + metric_names()[m];
    const auto col = read_small_1d<double>(file, name, H5T_NATIVE_DOUBLE, path);
    if (col.size() != n) fail(path, "dataset /" + name + " has the wrong length");
    for (std::size_t i = 0; i < n; ++i) metrics[i * n_metrics + m] = col[i];
  }
  const std::size_t np = param_names.size();
  params.assign(n * np, 0.0);
  for (std::size_t p = 0; p < np; ++p) {
    const std::string name = group + "/params/" + param_names[p];
    const auto col = read_small_1d<double>(file, name, H5T_NATIVE_DOUBLE, path);
    if (col.size() != n) fail(path, "dataset /" + name + " has the wrong length");
    for (std::size_t i = 0; i < n; ++i) params[i * np + p] = col[i];
  }
}

// Every attribute of /profile: strings as text, anything else as a number.
RunProfile read_profile(hid_t file, const std::string& path) {
  RunProfile profile;
  if (H5Lexists(file, "profile", H5P_DEFAULT) <= 0) return profile;
  H5Id g(H5Gopen2(file, "profile", H5P_DEFAULT), H5Gclose);
  if (g < 0) fail(path, "cannot open group /profile");
  // H5Aiterate2 (not H5Oget_info, whose signature changed in HDF5 1.12).
  std::vector<std::string> names;
  hsize_t idx = 0;
  const auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->push_back(name);
    return 0;
  };
  if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names) < 0)
    fail(path, "cannot list the attributes of /profile");
  for (const auto& name : names) {
    H5Id attr(H5Aopen(g, name.c_str(), H5P_DEFAULT), H5Aclose);
    if (attr < 0) fail(path, "cannot read attribute " + name + " of /profile");
    H5Id type(H5Aget_type(attr), H5Tclose);
    if (H5Tget_class(type) == H5T_STRING)
      profile.set(name, read_string_attribute(g, name, path));
    else
      profile.set(name, read_number_attribute(g, name, path));
  }
  return profile;
}

// /verify, when present (docs/verify.md).
std::optional<VerificationResults> read_verification(hid_t file, std::uint64_t n_rows,
                                                     const std::vector<std::string>& param_names,
                                                     const std::string& path) {
  if (H5Lexists(file, "verify", H5P_DEFAULT) <= 0) return std::nullopt;
  VerificationResults v;
  v.rows = read_small_1d<std::uint64_t>(file, "verify/row", H5T_NATIVE_UINT64, path);
  v.combo_ids = read_small_1d<std::uint64_t>(file, "verify/combo_id", H5T_NATIVE_UINT64, path);
  v.rank_before = read_small_1d<std::uint64_t>(file, "verify/rank_before", H5T_NATIVE_UINT64, path);
  v.rank_after = read_small_1d<std::uint64_t>(file, "verify/rank_after", H5T_NATIVE_UINT64, path);
  v.mismatch = read_small_1d<std::uint8_t>(file, "verify/mismatch", H5T_NATIVE_UINT8, path);
  v.rank_moved = read_small_1d<std::uint8_t>(file, "verify/rank_moved", H5T_NATIVE_UINT8, path);
  const std::size_t n = v.combo_ids.size();
  const auto same_length = [&](std::size_t size, const char* name) {
    if (size != n) fail(path, std::string("dataset /verify/") + name + " has the wrong length");
  };
  same_length(v.rows.size(), "row");
  same_length(v.rank_before.size(), "rank_before");
  same_length(v.rank_after.size(), "rank_after");
  same_length(v.mismatch.size(), "mismatch");
  same_length(v.rank_moved.size(), "rank_moved");
  for (auto r : v.rows)
    if (r >= n_rows) fail(path, "dataset /verify/row refers to a row past the end");
  v.param_names = param_names;
  read_table_columns(file, "verify", param_names, n, v.params, v.metrics, path);
  H5Id g(H5Gopen2(file, "verify", H5P_DEFAULT), H5Gclose);
  const std::string where = path + " /verify";
  v.window = read_string_attribute(g, "window", where);
  v.window_begin = static_cast<std::uint64_t>(read_number_attribute(g, "window_begin", where));
  v.window_end = static_cast<std::uint64_t>(read_number_attribute(g, "window_end", where));
  v.same_window = read_number_attribute(g, "same_window", where) != 0;
  v.objective.metric = read_string_attribute(g, "objective", where);
  v.objective.maximize = read_string_attribute(g, "direction", where) == "max";
  v.objective.min_trades = read_number_attribute(g, "min_trades", where);
  v.sweep_precision = read_string_attribute(g, "sweep_precision", where);
  v.mismatch_checked = read_number_attribute(g, "mismatch_checked", where) != 0;
  v.rank_checked = read_number_attribute(g, "rank_checked", where) != 0;
  v.rank_threshold = static_cast<std::int64_t>(read_number_attribute(g, "rank_threshold", where));
  v.threads = static_cast<unsigned>(read_number_attribute(g, "threads", where));
  v.seconds = read_number_attribute(g, "seconds", where);
  return v;
}

}  // namespace

std::string LoadedResults::profile_text(const std::string& key) const {
  for (const auto& [k, v] : profile.text)
    if (k == key) return v;
  return {};
}

namespace {

LoadedResults read_results_here(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(path.c_str()) <= 0) fail(path, "not an HDF5 file");
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file < 0) fail(path, "cannot open (truncated or corrupt HDF5 file?)");
  if (!detail::has_attribute(file, "complete"))
    fail(path, "results file is incomplete (the run that wrote it did not finish)");
  if (read_number_attribute(file, "complete", path) != 1.0) {
    // A checkpoint of a running or interrupted `kbt run` (docs/results.md).
    std::string what = "incomplete results: the checkpoint of a kbt run that has not finished";
    if (detail::has_attribute(file, "combos_done") && detail::has_attribute(file, "combos_total"))
      what += " (" + std::to_string(detail::read_u64_attribute(file, "combos_done", path)) + " of " +
              std::to_string(detail::read_u64_attribute(file, "combos_total", path)) + " combos done)";
    what += "; continue it with ";
    what += detail::has_attribute(file, "resume_command")
                ? "'" + read_string_attribute(file, "resume_command", path) + "'"
                : std::string("kbt run CONFIG --resume");
    fail(path, what);
  }

  LoadedResults loaded;
  SweepResults& r = loaded.results;
  r.param_names = detail::read_param_names(file, path);
  r.integer_params = detail::integer_params_of_file(file, r.param_names);
  const hid_t id = file.get();
  // The rows keep the file open.
  auto rows = std::make_shared<detail::FileRows>(id, path, std::make_shared<H5Id>(std::move(file)));
  const std::uint64_t n = rows->size();
  {
    RowTable& best = r.best;
    best.n_params = r.param_names.size();
    best.rows = read_small_1d<std::uint64_t>(id, "topk/row", H5T_NATIVE_UINT64, path);
    for (const auto row : best.rows)
      if (row >= n) fail(path, "dataset /topk/row refers to a row past the end");
    best.combo_ids = read_small_1d<std::uint64_t>(id, "topk/combo_id", H5T_NATIVE_UINT64, path);
    if (best.combo_ids.size() != best.rows.size()) fail(path, "dataset /topk/combo_id has the wrong length");
    read_table_columns(id, "topk", r.param_names, best.size(), best.params, best.metrics, path);
    r.top_k = best.size();
    H5Id g(H5Gopen2(id, "topk", H5P_DEFAULT), H5Gclose);
    r.objective_metric = read_string_attribute(g, "objective", path);
    r.maximize = read_string_attribute(g, "direction", path) == "max";
  }
  loaded.config_yaml = detail::read_string_dataset(id, "config", path);
  loaded.profile = read_profile(id, path);
  loaded.verification = read_verification(id, n, r.param_names, path);
  if (auto v = detail::read_validation_group(id, r.param_names, path))
    loaded.validation = std::make_shared<const ValidationResults>(std::move(*v));
  r.rows = std::move(rows);  // keeps the file open
  return loaded;
}

}  // namespace

LoadedResults read_results_hdf5(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error(ErrorCategory::io, path + ": no such file");
  // libhdf5 can crash on a damaged file (seen: SIGSEGV in H5Aiterate2). The
  // whole file, every row included, is read first in kbt's reader process, as
  // data files are (docs/results.md "Damaged files"); the same reads here then
  // meet only what the reader process survived.
  detail::read_isolated(path, [&](detail::MarketDataSink&) { detail::read_every_row(*read_results_here(path).results.rows); });
  return read_results_here(path);
}

}  // namespace kbt
