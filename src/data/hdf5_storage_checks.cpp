// Consistency checks of a dataset's storage before libhdf5 reads it
// (src/data/hdf5_storage_checks.hpp).

#include "data/hdf5_storage_checks.hpp"

#include <algorithm>
#include <set>

#include "data/hdf5_support.hpp"
#include "data/validation.hpp"

namespace kbt::detail {

constexpr hsize_t max_checked_chunks = 4096;  // see check_storage_holds_extent

// A corrupt chunk index can claim chunks of any size, which libhdf5 then
// allocates to read them (found by fuzz_hdf5: 4 GiB for one chunk of a
// 33 KB file); the chunks of one dataset cannot take more than the file.
void check_storage_fits_file(hid_t ds, const std::string& path, const std::string& dataset) {
  const auto fail = [&](const std::string& problem) { fail_dataset(path, dataset, problem); };
  H5Id holder(H5Iget_file_id(ds), H5Fclose);
  hsize_t file_size = 0;
  if (!holder.valid() || H5Fget_filesize(holder.get(), &file_size) < 0) fail("cannot size the file (file is corrupt)");
  const hsize_t stored = H5Dget_storage_size(ds);
  if (stored > file_size)
    fail("its storage claims " + std::to_string(stored) + " bytes, more than the whole file of " +
             std::to_string(file_size) + " bytes (file is corrupt)");
}

// libhdf5 1.10 trusts the stored shapes and sizes of a dataset's blocks and
// reads past its own buffers when a corrupt header makes them inconsistent
// (found by fuzz_hdf5: an unfiltered chunk indexed as 238 of its 400 bytes; a
// chunk marked "deflate skipped" holding 346 bytes; a chunk shape larger than
// the dataset). A compact dataset stores exactly its extent, a contiguous one
// at least its extent (or nothing yet: fill values). A chunked one has a chunk
// shape within its maximum extent, and each chunk (up to max_checked_chunks of
// them; beyond, only their total) sits on the chunk grid, once, and holds
// exactly a chunk's bytes unless a size-changing filter was applied to it.
void check_storage_holds_extent(hid_t ds, const std::vector<hsize_t>& dims, std::size_t element_size,
                                const std::string& path, const std::string& dataset) {
  const auto fail = [&](const std::string& problem) { fail_dataset(path, dataset, problem); };
  H5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (!dcpl.valid()) fail("cannot read its storage layout (file is corrupt)");
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  const hsize_t stored = H5Dget_storage_size(ds);
  const auto short_storage = [&](hsize_t expected) {
    fail("stores " + std::to_string(stored) + " bytes where its layout needs " + std::to_string(expected) +
             " (file is corrupt)");
  };
  if (layout == H5D_COMPACT || layout == H5D_CONTIGUOUS) {
    hsize_t expected = element_size;
    for (hsize_t d : dims) expected *= d;  // no overflow: check_extent_fits_file bounds it
    if (layout == H5D_COMPACT ? stored != expected : (stored != 0 && stored < expected)) short_storage(expected);
    return;
  }
  if (layout != H5D_CHUNKED) return;
  const int rank = H5Pget_chunk(dcpl.get(), 0, nullptr);
  if (rank != static_cast<int>(dims.size()) || rank <= 0)
    fail("its chunk shape does not match its rank (file is corrupt)");
  std::vector<hsize_t> chunk(static_cast<std::size_t>(rank)), max_dims(dims.size());
  H5Pget_chunk(dcpl.get(), rank, chunk.data());
  H5Id space(H5Dget_space(ds), H5Sclose);
  if (!space.valid() || H5Sget_simple_extent_dims(space.get(), nullptr, max_dims.data()) < 0)
    fail("cannot read its extent (file is corrupt)");
  hsize_t chunk_bytes = element_size;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    if (chunk[i] == 0 || (max_dims[i] != H5S_UNLIMITED && chunk[i] > max_dims[i]))
      fail("its chunk shape " + describe_dims(chunk) + " does not fit its extent " +
               describe_dims(dims) + " (file is corrupt)");
    chunk_bytes *= chunk[i];
  }
  // Filters that change a chunk's size (all but shuffle): a chunk that skipped
  // every one of them is stored raw. A filter this HDF5 library lacks (a
  // blosc or zstd plugin not installed) is named here: the read would fail
  // as if the file were corrupt.
  unsigned size_changing = 0;
  const int n_filters = H5Pget_nfilters(dcpl.get());
  for (int f = 0; f < n_filters && f < 32; ++f) {
    unsigned flags = 0, filter_config = 0;
    std::size_t n_values = 0;
    char filter_name[64] = "";
    const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(f), &flags, &n_values, nullptr,
                                           sizeof filter_name, filter_name, &filter_config);
    if (id >= 0 && H5Zfilter_avail(id) <= 0) {
      filter_name[sizeof filter_name - 1] = '\0';
      fail("is compressed with HDF5 filter " + std::to_string(id) +
               (filter_name[0] ? " (" + std::string(filter_name) + ")" : std::string()) +
               ", which this HDF5 library cannot decode: install its plugin (HDF5_PLUGIN_PATH), or rewrite "
               "the file without it (h5repack -f GZIP=4)");
    }
    if (id != H5Z_FILTER_SHUFFLE) size_changing |= 1u << f;
  }
  hsize_t n_chunks = 0;
  if (H5Dget_num_chunks(ds, space.get(), &n_chunks) < 0) fail("cannot read its chunk index (file is corrupt)");
  if (size_changing == 0 && stored != chunk_bytes * n_chunks) short_storage(chunk_bytes * n_chunks);
  if (n_chunks > max_checked_chunks) return;
  std::set<std::vector<hsize_t>> seen;
  std::vector<hsize_t> offset(chunk.size());
  for (hsize_t k = 0; k < n_chunks; ++k) {
    unsigned mask = 0;
    haddr_t address = 0;
    hsize_t size = 0;
    if (H5Dget_chunk_info(ds, space.get(), k, offset.data(), &mask, &address, &size) < 0)
      fail("cannot read chunk " + std::to_string(k) + " of its index (file is corrupt)");
    bool on_grid = true;
    for (std::size_t i = 0; i < chunk.size(); ++i)
      on_grid = on_grid && offset[i] % chunk[i] == 0 && offset[i] < std::max<hsize_t>(dims[i], 1);
    if (!on_grid || !seen.insert(offset).second)
      fail("chunk " + std::to_string(k) + " at " + describe_dims(offset) +
               " is off its chunk grid or given twice (file is corrupt)");
    if ((mask & size_changing) == size_changing && size != chunk_bytes)
      fail("chunk " + std::to_string(k) + " is stored unfiltered in " + std::to_string(size) +
               " bytes, not a chunk's " + std::to_string(chunk_bytes) + " (file is corrupt)");
  }
}

}  // namespace kbt::detail
