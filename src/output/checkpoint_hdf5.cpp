// The checkpoint file of a running sweep (include/kbt/output/checkpoint.hpp,
// docs/results.md). Layout:
//   /combo_id            uint64  [n]
//   /params/<name>       float64 [n]   (group attribute `order`)
//   /metrics/<name>      float64 [n]   contiguous, allocated at creation;
//                                      rows [0, combos_done) are final
//   /config              string        the YAML as run
//   /checkpoint          group; string attributes: the run's identity
// Root attributes: complete = 0, combos_done, combos_total (uint64),
// results_path, resume_command, kbt_version.
//
// Crash safety: every object is created (and its storage allocated) when the
// file is made, atomically (written aside, then linked into place). A commit then writes raw
// data into allocated storage, flushes, and only then rewrites the fixed-size
// `combos_done` attribute in place: a process killed at any point leaves a file
// whose structure is intact and whose first combos_done rows are whole.

#include <hdf5.h>
#include <kbt/output/checkpoint.hpp>
#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/version.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <type_traits>

#include "data/hdf5_support.hpp"

namespace kbt {
namespace {

using detail::H5Id;

static_assert(std::is_same<hid_t, std::int64_t>::value, "Checkpoint keeps its HDF5 file id as std::int64_t");

[[noreturn]] void fail(ErrorCategory c, const std::string& path, const std::string& what) {
  throw Error(c, path + ": " + what);
}

hid_t checked(hid_t id, const std::string& what, const std::string& path) {
  if (id < 0) fail(ErrorCategory::io, path, "cannot write checkpoint " + what);
  return id;
}

void check(herr_t status, const std::string& what, const std::string& path) {
  if (status < 0) fail(ErrorCategory::io, path, "cannot write checkpoint " + what);
}

void write_string_attribute(hid_t obj, const std::string& name, const std::string& value, const std::string& path) {
  H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, std::max<std::size_t>(value.size(), 1));
  H5Tset_cset(type, H5T_CSET_UTF8);
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id attr(checked(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "attribute " + name, path),
            H5Aclose);
  check(H5Awrite(attr, type, value.c_str()), "attribute " + name, path);
}

void write_u64_attribute(hid_t obj, const std::string& name, std::uint64_t value, const std::string& path) {
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id attr(checked(H5Acreate2(obj, name.c_str(), H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT),
                    "attribute " + name, path),
            H5Aclose);
  check(H5Awrite(attr, H5T_NATIVE_UINT64, &value), "attribute " + name, path);
}

std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& path) {
  if (H5Aexists(obj, name.c_str()) <= 0) fail(ErrorCategory::data_format, path, "checkpoint has no attribute " + name);
  H5Id attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  H5Id type(H5Aget_type(attr), H5Tclose);
  if (H5Tget_class(type) != H5T_STRING) fail(ErrorCategory::data_format, path, "checkpoint attribute " + name + " is not text");
  std::string out(H5Tget_size(type), '\0');
  if (H5Aread(attr, type, out.data()) < 0) fail(ErrorCategory::data_format, path, "cannot read attribute " + name);
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

std::uint64_t read_u64_attribute(hid_t obj, const std::string& name, const std::string& path) {
  if (H5Aexists(obj, name.c_str()) <= 0) fail(ErrorCategory::data_format, path, "checkpoint has no attribute " + name);
  H5Id attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  std::uint64_t v = 0;
  if (H5Aread(attr, H5T_NATIVE_UINT64, &v) < 0) fail(ErrorCategory::data_format, path, "cannot read attribute " + name);
  return v;
}

void write_1d(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type, const void* data, std::size_t n,
              const std::string& path) {
  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  H5Id space(checked(H5Screate_simple(1, dims, nullptr), "dataspace", path), H5Sclose);
  H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl, 0);
  // Storage allocated now, so that commits write raw data only.
  H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Id set(checked(H5Dcreate2(parent, name.c_str(), file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                   "dataset " + name, path),
           H5Dclose);
  if (data && n > 0) check(H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "dataset " + name, path);
}

H5Id make_group(hid_t parent, const std::string& name, const std::string& path) {
  return H5Id(checked(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group " + name, path),
              H5Gclose);
}

// Reads or writes rows [first, first + count) of a 1-D float64 dataset.
void transfer_rows(hid_t file, const std::string& name, std::uint64_t first, std::uint64_t count, double* buffer,
                   bool write, const std::string& path) {
  H5Id set(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (set < 0) fail(ErrorCategory::data_format, path, "checkpoint has no dataset /" + name);
  H5Id fspace(H5Dget_space(set), H5Sclose);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(fspace, &n, nullptr);
  if (first + count > n) fail(ErrorCategory::data_format, path, "checkpoint dataset /" + name + " is too short");
  if (count == 0) return;
  const hsize_t start[1] = {first}, size[1] = {count};
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, size, nullptr);
  H5Id mspace(H5Screate_simple(1, size, nullptr), H5Sclose);
  const herr_t status = write ? H5Dwrite(set, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buffer)
                              : H5Dread(set, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buffer);
  if (status < 0)
    fail(write ? ErrorCategory::io : ErrorCategory::data_format, path,
         std::string(write ? "cannot write" : "cannot read") + " checkpoint dataset /" + name);
}

// `take_lock = false` opens without HDF5's file lock: the running sweep's own
// handle, and status peeks (`kbt show` on a checkpoint, a test polling a
// running sweep). The run lock (run_lock.hpp), not HDF5's, keeps a second
// writer out.
hid_t open_checkpoint(const std::string& path, unsigned flags, bool take_lock = true) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (!std::filesystem::exists(path)) fail(ErrorCategory::io, path, "no such checkpoint file");
  if (H5Fis_hdf5(path.c_str()) <= 0) fail(ErrorCategory::data_format, path, "not an HDF5 file (not a kbt checkpoint)");
  H5Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!take_lock) H5Pset_file_locking(fapl, false, true);
  const hid_t file = H5Fopen(path.c_str(), flags, fapl);
  if (file < 0)
    fail(ErrorCategory::io, path, "cannot open the checkpoint (in use by a running kbt run, or corrupt)");
  return file;
}

const std::vector<std::pair<const char*, std::string CheckpointIdentity::*>>& identity_fields() {
  static const std::vector<std::pair<const char*, std::string CheckpointIdentity::*>> fields = {
      {"kbt_version", &CheckpointIdentity::kbt_version}, {"data_path", &CheckpointIdentity::data_path},
      {"data_digest", &CheckpointIdentity::data_digest},
      {"device", &CheckpointIdentity::device},           {"precision", &CheckpointIdentity::precision},
      {"sample", &CheckpointIdentity::sample},           {"sample_seed", &CheckpointIdentity::sample_seed},
      {"symbols", &CheckpointIdentity::symbols}};
  return fields;
}

std::string read_config_text(hid_t file, const std::string& path) {
  H5Id set(H5Dopen2(file, "config", H5P_DEFAULT), H5Dclose);
  if (set < 0) fail(ErrorCategory::data_format, path, "checkpoint has no dataset /config");
  H5Id type(H5Dget_type(set), H5Tclose);
  std::string out(H5Tget_size(type), '\0');
  if (H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(ErrorCategory::data_format, path, "cannot read checkpoint /config");
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

}  // namespace

CheckpointIdentity CheckpointIdentity::for_data(const std::string& data_path, const std::string& data_digest) {
  CheckpointIdentity id;
  id.kbt_version = version_string;
  id.data_path = std::filesystem::absolute(data_path).lexically_normal().string();
  id.data_digest = data_digest;
  return id;
}

std::string checkpoint_path_for(const std::string& results_path) { return results_path + ".partial.h5"; }

CheckpointStatus read_checkpoint_status(const std::string& path) {
  H5Id file(open_checkpoint(path, H5F_ACC_RDONLY, false), H5Fclose);
  if (H5Aexists(file, "combos_done") <= 0) fail(ErrorCategory::data_format, path, "not a kbt checkpoint");
  CheckpointStatus s;
  s.combos_done = read_u64_attribute(file, "combos_done", path);
  s.combos_total = read_u64_attribute(file, "combos_total", path);
  s.results_path = read_string_attribute(file, "results_path", path);
  s.resume_command = read_string_attribute(file, "resume_command", path);
  return s;
}

Checkpoint Checkpoint::create(const std::string& path, const CheckpointIdentity& identity, const SweepResults& results,
                              const std::string& results_path, const std::string& resume_command) {
  const std::size_t n = results.n_rows(), n_params = results.param_names.size();
  if (identity.n_combos != n) throw Error(ErrorCategory::internal, "checkpoint identity: combo count mismatch");
  {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  // Written aside, then linked into place: link() fails when `path` exists,
  // so of two runs that start on the same output at once only one gets it.
  AtomicOutput temp(path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    H5Id file(checked(H5Fcreate(temp.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "file", path),
              H5Fclose);
    write_1d(file, "combo_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, results.combo_ids.data(), n, path);
    {
      H5Id g = make_group(file, "params", path);
      std::string order;
      for (const auto& name : results.param_names) order += (order.empty() ? "" : ",") + name;
      write_string_attribute(g, "order", order, path);
      std::vector<double> col(n);
      for (std::size_t p = 0; p < n_params; ++p) {
        for (std::size_t i = 0; i < n; ++i) col[i] = results.params[i * n_params + p];
        write_1d(g, results.param_names[p], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, col.data(), n, path);
      }
    }
    {
      H5Id g = make_group(file, "metrics", path);
      for (std::size_t m = 0; m < n_metrics; ++m)
        write_1d(g, metric_names()[m], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nullptr, n, path);
    }
    {
      H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(type, std::max<std::size_t>(identity.config_yaml.size(), 1));
      H5Tset_cset(type, H5T_CSET_UTF8);
      H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
      H5Id set(checked(H5Dcreate2(file, "config", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "/config", path),
               H5Dclose);
      check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, identity.config_yaml.c_str()), "/config", path);
    }
    {
      H5Id g = make_group(file, "checkpoint", path);
      for (const auto& [name, member] : identity_fields()) write_string_attribute(g, name, identity.*member, path);
    }
    write_string_attribute(file, "kbt_version", version_string, path);
    write_string_attribute(file, "results_path", results_path, path);
    write_string_attribute(file, "resume_command", resume_command, path);
    write_u64_attribute(file, "combos_total", n, path);
    write_u64_attribute(file, "combos_done", 0, path);
    {
      // `complete = 0`: refused by every results reader (results_reader.cpp).
      H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
      H5Id attr(checked(H5Acreate2(file, "complete", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT),
                        "attribute complete", path),
                H5Aclose);
      const double zero = 0.0;
      check(H5Awrite(attr, H5T_NATIVE_DOUBLE, &zero), "attribute complete", path);
    }
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", path);
    check(file.close(), "file", path);
  }
  if (!temp.commit_exclusive())
    fail(ErrorCategory::io, path,
         "the checkpoint of another run of this output appeared meanwhile (two runs at once?); not overwritten");
  return Checkpoint(path, open_checkpoint(path, H5F_ACC_RDWR, false), 0, n);
}

Checkpoint Checkpoint::resume(const std::string& path, const CheckpointIdentity& identity, const SweepResults& results,
                              std::vector<double>& metrics) {
  H5Id file(open_checkpoint(path, H5F_ACC_RDWR, false), H5Fclose);
  if (H5Aexists(file, "combos_done") <= 0) fail(ErrorCategory::data_format, path, "not a kbt checkpoint");
  const std::string advice =
      "; it was written by another run (delete it to start over, or resume with the same config, data, device, "
      "precision and --sample/--seed)";
  const auto differs = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    // `device: auto` may choose another space now: the device can be named.
    const std::string hint = what == "device" ? " (run with --device " + theirs + ")" : "";
    fail(ErrorCategory::config, path,
         "cannot resume: the checkpoint's " + what + " is '" + theirs + "', this run's is '" + ours + "'" + hint +
             advice);
  };
  if (read_config_text(file, path) != identity.config_yaml)
    fail(ErrorCategory::config, path, "cannot resume: the config text differs from the checkpoint's" + advice);
  {
    H5Id g(H5Gopen2(file, "checkpoint", H5P_DEFAULT), H5Gclose);
    if (g < 0) fail(ErrorCategory::data_format, path, "checkpoint has no group /checkpoint");
    for (const auto& [name, member] : identity_fields()) {
      const std::string theirs = read_string_attribute(g, name, path);
      if (theirs != identity.*member) differs(name, theirs, identity.*member);
    }
  }
  const std::uint64_t total = read_u64_attribute(file, "combos_total", path);
  const std::uint64_t done = read_u64_attribute(file, "combos_done", path);
  const std::size_t n = results.n_rows();
  if (total != n) differs("number of combos", std::to_string(total), std::to_string(n));
  if (done > total) fail(ErrorCategory::data_format, path, "checkpoint has combos_done > combos_total");
  {
    // The combos themselves (constraints and sampling give the same list for the same config).
    H5Id set(H5Dopen2(file, "combo_id", H5P_DEFAULT), H5Dclose);
    if (set < 0) fail(ErrorCategory::data_format, path, "checkpoint has no dataset /combo_id");
    std::vector<std::uint64_t> ids(n);
    if (n > 0 && H5Dread(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids.data()) < 0)
      fail(ErrorCategory::data_format, path, "cannot read checkpoint /combo_id");
    if (ids != results.combo_ids)
      fail(ErrorCategory::config, path, "cannot resume: the checkpoint holds other combos" + advice);
  }
  if (metrics.size() != n * n_metrics) throw Error(ErrorCategory::internal, "checkpoint resume: metrics not sized");
  std::vector<double> col(done);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    transfer_rows(file, std::string("metrics/") + metric_names()[m], 0, done, col.data(), false, path);
    for (std::size_t i = 0; i < done; ++i) metrics[i * n_metrics + m] = col[i];
  }
  return Checkpoint(path, file.release(), done, total);  // the Checkpoint owns the file from here
}

Checkpoint::~Checkpoint() {
  if (file_ >= 0) detail::note_file_close(H5Fclose(file_));
}

Checkpoint::Checkpoint(Checkpoint&& other) noexcept
    : path_(std::move(other.path_)), file_(other.file_), done_(other.done_), total_(other.total_) {
  other.file_ = -1;
}

void Checkpoint::commit(std::uint64_t first, std::uint64_t count, const double* metrics) {
  if (first != done_ || first + count > total_)
    throw Error(ErrorCategory::internal, path_ + ": checkpoint commit out of order");
  {
    const hid_t file = file_;
    std::vector<double> col(count);
    for (std::size_t m = 0; m < n_metrics; ++m) {
      for (std::uint64_t i = 0; i < count; ++i) col[i] = metrics[i * n_metrics + m];
      transfer_rows(file, std::string("metrics/") + metric_names()[m], first, count, col.data(), true, path_);
    }
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "rows", path_);
    // Only now: the rows above are in the file.
    H5Id attr(H5Aopen(file, "combos_done", H5P_DEFAULT), H5Aclose);
    if (attr < 0) fail(ErrorCategory::data_format, path_, "checkpoint has no attribute combos_done");
    const std::uint64_t done = first + count;
    check(H5Awrite(attr, H5T_NATIVE_UINT64, &done), "attribute combos_done", path_);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "attribute combos_done", path_);
  }
  done_ = first + count;
}

void remove_checkpoint(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

}  // namespace kbt
