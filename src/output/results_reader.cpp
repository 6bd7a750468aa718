// Reader for the results HDF5 file (layout in results_hdf5.cpp / docs/results.md).

#include <hdf5.h>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>

#include <filesystem>
#include <optional>

namespace kbt {
namespace {

struct Closer {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Closer() {
    if (id >= 0) close(id);
  }
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::data_format, path + ": " + what);
}

template <class T>
std::vector<T> read_1d(hid_t file, const std::string& name, hid_t mem_type, const std::string& path) {
  hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (set < 0) fail(path, "missing dataset /" + name + " (not a kbt results file?)");
  Closer c{set, H5Dclose};
  hid_t space = H5Dget_space(set);
  Closer cs{space, H5Sclose};
  if (H5Sget_simple_extent_ndims(space) != 1) fail(path, "dataset /" + name + " is not 1-D");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  std::vector<T> out(n);
  if (n > 0 && H5Dread(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(path, "cannot read dataset /" + name);
  return out;
}

std::vector<std::string> member_names(hid_t file, const std::string& group, const std::string& path) {
  hid_t g = H5Gopen2(file, group.c_str(), H5P_DEFAULT);
  if (g < 0) fail(path, "missing group /" + group);
  Closer c{g, H5Gclose};
  H5G_info_t info;
  H5Gget_info(g, &info);
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    // Creation order is not tracked; names come back sorted by name.
    const ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    std::string name(static_cast<std::size_t>(len), '\0');
    H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size() + 1, H5P_DEFAULT);
    names.push_back(name);
  }
  return names;
}

std::string read_string(hid_t file, const std::string& name, const std::string& path) {
  hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (set < 0) fail(path, "missing dataset /" + name);
  Closer c{set, H5Dclose};
  hid_t type = H5Dget_type(set);
  Closer ct{type, H5Tclose};
  const std::size_t size = H5Tget_size(type);
  std::string out(size, '\0');
  if (H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) fail(path, "cannot read /" + name);
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& path) {
  hid_t attr = H5Aopen(obj, name.c_str(), H5P_DEFAULT);
  if (attr < 0) fail(path, "missing attribute " + name);
  Closer c{attr, H5Aclose};
  hid_t type = H5Aget_type(attr);
  Closer ct{type, H5Tclose};
  std::string out(H5Tget_size(type), '\0');
  H5Aread(attr, type, out.data());
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

double read_number_attribute(hid_t obj, const std::string& name, const std::string& path) {
  hid_t attr = H5Aopen(obj, name.c_str(), H5P_DEFAULT);
  if (attr < 0) fail(path, "missing attribute " + name);
  Closer c{attr, H5Aclose};
  double v = 0;
  if (H5Aread(attr, H5T_NATIVE_DOUBLE, &v) < 0) fail(path, "cannot read attribute " + name);
  return v;
}

// Every attribute of /profile: strings as text, anything else as a number.
RunProfile read_profile(hid_t file, const std::string& path) {
  RunProfile profile;
  if (H5Lexists(file, "profile", H5P_DEFAULT) <= 0) return profile;
  hid_t g = H5Gopen2(file, "profile", H5P_DEFAULT);
  if (g < 0) fail(path, "cannot open group /profile");
  Closer cg{g, H5Gclose};
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
    hid_t attr = H5Aopen(g, name.c_str(), H5P_DEFAULT);
    if (attr < 0) fail(path, "cannot read attribute " + name + " of /profile");
    Closer ca{attr, H5Aclose};
    hid_t type = H5Aget_type(attr);
    Closer ct{type, H5Tclose};
    if (H5Tget_class(type) == H5T_STRING)
      profile.set(name, read_string_attribute(g, name, path));
    else
      profile.set(name, read_number_attribute(g, name, path));
  }
  return profile;
}

// /verify, when present (docs/verify.md).
std::optional<VerificationResults> read_verification(hid_t file, std::size_t n_rows, const std::string& path) {
  if (H5Lexists(file, "verify", H5P_DEFAULT) <= 0) return std::nullopt;
  VerificationResults v;
  v.rows = read_1d<std::uint64_t>(file, "verify/row", H5T_NATIVE_UINT64, path);
  v.combo_ids = read_1d<std::uint64_t>(file, "verify/combo_id", H5T_NATIVE_UINT64, path);
  v.rank_before = read_1d<std::uint64_t>(file, "verify/rank_before", H5T_NATIVE_UINT64, path);
  v.rank_after = read_1d<std::uint64_t>(file, "verify/rank_after", H5T_NATIVE_UINT64, path);
  v.mismatch = read_1d<std::uint8_t>(file, "verify/mismatch", H5T_NATIVE_UINT8, path);
  v.rank_moved = read_1d<std::uint8_t>(file, "verify/rank_moved", H5T_NATIVE_UINT8, path);
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
  v.metrics.assign(n * n_metrics, 0.0);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    const std::string name = std::string("verify/metrics/") + metric_names()[m];
    const auto col = read_1d<double>(file, name, H5T_NATIVE_DOUBLE, path);
    if (col.size() != n) fail(path, "dataset /" + name + " has the wrong length");
    for (std::size_t i = 0; i < n; ++i) v.metrics[i * n_metrics + m] = col[i];
  }
  hid_t g = H5Gopen2(file, "verify", H5P_DEFAULT);
  Closer cg{g, H5Gclose};
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

LoadedResults read_results_hdf5(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error(ErrorCategory::io, path + ": no such file");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(path.c_str()) <= 0) fail(path, "not an HDF5 file");
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) fail(path, "cannot open (truncated or corrupt HDF5 file?)");
  Closer cf{file, H5Fclose};
  if (H5Aexists(file, "complete") <= 0)
    fail(path, "results file is incomplete (the run that wrote it did not finish)");
  if (read_number_attribute(file, "complete", path) != 1.0) {
    // A checkpoint of a running or interrupted `kbt run` (docs/results.md).
    std::string what = "incomplete results: the checkpoint of a kbt run that has not finished";
    if (H5Aexists(file, "combos_done") > 0 && H5Aexists(file, "combos_total") > 0) {
      std::uint64_t done = 0, total = 0;
      Closer a{H5Aopen(file, "combos_done", H5P_DEFAULT), H5Aclose};
      H5Aread(a.id, H5T_NATIVE_UINT64, &done);
      Closer b{H5Aopen(file, "combos_total", H5P_DEFAULT), H5Aclose};
      H5Aread(b.id, H5T_NATIVE_UINT64, &total);
      what += " (" + std::to_string(done) + " of " + std::to_string(total) + " combos done)";
    }
    what += "; continue it with ";
    what += H5Aexists(file, "resume_command") > 0 ? "'" + read_string_attribute(file, "resume_command", path) + "'"
                                                  : std::string("kbt run CONFIG --resume");
    fail(path, what);
  }

  LoadedResults loaded;
  SweepResults& r = loaded.results;
  r.combo_ids = read_1d<std::uint64_t>(file, "combo_id", H5T_NATIVE_UINT64, path);
  const std::size_t n = r.combo_ids.size();

  r.param_names = member_names(file, "params", path);
  {
    hid_t g = H5Gopen2(file, "params", H5P_DEFAULT);
    Closer cg{g, H5Gclose};
    if (H5Aexists(g, "order") > 0) {
      const std::string order = read_string_attribute(g, "order", path);
      std::vector<std::string> names;
      std::size_t start = 0;
      while (start <= order.size() && !order.empty()) {
        const std::size_t comma = order.find(',', start);
        names.push_back(order.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (names.size() == r.param_names.size()) r.param_names = names;
    }
  }
  r.params.assign(n * r.param_names.size(), 0.0);
  for (std::size_t p = 0; p < r.param_names.size(); ++p) {
    const auto col = read_1d<double>(file, "params/" + r.param_names[p], H5T_NATIVE_DOUBLE, path);
    if (col.size() != n) fail(path, "dataset /params/" + r.param_names[p] + " has the wrong length");
    for (std::size_t i = 0; i < n; ++i) r.params[i * r.param_names.size() + p] = col[i];
  }
  r.metrics.assign(n * n_metrics, 0.0);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    const std::string name = std::string("metrics/") + metric_names()[m];
    const auto col = read_1d<double>(file, name, H5T_NATIVE_DOUBLE, path);
    if (col.size() != n) fail(path, "dataset /" + name + " has the wrong length");
    for (std::size_t i = 0; i < n; ++i) r.metrics[i * n_metrics + m] = col[i];
  }
  const auto rows = read_1d<std::uint64_t>(file, "topk/row", H5T_NATIVE_UINT64, path);
  for (auto row : rows) {
    if (row >= n) fail(path, "dataset /topk/row refers to a row past the end");
    r.top_k.push_back(static_cast<std::size_t>(row));
  }
  {
    hid_t g = H5Gopen2(file, "topk", H5P_DEFAULT);
    Closer cg{g, H5Gclose};
    r.objective_metric = read_string_attribute(g, "objective", path);
    r.maximize = read_string_attribute(g, "direction", path) == "max";
  }
  loaded.config_yaml = read_string(file, "config", path);
  loaded.profile = read_profile(file, path);
  loaded.verification = read_verification(file, n, path);
  return loaded;
}

}  // namespace kbt
