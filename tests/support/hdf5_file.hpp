#pragma once
// A kbt output file opened read-only for a test: whole datasets read back
// into vectors, attributes looked up.

#include <gtest/gtest.h>
#include <hdf5.h>

#include <string>
#include <vector>

namespace kbt::test {

struct Hdf5File {
  hid_t id;
  explicit Hdf5File(const std::string& path) : id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~Hdf5File() {
    if (id >= 0) H5Fclose(id);
  }
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;

  // Dataset `name` whole, as `mem_type` (a missing or unreadable one fails the test).
  template <class T>
  std::vector<T> read(const std::string& name, hid_t mem_type, std::vector<hsize_t>* dims = nullptr) const {
    const hid_t set = H5Dopen2(id, name.c_str(), H5P_DEFAULT);
    EXPECT_GE(set, 0) << name;
    if (set < 0) return {};
    const hid_t space = H5Dget_space(set);
    std::vector<hsize_t> d(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, d.data(), nullptr);
    hsize_t n = 1;
    for (const auto x : d) n *= x;
    std::vector<T> v(n);
    EXPECT_GE(H5Dread(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << name;
    if (dims) *dims = d;
    H5Sclose(space);
    H5Dclose(set);
    return v;
  }

  bool has_attribute(const std::string& object, const std::string& attribute) const {
    return H5Aexists_by_name(id, object.c_str(), attribute.c_str(), H5P_DEFAULT) > 0;
  }
};

}  // namespace kbt::test
