#include "data/hdf5_support.hpp"

#include <atomic>

namespace kbt::detail {
namespace {

std::atomic<bool> a_file_close_failed{false};

}  // namespace

void note_file_close(herr_t status) {
  if (status < 0) a_file_close_failed = true;
}

void finish_hdf5() {
  if (!a_file_close_failed) H5close();
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

}  // namespace kbt::detail
