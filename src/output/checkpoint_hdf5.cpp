// The checkpoint file of a running sweep (include/kbt/output/checkpoint.hpp,
// docs/results.md). Layout: the results layout's rows (src/output/results_io.hpp)
//   /combo_id            uint64  [n]
//   /params/<name>       float64 [n]   (group attribute `order`)
//   /metrics/<name>      float64 [n]   contiguous, allocated at creation;
//                                      rows [0, combos_done) are final
// and
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
// finish() adds the results file's groups into space reserved first.

#include <hdf5.h>
#include <kbt/output/checkpoint.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/version.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <filesystem>
#include <system_error>
#include <type_traits>
#include <unistd.h>

#include "data/hdf5_support.hpp"
#include "data/isolated_read.hpp"
#include "output/results_io.hpp"

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
  detail::write_string(obj, name, value, path, true);
}

// Checkpoint attributes, read with the checkpoint's wording.
std::string checkpoint_text(hid_t obj, const std::string& name, const std::string& path) {
  if (!detail::has_attribute(obj, name)) fail(ErrorCategory::data_format, path, "checkpoint has no attribute " + name);
  return detail::read_string_attribute(obj, name, path);
}

std::uint64_t checkpoint_count(hid_t obj, const std::string& name, const std::string& path) {
  if (!detail::has_attribute(obj, name)) fail(ErrorCategory::data_format, path, "checkpoint has no attribute " + name);
  return detail::read_u64_attribute(obj, name, path);
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
  if (H5Lexists(file, "config", H5P_DEFAULT) <= 0)
    fail(ErrorCategory::data_format, path, "checkpoint has no dataset /config");
  return detail::read_string_dataset(file, "config", path);
}

CheckpointStatus read_status(hid_t file, const std::string& path) {
  if (H5Aexists(file, "combos_done") <= 0) fail(ErrorCategory::data_format, path, "not a kbt checkpoint");
  CheckpointStatus s;
  s.combos_done = checkpoint_count(file, "combos_done", path);
  s.combos_total = checkpoint_count(file, "combos_total", path);
  s.results_path = checkpoint_text(file, "results_path", path);
  s.resume_command = checkpoint_text(file, "resume_command", path);
  return s;
}

// libhdf5 can crash on a damaged file: what `resume` reads (with
// `every_row`, every row too) or the status is read first in kbt's reader
// process, as data files are (docs/results.md "Damaged files").
void read_first_in_reader_process(const std::string& path, bool every_row) {
  detail::read_isolated(path, [&](detail::MarketDataSink&) {
    H5Id file(open_checkpoint(path, H5F_ACC_RDONLY, false), H5Fclose);
    read_status(file, path);
    if (!every_row) return;
    read_config_text(file, path);
    H5Id g(H5Gopen2(file, "checkpoint", H5P_DEFAULT), H5Gclose);
    if (g < 0) fail(ErrorCategory::data_format, path, "checkpoint has no group /checkpoint");
    for (const auto& field : identity_fields()) checkpoint_text(g, field.first, path);
    detail::read_every_row(detail::FileRows(file, path));
  });
}

// Refuses a run whose rows would not fit on the disk that holds `path`
// (the rows are allocated now but written as the sweep goes).
void check_disk_space(const std::string& path, std::uint64_t n, std::size_t n_params, std::size_t n_stored_metrics) {
  const auto parent = std::filesystem::path(path).parent_path();
  struct statvfs fs {};
  if (::statvfs(parent.empty() ? "." : parent.c_str(), &fs) != 0) return;  // unknown: the writes will tell
  const double need = static_cast<double>(n) * 8.0 * static_cast<double>(1 + n_params + n_stored_metrics) + (1 << 20);
  const double have = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  if (need <= have) return;
  char text[160];
  std::snprintf(text, sizeof text, "about %.2f GB on disk for the rows of its %llu combos, and %.2f GB are free there",
                need / 1e9, static_cast<unsigned long long>(n), have / 1e9);
  throw Error(ErrorCategory::limit, path + ": this run's results need " + text +
                                        ": make room, write elsewhere (--out), or sweep fewer combos (coarser ranges, "
                                        "constraints, --sample N)");
}

}  // namespace

CheckpointIdentity CheckpointIdentity::for_data(const std::string& data_path, const std::string& data_digest) {
  CheckpointIdentity id;
  id.kbt_version = version_string;
  id.data_path = data_path_for_results(data_path);
  id.data_digest = data_digest;
  return id;
}

std::string checkpoint_path_for(const std::string& results_path) { return results_path + ".partial.h5"; }

void check_checkpoint_presence(const std::string& checkpoint, const std::string& results_path, bool resume,
                               const std::string& resume_option) {
  const bool have = std::filesystem::exists(checkpoint);
  if (have && !resume) {
    std::string progress;  // "N of M combos done", or why it cannot be read
    try {
      const CheckpointStatus s = read_checkpoint_status(checkpoint);
      progress = std::to_string(s.combos_done) + " of " + std::to_string(s.combos_total) + " combos done";
    } catch (const Error& e) {
      progress = e.what();
    }
    throw Error(ErrorCategory::config, checkpoint + ": an unfinished run" + (results_path.empty() ? "" : " of " + results_path) +
                                           " left this checkpoint (" + progress +
                                           "); continue it with " + resume_option + ", or delete it to start over");
  }
  if (!have && resume)
    throw Error(ErrorCategory::io, resume_option + ": nothing to resume: no checkpoint " + checkpoint +
                                       (!results_path.empty() && std::filesystem::exists(results_path)
                                            ? " (" + results_path + " is a finished run)"
                                            : ""));
}

CheckpointStatus read_checkpoint_status(const std::string& path) {
  read_first_in_reader_process(path, false);
  H5Id file(open_checkpoint(path, H5F_ACC_RDONLY, false), H5Fclose);
  return read_status(file, path);
}

std::shared_ptr<Checkpoint> Checkpoint::create(const std::string& path, const CheckpointIdentity& identity,
                                               const std::vector<std::string>& param_names, const ComboRows& combos,
                                               MetricMask metrics, const std::string& results_path,
                                               const std::string& resume_command) {
  const std::uint64_t n = combos.size();
  if (identity.n_combos != n) throw Error(ErrorCategory::internal, "checkpoint identity: combo count mismatch");
  {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  check_disk_space(path, n, param_names.size(), metric_names_of(metrics).size());
  // Written aside, then linked into place: link() fails when `path` exists,
  // so of two runs that start on the same output at once only one gets it.
  AtomicOutput temp(path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    H5Id file(checked(H5Fcreate(temp.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "file", path),
              H5Fclose);
    detail::create_row_datasets(
        file, param_names, integer_params_of(combos.grid(), param_names), n, metrics,
        [&](std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params) {
          combos.read(first, count, ids, params);
        },
        path);
    detail::write_string(file, "config", identity.config_yaml, path, false);
    {
      H5Id g = detail::make_group(file, "checkpoint", path);
      for (const auto& [name, member] : identity_fields()) write_string_attribute(g, name, identity.*member, path);
    }
    write_string_attribute(file, "kbt_version", version_string, path);
    write_string_attribute(file, "results_path", results_path, path);
    write_string_attribute(file, "resume_command", resume_command, path);
    detail::write_u64_attribute(file, "combos_total", n, path);
    detail::write_u64_attribute(file, "combos_done", 0, path);
    // `complete = 0`: refused by every results reader (results_reader.cpp).
    detail::write_number_attribute(file, "complete", 0.0, path);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", path);
    check(file.close(), "file", path);
  }
  if (!temp.commit_exclusive())
    fail(ErrorCategory::io, path,
         "the checkpoint of another run of this output appeared meanwhile (two runs at once?); not overwritten");
  return std::shared_ptr<Checkpoint>(new Checkpoint(path, open_checkpoint(path, H5F_ACC_RDWR, false), 0, n, metrics));
}

std::shared_ptr<Checkpoint> Checkpoint::resume(const std::string& path, const CheckpointIdentity& identity,
                                               const std::vector<std::string>& param_names, const ComboRows& combos,
                                               MetricMask metrics) {
  read_first_in_reader_process(path, true);
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
      const std::string theirs = checkpoint_text(g, name, path);
      if (theirs != identity.*member) differs(name, theirs, identity.*member);
    }
  }
  const std::uint64_t total = checkpoint_count(file, "combos_total", path);
  const std::uint64_t done = checkpoint_count(file, "combos_done", path);
  const std::uint64_t n = combos.size();
  if (total != n) differs("number of combos", std::to_string(total), std::to_string(n));
  if (done > total) fail(ErrorCategory::data_format, path, "checkpoint has combos_done > combos_total");
  if (detail::read_param_names(file, path) != param_names)
    fail(ErrorCategory::config, path, "cannot resume: the checkpoint holds other params" + advice);
  if (detail::FileRows(file, path).metric_mask() != metrics)
    fail(ErrorCategory::config, path, "cannot resume: the checkpoint holds other metrics" + advice);
  // The combos themselves (constraints and sampling give the same list for
  // the same config), a block at a time.
  for (std::uint64_t first = 0; first < n; first += 65536) {
    const std::uint64_t count = std::min<std::uint64_t>(65536, n - first);
    std::vector<std::uint64_t> ids(static_cast<std::size_t>(count));
    detail::transfer_rows(file, "combo_id", H5T_NATIVE_UINT64, first, count, ids.data(), false, path);
    if (ids != combos.ids(first, count))
      fail(ErrorCategory::config, path, "cannot resume: the checkpoint holds other combos" + advice);
  }
  // A finish() interrupted after `complete = 1`, before the file was moved.
  if (detail::read_number_attribute(file, "complete", path) != 0.0) detail::set_number_attribute(file, "complete", 0.0, path);
  return std::shared_ptr<Checkpoint>(new Checkpoint(path, file.release(), done, total, metrics));  // owns the file from here
}

Checkpoint::~Checkpoint() {
  if (file_ >= 0) detail::note_file_close(H5Fclose(file_));
}

void Checkpoint::commit(std::uint64_t first, std::uint64_t count, const double* metrics) {
  if (first != done_ || first + count > total_ || file_ < 0)
    throw Error(ErrorCategory::internal, path_ + ": checkpoint commit out of order");
  const hid_t file = file_;
  detail::write_metric_rows(file, first, count, metrics, metrics_, path_);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "rows", path_);
  // Only now: the rows above are in the file.
  detail::set_u64_attribute(file, "combos_done", first + count, path_);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "attribute combos_done", path_);
  done_ = first + count;
}

namespace {

// Extends the file at `path` by `bytes` of allocated disk space (zeros past
// HDF5's end of data, which HDF5 truncates away when it closes the file).
void reserve_space(const std::string& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(ErrorCategory::io, path, std::string("cannot open to finish: ") + std::strerror(errno));
  struct stat st {};
  int err = ::fstat(fd, &st) == 0 ? ::posix_fallocate(fd, st.st_size, static_cast<off_t>(bytes)) : errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0)
    fail(ErrorCategory::io, path,
         "cannot write the results (" + std::string(std::strerror(err)) + " while reserving " +
             std::to_string(bytes >> 10) + " KiB); the checkpoint is kept: make room, then run again with --resume");
}

}  // namespace

std::shared_ptr<const ResultRows> Checkpoint::rows() const {
  if (file_ < 0) throw Error(ErrorCategory::internal, path_ + ": the checkpoint is closed");
  // Read through the checkpoint's open file, which they keep alive.
  return std::make_shared<detail::FileRows>(file_, path_, shared_from_this());
}

void Checkpoint::finish(const SweepResults& results, const RunProfile& profile,
                        const VerificationResults* verification, const ValidationResults* validation) {
  if (file_ < 0 || done_ != total_) throw Error(ErrorCategory::internal, path_ + ": finishing an unfinished checkpoint");
  // Closed and opened again around the reservation, so that HDF5 sees the
  // reserved bytes as past its data and cuts them off when it closes.
  check(H5Fflush(file_, H5F_SCOPE_GLOBAL), "file", path_);
  {
    const herr_t closed = H5Fclose(file_);
    detail::note_file_close(closed);
    file_ = -1;
    check(closed, "file", path_);
  }
  reserve_space(path_, detail::final_groups_bytes(results, profile, verification, validation));
  H5Id file(open_checkpoint(path_, H5F_ACC_RDWR, false), H5Fclose);
  detail::write_final_groups(file, results, profile, verification, validation, path_);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", path_);
  check(file.close(), "file", path_);  // the last metadata is written here
}

void remove_checkpoint(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

}  // namespace kbt
