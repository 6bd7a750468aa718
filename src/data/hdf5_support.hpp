#pragma once
// Small RAII helpers over the HDF5 C API for the data layer (internal).

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt::detail {

// HDF5 1.10 keeps a file whose H5Fclose failed (its last flush hit a full
// disk) in its registry and crashes closing it again in its exit handler. So
// the failure is noted here, and a program's exit runs HDF5's termination only
// when no close failed (finish_hdf5; the CLI calls H5dont_atexit first).
void note_file_close(herr_t status);
void finish_hdf5();

// Owns one HDF5 identifier and closes it with the matching H5?close.
class H5Id {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Id() = default;
  H5Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~H5Id() { close(); }
  H5Id(H5Id&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = -1; }
  H5Id& operator=(H5Id&& o) noexcept {
    if (this != &o) {
      close();
      id_ = o.id_;
      closer_ = o.closer_;
      o.id_ = -1;
    }
    return *this;
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;

  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // pass straight to the C API
  bool valid() const { return id_ >= 0; }
  // Gives up ownership without closing; returns the identifier.
  hid_t release() {
    const hid_t id = id_;
    id_ = -1;
    return id;
  }
  // Closes now; returns the H5?close status (0 when nothing was open).
  herr_t close() {
    herr_t status = 0;
    if (id_ >= 0 && closer_) status = closer_(id_);
    if (closer_ == &H5Fclose) note_file_close(status);
    id_ = -1;
    return status;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// Turns off HDF5's automatic error-stack printing for its lifetime, so the
// user sees only kbt's one message; restores the previous handler after.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Reproducible datasets (no object timestamps) under `parent`; a failure is
// kbt::Error(io) "<path>: writing <name> failed".
// A numeric dataset of `dims`, chunked (about 8192 elements, whole trailing
// rows first) with shuffle + deflate at `deflate_level` when it is not empty.
// Data files take the default 6 (written once, read by every run); a job's
// outputs take 1 (docs/results.md "Simulate files": a third less time for a
// file about 1 % larger).
void write_numeric_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type,
                           const std::vector<hsize_t>& dims, const void* data, const std::string& path,
                           unsigned deflate_level = 6);
// Fixed-length, NUL-padded UTF-8 strings sized to the longest entry (no global heap).
void write_string_dataset(hid_t parent, const std::string& name, const std::vector<std::string>& values,
                          const std::string& path);

// What a damaged file declares is checked before it is allocated: `bytes` of
// `what` must fit the file holding `obj` (1,032 times it when the object may be
// deflated) and this machine's memory; kbt::Error(data_format) "<path>: <what>
// declares N bytes, ..." otherwise. `memory_bytes`, when given, is what reading
// it allocates where that differs (a conversion to a wider type). The results,
// checkpoint and actions readers.
void check_declared_bytes(hid_t obj, double bytes, bool stored_compressed, const std::string& what,
                          const std::string& path, double memory_bytes = -1);

// "int32", "uint64", "float64", "string", "compound", ... for messages.
std::string describe_h5_type(hid_t type);
// "[3][20000]", "scalar" for rank 0.
std::string describe_dims(const std::vector<hsize_t>& dims);

}  // namespace kbt::detail
