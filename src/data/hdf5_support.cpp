#include "data/hdf5_support.hpp"

#include <kbt/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include <unistd.h>

namespace kbt::detail {
namespace {

std::atomic<bool> a_file_close_failed{false};

constexpr hsize_t kChunk = 8192;  // elements per chunk, filled from the last axis outwards

void check(herr_t status, const std::string& name, const std::string& path) {
  if (status < 0) throw Error(ErrorCategory::io, path + ": writing " + name + " failed");
}

}  // namespace

void note_file_close(herr_t status) {
  if (status < 0) a_file_close_failed = true;
}

void finish_hdf5() {
  if (!a_file_close_failed) H5close();
}

void write_numeric_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type,
                           const std::vector<hsize_t>& dims, const void* data, const std::string& path,
                           unsigned deflate_level) {
  H5Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  check(H5Pset_obj_track_times(dcpl.get(), 0), name, path);
  const bool empty = std::any_of(dims.begin(), dims.end(), [](hsize_t d) { return d == 0; });
  if (!empty) {
    // Whole trailing rows per chunk: a [trials][bars][1] array chunked {1,1,1} takes a minute to write.
    std::vector<hsize_t> chunk(dims.size(), 1);
    hsize_t elements = 1;
    for (std::size_t axis = dims.size(); axis-- > 0 && elements < kChunk;) {
      chunk[axis] = std::min(dims[axis], std::max<hsize_t>(1, kChunk / elements));
      elements *= chunk[axis];
    }
    check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), name, path);
    check(H5Pset_shuffle(dcpl.get()), name, path);
    check(H5Pset_deflate(dcpl.get(), deflate_level), name, path);
  }
  H5Id ds(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) check(-1, name, path);
  if (!empty) check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name, path);
}

void write_string_dataset(hid_t parent, const std::string& name, const std::vector<std::string>& values,
                          const std::string& path) {
  std::size_t size = 1;
  for (const auto& s : values) size = std::max(size, s.size());
  std::vector<char> buf(values.size() * size, '\0');
  for (std::size_t i = 0; i < values.size(); ++i) std::copy(values[i].begin(), values[i].end(), buf.begin() + i * size);
  H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  check(H5Tset_size(type.get(), size), name, path);
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), name, path);
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), name, path);
  const hsize_t n = values.size();
  H5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  check(H5Pset_obj_track_times(dcpl.get(), 0), name, path);
  H5Id ds(H5Dcreate2(parent, name.c_str(), type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) check(-1, name, path);
  if (n > 0) check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), name, path);
}

std::string describe_h5_type(hid_t type) {
  const std::string bits = std::to_string(H5Tget_size(type) * 8);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
    case H5T_FLOAT: return "float" + bits;
    case H5T_STRING: return H5Tis_variable_str(type) > 0 ? "string (variable-length)" : "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "vlen";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_REFERENCE: return "reference";
    case H5T_TIME: return "time";
    default: return "unknown type";
  }
}

std::string describe_dims(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string out;
  for (hsize_t d : dims) out += "[" + std::to_string(d) + "]";
  return out;
}

// Deflate's largest ratio (RFC 1951: 258-byte matches in 2-bit codes, ~1032:1).
constexpr double kMostDeflated = 1032;

void check_declared_bytes(hid_t obj, double bytes, bool stored_compressed, const std::string& what,
                          const std::string& path, double memory_bytes) {
  const auto fail = [&](const std::string& why) { throw Error(ErrorCategory::data_format, path + ": " + why); };
  H5Id file(H5Iget_file_id(obj), H5Fclose);
  hsize_t file_bytes = 0;
  if (file < 0 || H5Fget_filesize(file, &file_bytes) < 0) fail("cannot tell the size of the file");
  const double stored_at_most = static_cast<double>(file_bytes) * (stored_compressed ? kMostDeflated : 1.0);
  const double memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  // As text without a cast: a damaged size can exceed what an integer holds.
  const auto text = [](double v) {
    char s[40];
    std::snprintf(s, sizeof s, "%.0f", v);
    return std::string(s);
  };
  if (!(bytes <= stored_at_most))
    fail(what + " declares " + text(bytes) + " bytes, more than a file of " + std::to_string(file_bytes) +
         " bytes can hold: the file is damaged");
  const double allocated = memory_bytes < 0 ? bytes : memory_bytes;
  if (memory > 0 && !(allocated <= memory))
    fail(what + " declares " + text(allocated) + " bytes, more than this machine's memory: the file is damaged");
}

}  // namespace kbt::detail
