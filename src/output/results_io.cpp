// HDF5 pieces of the results layout (src/output/results_io.hpp).

#include "output/results_io.hpp"

#include "output/dataset_descriptions.hpp"

#include <kbt/validation/validation.hpp>

#include <kbt/core/error.hpp>
#include <kbt/core/version.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbt::detail {

void check_write(herr_t status, const std::string& what, const std::string& path) {
  if (status < 0) throw Error(ErrorCategory::io, path + ": cannot write " + what);
}

hid_t checked_create(hid_t id, const std::string& what, const std::string& path) {
  if (id < 0) throw Error(ErrorCategory::io, path + ": cannot write " + what);
  return id;
}

namespace {

[[noreturn]] void fail_read(const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::data_format, path + ": " + what);
}

H5Id no_time_tracking() {
  H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl, 0);
  return dcpl;
}

// Rows per block when the writer generates or copies rows.
constexpr std::uint64_t kBlockRows = 65536;

}  // namespace

H5Id make_group(hid_t parent, const std::string& name, const std::string& path) {
  // Members listed in the order written (h5py, h5ls --sort-by=creation_order):
  // metrics in docs/metrics.md order, params in declaration order.
  H5Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  return H5Id(checked_create(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), "group " + name, path),
              H5Gclose);
}

void write_string(hid_t parent, const std::string& name, const std::string& value, const std::string& path,
                  bool as_attribute) {
  H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, std::max<std::size_t>(value.size(), 1));
  H5Tset_cset(type, H5T_CSET_UTF8);
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  if (as_attribute) {
    H5Id attr(checked_create(H5Acreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                             "attribute " + name, path),
              H5Aclose);
    check_write(H5Awrite(attr, type, value.c_str()), "attribute " + name, path);
  } else {
    H5Id set(checked_create(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                            "dataset " + name, path),
             H5Dclose);
    check_write(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, value.c_str()), "dataset " + name, path);
  }
}

namespace {

void write_scalar_attribute(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type, const void* value,
                            bool replace, const std::string& path) {
  if (replace && H5Aexists(parent, name.c_str()) > 0) {
    H5Id attr(H5Aopen(parent, name.c_str(), H5P_DEFAULT), H5Aclose);
    check_write(attr < 0 ? -1 : H5Awrite(attr, mem_type, value), "attribute " + name, path);
    return;
  }
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id attr(checked_create(H5Acreate2(parent, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT),
                           "attribute " + name, path),
            H5Aclose);
  check_write(H5Awrite(attr, mem_type, value), "attribute " + name, path);
}

}  // namespace

void write_number_attribute(hid_t parent, const std::string& name, double value, const std::string& path) {
  write_scalar_attribute(parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, false, path);
}

void set_number_attribute(hid_t parent, const std::string& name, double value, const std::string& path) {
  write_scalar_attribute(parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, true, path);
}

void write_u64_attribute(hid_t parent, const std::string& name, std::uint64_t value, const std::string& path) {
  write_scalar_attribute(parent, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, false, path);
}

void set_u64_attribute(hid_t parent, const std::string& name, std::uint64_t value, const std::string& path) {
  write_scalar_attribute(parent, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, true, path);
}

bool has_attribute(hid_t obj, const std::string& name) { return H5Aexists(obj, name.c_str()) > 0; }

std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& path) {
  if (!has_attribute(obj, name)) fail_read(path, "missing attribute " + name);
  H5Id attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  H5Id type(H5Aget_type(attr), H5Tclose);
  if (H5Tget_class(type) != H5T_STRING) fail_read(path, "attribute " + name + " is not text");
  check_declared_bytes(obj, static_cast<double>(H5Tget_size(type)), false, "attribute " + name, path);
  std::string out(H5Tget_size(type), '\0');
  if (H5Aread(attr, type, out.data()) < 0) fail_read(path, "cannot read attribute " + name);
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

double read_number_attribute(hid_t obj, const std::string& name, const std::string& path) {
  if (!has_attribute(obj, name)) fail_read(path, "missing attribute " + name);
  H5Id attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  double v = 0;
  if (H5Aread(attr, H5T_NATIVE_DOUBLE, &v) < 0) fail_read(path, "cannot read attribute " + name);
  return v;
}

std::uint64_t read_u64_attribute(hid_t obj, const std::string& name, const std::string& path) {
  if (!has_attribute(obj, name)) fail_read(path, "missing attribute " + name);
  H5Id attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  std::uint64_t v = 0;
  if (H5Aread(attr, H5T_NATIVE_UINT64, &v) < 0) fail_read(path, "cannot read attribute " + name);
  return v;
}

std::string read_string_dataset(hid_t file, const std::string& name, const std::string& path) {
  H5Id set(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (set < 0) fail_read(path, "missing dataset /" + name);
  H5Id type(H5Dget_type(set), H5Tclose);
  if (H5Tget_class(type) != H5T_STRING) fail_read(path, "dataset /" + name + " is not text");
  check_declared_bytes(file, static_cast<double>(H5Tget_size(type)), false, "dataset /" + name, path);
  std::string out(H5Tget_size(type), '\0');
  if (H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) fail_read(path, "cannot read /" + name);
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

void write_small_1d(hid_t parent, const std::string& name, hid_t mem_type, const void* data, std::size_t n,
                    const std::string& path) {
  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  H5Id space(checked_create(H5Screate_simple(1, dims, nullptr), "dataspace", path), H5Sclose);
  H5Id dcpl = no_time_tracking();
  if (n >= 4096) {
    const hsize_t chunk[1] = {std::min<hsize_t>(n, 65536)};
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 4);
  }
  H5Id set(checked_create(H5Dcreate2(parent, name.c_str(), mem_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                          "dataset " + name, path),
           H5Dclose);
  if (n > 0) check_write(H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "dataset " + name, path);
}

std::vector<std::int64_t> whole_numbers(const double* values, std::size_t n, const std::string& what,
                                        const std::string& path) {
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    // |v| < 2^63 and no fraction: the int64 holds it exactly.
    if (!(std::abs(values[i]) < 9.2e18) || std::trunc(values[i]) != values[i])
      throw Error(ErrorCategory::internal, path + ": " + what + " holds " + std::to_string(values[i]) +
                                               ", not a whole number");
    out[i] = static_cast<std::int64_t>(values[i]);
  }
  return out;
}

void write_described(hid_t file, const std::vector<hsize_t>& dims, const DescribedColumn& c, const std::string& path) {
  hid_t file_type = H5T_IEEE_F64LE, mem_type = H5T_NATIVE_DOUBLE;
  switch (c.type) {
    case ColumnType::int8: file_type = H5T_STD_I8LE, mem_type = H5T_NATIVE_INT8; break;
    case ColumnType::int64: file_type = H5T_STD_I64LE, mem_type = H5T_NATIVE_INT64; break;
    case ColumnType::float64: break;
  }
  write_numeric_dataset(file, c.name, file_type, mem_type, dims, c.data, path, 1);
  H5Id set(checked_create(H5Dopen2(file, c.name, H5P_DEFAULT), c.name, path), H5Dclose);
  write_string(set, "description", c.description, path, true);
  write_string(set, "unit", c.unit, path, true);
}

void finish_job_file(hid_t file, const char* job, const std::string& config_yaml, const RunProfile& profile,
                     const std::string& path) {
  write_string(file, "config", config_yaml, path, false);
  {
    H5Id g = make_group(file, "profile", path);
    for (const auto& [k, v] : profile.text) write_string(g, k, v, path, true);
    for (const auto& [k, v] : profile.numbers) write_number_attribute(g, k, v, path);
  }
  write_string(file, "kbt_version", version_string, path, true);
  write_string(file, "job", job, path, true);
  write_number_attribute(file, "complete", 1, path);
}

void write_metric_column(hid_t parent, std::size_t m, const std::vector<double>& values, const std::string& path) {
  const char* name = metric_names()[m];
  if (metric_is_count(static_cast<int>(m))) {
    const auto whole = whole_numbers(values.data(), values.size(), name, path);
    write_small_1d(parent, name, H5T_NATIVE_INT64, whole.data(), whole.size(), path);
  } else {
    write_small_1d(parent, name, H5T_NATIVE_DOUBLE, values.data(), values.size(), path);
  }
}

void write_param_column(hid_t parent, const std::string& name, const std::vector<double>& values, bool integer,
                        const std::string& path) {
  if (integer) {
    const auto whole = whole_numbers(values.data(), values.size(), name, path);
    write_small_1d(parent, name, H5T_NATIVE_INT64, whole.data(), whole.size(), path);
  } else {
    write_small_1d(parent, name, H5T_NATIVE_DOUBLE, values.data(), values.size(), path);
  }
}

std::vector<bool> integer_params_of_file(hid_t obj, const std::vector<std::string>& names) {
  std::vector<bool> out;
  for (const auto& name : names) {
    const std::string at = "/params/" + name;
    bool integer = false;
    if (H5Lexists(obj, "/params", H5P_DEFAULT) > 0 && H5Lexists(obj, at.c_str(), H5P_DEFAULT) > 0) {
      H5Id set(H5Dopen2(obj, at.c_str(), H5P_DEFAULT), H5Dclose);
      H5Id type(set < 0 ? -1 : H5Dget_type(set), H5Tclose);
      integer = type >= 0 && H5Tget_class(type) == H5T_INTEGER;
    }
    out.push_back(integer);
  }
  return out;
}

namespace {

// The 1-D dataset `name` and its dataspace; its length into `n`.
std::pair<H5Id, H5Id> open_1d(hid_t file, const std::string& name, hsize_t& n, const std::string& path) {
  H5Id set(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (set < 0) fail_read(path, "missing dataset /" + name + " (not a kbt results file?)");
  H5Id space(H5Dget_space(set), H5Sclose);
  if (H5Sget_simple_extent_ndims(space) != 1) fail_read(path, "dataset /" + name + " is not 1-D");
  H5Sget_simple_extent_dims(space, &n, nullptr);
  return {std::move(set), std::move(space)};
}

}  // namespace

template <class T>
std::vector<T> read_small_1d(hid_t file, const std::string& name, hid_t mem_type, const std::string& path) {
  hsize_t n = 0;
  const auto [set, space] = open_1d(file, name, n, path);
  check_declared_bytes(file, static_cast<double>(n) * sizeof(T), true, "dataset /" + name, path);
  std::vector<T> out(n);
  if (n > 0 && H5Dread(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail_read(path, "cannot read dataset /" + name);
  return out;
}
template std::vector<std::uint64_t> read_small_1d(hid_t, const std::string&, hid_t, const std::string&);
template std::vector<std::uint8_t> read_small_1d(hid_t, const std::string&, hid_t, const std::string&);
template std::vector<double> read_small_1d(hid_t, const std::string&, hid_t, const std::string&);
template std::vector<std::int64_t> read_small_1d(hid_t, const std::string&, hid_t, const std::string&);

void transfer_rows(hid_t file, const std::string& name, hid_t mem_type, std::uint64_t first, std::uint64_t count,
                   void* buffer, bool write, const std::string& path) {
  hsize_t n = 0;
  const auto [set, fspace] = open_1d(file, name, n, path);
  if (first + count > n) fail_read(path, "dataset /" + name + " is too short");
  if (count == 0) return;
  const hsize_t start[1] = {first}, size[1] = {count};
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, size, nullptr);
  H5Id mspace(H5Screate_simple(1, size, nullptr), H5Sclose);
  if (write)
    check_write(H5Dwrite(set, mem_type, mspace, fspace, H5P_DEFAULT, buffer), "dataset /" + name, path);
  else if (H5Dread(set, mem_type, mspace, fspace, H5P_DEFAULT, buffer) < 0)
    fail_read(path, "cannot read dataset /" + name);
}

namespace {

// A contiguous 1-D dataset of `n` rows whose storage is allocated now.
void create_row_dataset(hid_t parent, const std::string& name, hid_t file_type, std::uint64_t n,
                        const std::string& path) {
  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  H5Id space(checked_create(H5Screate_simple(1, dims, nullptr), "dataspace", path), H5Sclose);
  H5Id dcpl = no_time_tracking();
  H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);  // rows are written by the run, not zeroed first
  H5Id set(checked_create(H5Dcreate2(parent, name.c_str(), file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                          "dataset " + name, path),
           H5Dclose);
}

}  // namespace

void create_row_datasets(hid_t file, const std::vector<std::string>& param_names,
                         const std::vector<bool>& integer_params, std::uint64_t n, MetricMask mask,
                         const std::function<void(std::uint64_t, std::uint64_t, std::uint64_t*, double*)>& fill,
                         const std::string& path) {
  const std::size_t np = param_names.size();
  const auto is_integer = [&](std::size_t p) { return p < integer_params.size() && integer_params[p]; };
  create_row_dataset(file, "combo_id", H5T_STD_U64LE, n, path);
  {
    H5Id g = make_group(file, "params", path);
    // HDF5 lists members by name; the declaration order is kept explicitly.
    std::string order;
    for (const auto& name : param_names) order += (order.empty() ? "" : ",") + name;
    write_string(g, "order", order, path, true);
    for (std::size_t p = 0; p < np; ++p)
      create_row_dataset(g, param_names[p], is_integer(p) ? H5T_STD_I64LE : H5T_IEEE_F64LE, n, path);
  }
  {
    H5Id g = make_group(file, "metrics", path);
    std::string computed;
    for (std::size_t m = 0; m < n_metrics; ++m) {
      if (!has_metric(mask, static_cast<int>(m))) continue;
      const std::string name = metric_names()[m];
      create_row_dataset(g, name, metric_is_count(static_cast<int>(m)) ? H5T_STD_I64LE : H5T_IEEE_F64LE, n, path);
      computed += (computed.empty() ? "" : ",") + name;
    }
    write_string(g, "computed", computed, path, true);
  }
  std::vector<std::uint64_t> ids;
  std::vector<double> params, column;
  for (std::uint64_t first = 0; first < n; first += kBlockRows) {
    const std::uint64_t count = std::min(kBlockRows, n - first);
    ids.resize(static_cast<std::size_t>(count));
    params.resize(static_cast<std::size_t>(count) * np);
    column.resize(static_cast<std::size_t>(count));
    fill(first, count, ids.data(), params.data());
    transfer_rows(file, "combo_id", H5T_NATIVE_UINT64, first, count, ids.data(), true, path);
    for (std::size_t p = 0; p < np; ++p) {
      for (std::size_t i = 0; i < count; ++i) column[i] = params[i * np + p];
      const std::string name = "params/" + param_names[p];
      if (is_integer(p)) {
        auto whole = whole_numbers(column.data(), column.size(), "/" + name, path);
        transfer_rows(file, name, H5T_NATIVE_INT64, first, count, whole.data(), true, path);
      } else {
        transfer_rows(file, name, H5T_NATIVE_DOUBLE, first, count, column.data(), true, path);
      }
    }
  }
}

void write_metric_rows(hid_t file, std::uint64_t first, std::uint64_t count, const double* metrics, MetricMask mask,
                       const std::string& path) {
  std::vector<double> column(static_cast<std::size_t>(count));
  for (std::size_t m = 0; m < n_metrics; ++m) {
    if (!has_metric(mask, static_cast<int>(m))) continue;
    for (std::size_t i = 0; i < count; ++i) column[i] = metrics[i * n_metrics + m];
    const std::string name = std::string("metrics/") + metric_names()[m];
    if (metric_is_count(static_cast<int>(m))) {
      auto whole = whole_numbers(column.data(), column.size(), "/" + name, path);
      transfer_rows(file, name, H5T_NATIVE_INT64, first, count, whole.data(), true, path);
    } else {
      transfer_rows(file, name, H5T_NATIVE_DOUBLE, first, count, column.data(), true, path);
    }
  }
}

std::vector<std::string> read_param_names(hid_t file, const std::string& path) {
  H5Id g(H5Gopen2(file, "params", H5P_DEFAULT), H5Gclose);
  if (g < 0 && has_attribute(file, "job")) {  // another job's file (docs/results.md)
    const std::string job = read_string_attribute(file, "job", path);
    if (job == "label")
      fail_read(path, "a labelling job's labels file, not a sweep's results (docs/results.md \"Label files\": read "
                      "it with h5py or h5dump)");
    if (job == "simulate")
      fail_read(path, "an action-driven simulation's file, not a sweep's results (docs/results.md \"Simulate "
                      "files\": read it with h5py or h5dump)");
  }
  if (g < 0) fail_read(path, "missing group /params (not a kbt results file?)");
  H5G_info_t info;
  H5Gget_info(g, &info);
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    // Creation order is not tracked; names come back sorted by name.
    const ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (len < 0) fail_read(path, "cannot read the names of group /params");
    check_declared_bytes(g, static_cast<double>(len), false, "a name in group /params", path);
    std::string name(static_cast<std::size_t>(len), '\0');
    H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size() + 1, H5P_DEFAULT);
    names.push_back(name);
  }
  if (!has_attribute(g, "order")) return names;
  const std::string order = read_string_attribute(g, "order", path);
  std::vector<std::string> ordered;
  for (std::size_t start = 0; !order.empty();) {
    const std::size_t comma = order.find(',', start);
    ordered.push_back(order.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ordered.size() == names.size() ? ordered : names;
}

FileRows::FileRows(hid_t file, std::string path, std::shared_ptr<const void> owner)
    : owner_(std::move(owner)), file_(file), path_(std::move(path)) {
  param_names_ = read_param_names(file_, path_);
  hsize_t n = 0;
  open_1d(file_, "combo_id", n, path_);
  n_ = n;
  // Files written before metric sets hold all 21.
  for (std::size_t m = 0; m < n_metrics; ++m)
    if (H5Lexists(file_, (std::string("metrics/") + metric_names()[m]).c_str(), H5P_DEFAULT) > 0)
      mask_ |= MetricMask(1) << m;
}

void FileRows::read(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params,
                    double* metrics) const {
  if (first > n_ || count > n_ - first) throw Error(ErrorCategory::internal, path_ + ": rows out of range");
  const std::size_t np = param_names_.size();
  std::vector<double> column(static_cast<std::size_t>(count));
  if (ids) transfer_rows(file_, "combo_id", H5T_NATIVE_UINT64, first, count, ids, false, path_);
  if (params)
    for (std::size_t p = 0; p < np; ++p) {
      transfer_rows(file_, "params/" + param_names_[p], H5T_NATIVE_DOUBLE, first, count, column.data(), false, path_);
      for (std::size_t i = 0; i < count; ++i) params[i * np + p] = column[i];
    }
  if (metrics)
    for (std::size_t m = 0; m < n_metrics; ++m) {
      if (has_metric(mask_, static_cast<int>(m)))
        transfer_rows(file_, std::string("metrics/") + metric_names()[m], H5T_NATIVE_DOUBLE, first, count,
                      column.data(), false, path_);
      else
        std::fill(column.begin(), column.end(), std::numeric_limits<double>::quiet_NaN());  // not computed
      for (std::size_t i = 0; i < count; ++i) metrics[i * n_metrics + m] = column[i];
    }
}

void read_every_row(const ResultRows& rows) {
  std::vector<std::uint64_t> ids;
  std::vector<double> params, metrics;
  for (std::uint64_t first = 0; first < rows.size(); first += kBlockRows) {
    const std::uint64_t count = std::min<std::uint64_t>(kBlockRows, rows.size() - first);
    ids.resize(static_cast<std::size_t>(count));
    params.resize(static_cast<std::size_t>(count) * rows.param_names().size());
    metrics.resize(static_cast<std::size_t>(count) * n_metrics);
    rows.read(first, count, ids.data(), params.data(), metrics.data());
  }
}

namespace {

// Column `col` of the rows of a table ([n][stride], row-major).
std::vector<double> column_of(const std::vector<double>& m, std::size_t stride, std::size_t col) {
  std::vector<double> out;
  if (stride == 0) return out;
  for (std::size_t i = col; i < m.size(); i += stride) out.push_back(m[i]);
  return out;
}

void write_table_columns(hid_t g, const std::vector<std::string>& param_names, const std::vector<double>& params,
                         const std::vector<double>& metrics, std::size_t n, const std::string& path) {
  H5Id gm = make_group(g, "metrics", path);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    const auto column = column_of(metrics, n_metrics, m);
    if (column.size() != n) throw Error(ErrorCategory::internal, path + ": metric table of the wrong length");
    write_metric_column(gm, m, column, path);
  }
  H5Id gp = make_group(g, "params", path);
  const std::vector<bool> integer = integer_params_of_file(g, param_names);
  for (std::size_t p = 0; p < param_names.size(); ++p)
    write_param_column(gp, param_names[p], column_of(params, param_names.size(), p), integer[p], path);
}

}  // namespace

void write_verify_group(hid_t file, const VerificationResults& v, const std::string& path) {
  const std::size_t n = v.n();
  if (v.rows.size() != n || v.rank_before.size() != n || v.rank_after.size() != n || v.mismatch.size() != n ||
      v.rank_moved.size() != n || v.metrics.size() != n * n_metrics || v.params.size() != n * v.param_names.size())
    throw Error(ErrorCategory::internal, path + ": verification table columns differ in length");
  if (H5Lexists(file, "verify", H5P_DEFAULT) > 0)
    check_write(H5Ldelete(file, "verify", H5P_DEFAULT), "(delete) group /verify", path);
  H5Id g = make_group(file, "verify", path);
  write_small_1d(g, "row", H5T_NATIVE_UINT64, v.rows.data(), n, path);
  write_small_1d(g, "combo_id", H5T_NATIVE_UINT64, v.combo_ids.data(), n, path);
  write_small_1d(g, "rank_before", H5T_NATIVE_UINT64, v.rank_before.data(), n, path);
  write_small_1d(g, "rank_after", H5T_NATIVE_UINT64, v.rank_after.data(), n, path);
  write_small_1d(g, "mismatch", H5T_NATIVE_UINT8, v.mismatch.data(), n, path);
  write_small_1d(g, "rank_moved", H5T_NATIVE_UINT8, v.rank_moved.data(), n, path);
  write_table_columns(g, v.param_names, v.params, v.metrics, n, path);
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

void write_final_groups(hid_t file, const SweepResults& results, const RunProfile& profile,
                        const VerificationResults* verification, const ValidationResults* validation,
                        const std::string& path) {
  {
    // A finish that was interrupted left some of these: written again whole.
    for (const char* name : {"topk", "profile"})
      if (H5Lexists(file, name, H5P_DEFAULT) > 0) check_write(H5Ldelete(file, name, H5P_DEFAULT), name, path);
    const RowTable top = results.top_k_rows();
    H5Id g = make_group(file, "topk", path);
    write_small_1d(g, "row", H5T_NATIVE_UINT64, top.rows.data(), top.size(), path);
    write_small_1d(g, "combo_id", H5T_NATIVE_UINT64, top.combo_ids.data(), top.size(), path);
    write_string(g, "objective", results.objective_metric, path, true);
    write_string(g, "direction", results.maximize ? "max" : "min", path, true);
    write_table_columns(g, results.param_names, top.params, top.metrics, top.size(), path);
  }
  {
    H5Id g = make_group(file, "profile", path);
    for (const auto& [k, v] : profile.text) write_string(g, k, v, path, true);
    for (const auto& [k, v] : profile.numbers) write_number_attribute(g, k, v, path);
  }
  if (verification) write_verify_group(file, *verification, path);
  else if (H5Lexists(file, "verify", H5P_DEFAULT) > 0)
    check_write(H5Ldelete(file, "verify", H5P_DEFAULT), "(delete) group /verify", path);
  if (validation) write_validation_group(file, *validation, path);
  else if (H5Lexists(file, "validation", H5P_DEFAULT) > 0)
    check_write(H5Ldelete(file, "validation", H5P_DEFAULT), "(delete) group /validation", path);
  if (has_attribute(file, "kbt_version")) check_write(H5Adelete(file, "kbt_version"), "attribute kbt_version", path);
  write_string(file, "kbt_version", version_string, path, true);
  describe_results_datasets(file, path);
  check_write(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", path);
  set_number_attribute(file, "complete", 1.0, path);  // last
}

std::uint64_t final_groups_bytes(const SweepResults& results, const RunProfile& profile,
                                 const VerificationResults* verification, const ValidationResults* validation) {
  // Values, plus generous room for object headers and B-trees.
  const std::uint64_t per_row = 8 * (2 + results.param_names.size() + n_metrics);
  std::uint64_t bytes = (1u << 20) + per_row * results.top_k + 4096 * (profile.text.size() + profile.numbers.size());
  if (verification) bytes += (1u << 20) + (per_row + 8 * 3) * verification->n();
  if (validation)
    bytes += (1u << 20) + (2 * per_row + 8 * 12) * validation->n() + 8 * validation->n() * validation->n_periods() +
             8 * 3 * (validation->pbo ? validation->pbo->splits : 0);
  return 2 * bytes;
}

}  // namespace kbt::detail
