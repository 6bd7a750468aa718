#pragma once
// What a damaged HDF5 file can declare about a dataset's storage that libhdf5
// 1.10 trusts, checked before it reads the dataset (internal): the data reader
// (hdf5_reader.cpp) and the actions reader (simulate_job.cpp). Each problem is
// kbt::Error(data_format) "<path>: dataset <dataset>: ... (file is corrupt)".

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <vector>

namespace kbt::detail {

// The dataset's storage takes no more than the file holding it.
void check_storage_fits_file(hid_t ds, const std::string& path, const std::string& dataset);

// Its storage holds its extent `dims` of `element_size`-byte elements as its
// layout says (see the .cpp). `dims` must already be bounded by the file
// (no overflow of their product in bytes).
void check_storage_holds_extent(hid_t ds, const std::vector<hsize_t>& dims, std::size_t element_size,
                                const std::string& path, const std::string& dataset);

}  // namespace kbt::detail
