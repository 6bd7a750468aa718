// Loading the docs/data-format.md HDF5 layout with full validation: every problem becomes
// one kbt::Error naming the file and the dataset.

#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <unordered_map>
#include <unordered_set>

#include "data/hdf5_storage_checks.hpp"
#include "data/hdf5_support.hpp"
#include "data/isolated_read.hpp"
#include "data/validation.hpp"

namespace kbt {
namespace {

using detail::H5Id;

enum class Kind { int64, float64, string };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::int64: return "int64";
    case Kind::float64: return "float64";
    case Kind::string: return "string";
  }
  return "?";
}

bool type_matches(hid_t type, Kind k) {
  const H5T_class_t cls = H5Tget_class(type);
  switch (k) {
    case Kind::int64: return cls == H5T_INTEGER && H5Tget_size(type) == 8 && H5Tget_sign(type) == H5T_SGN_2;
    case Kind::float64: return cls == H5T_FLOAT && H5Tget_size(type) == 8;
    case Kind::string: return cls == H5T_STRING;
  }
  return false;
}

class Hdf5Reader {
 public:
  Hdf5Reader(std::string path, ExternalData external) : path_(std::move(path)), external_(external) {
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0)
      throw Error(ErrorCategory::io, "cannot open '" + path_ + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error(ErrorCategory::io, "cannot open '" + path_ + "': is a directory");
    {
      std::ifstream probe(path_, std::ios::binary);
      if (!probe) throw Error(ErrorCategory::io, "cannot open '" + path_ + "': " + std::strerror(errno));
    }
#if H5_VERSION_GE(1, 12, 0)
    const htri_t is_hdf5 = H5Fis_accessible(path_.c_str(), H5P_DEFAULT);
#else
    const htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
#endif
    if (is_hdf5 <= 0) throw Error(ErrorCategory::data_format, path_ + ": not an HDF5 file");
    file_ = H5Id(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_.valid())
      throw Error(ErrorCategory::data_format,
                  path_ + ": cannot open as HDF5 (file is corrupt or truncated)");
  }

  [[noreturn]] void fail(const std::string& dataset, const std::string& problem) const {
    detail::fail_dataset(path_, dataset, problem);
  }

  // True when every component of `name` ("/bars/close") exists as a link.
  // A component that is an external link is refused unless the user allows
  // it (docs/data-format.md "Other files"); a user-defined link always is.
  bool exists(const std::string& name) const {
    std::size_t pos = 1;
    while (true) {
      const std::size_t slash = name.find('/', pos);
      const std::string prefix = name.substr(0, slash);
      if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
      H5L_info_t link{};
      if (H5Lget_info(file_.get(), prefix.c_str(), &link, H5P_DEFAULT) < 0)
        fail(prefix, "cannot read its link (file is corrupt)");
      const bool followed = link.type == H5L_TYPE_EXTERNAL && external_ == ExternalData::follow;
      if (followed) check_external_target(prefix, link);
      if (link.type != H5L_TYPE_HARD && link.type != H5L_TYPE_SOFT && !followed)
        fail(prefix, link.type == H5L_TYPE_EXTERNAL
                         ? "is an external link (to another file): kbt reads only the file it is given; copy the "
                           "data into it (h5repack, or kbt data import), or allow it (" + std::string(allow_hint) + ")"
                         : "is a user-defined link: kbt reads only the file it is given; copy the data into it "
                           "(h5repack, or kbt data import)");
      if (slash == std::string::npos) return true;
      pos = slash + 1;
    }
  }

  bool is_group(const std::string& name) const {
    H5Id obj(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Oclose);
    return obj.valid() && H5Iget_type(obj.get()) == H5I_GROUP;
  }

  // Opens a dataset and checks its element kind and shape. A zero in
  // `expected_dims` means "any length"; its actual value is returned in dims.
  H5Id open_checked(const std::string& name, Kind kind, std::vector<hsize_t>& dims) const {
    if (!exists(name)) fail(name, "missing required dataset");
    H5Id obj(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Oclose);
    if (!obj.valid()) fail(name, "cannot open (file is corrupt or truncated)");
    if (H5Iget_type(obj.get()) != H5I_DATASET) fail(name, "expected a dataset, found a group");
    obj.close();
    H5Id ds(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) fail(name, "cannot open (file is corrupt or truncated)");
    H5Id type(H5Dget_type(ds.get()), H5Tclose);
    H5Id space(H5Dget_space(ds.get()), H5Sclose);
    if (!type.valid() || !space.valid()) fail(name, "cannot read its type (file is corrupt or truncated)");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> found(rank > 0 ? static_cast<std::size_t>(rank) : 0);
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), found.data(), nullptr);
    bool shape_ok = found.size() == dims.size();
    for (std::size_t i = 0; shape_ok && i < dims.size(); ++i)
      shape_ok = dims[i] == 0 || dims[i] == found[i];
    if (!type_matches(type.get(), kind) || !shape_ok) {
      std::string want = std::string(kind_name(kind)) + " ";
      for (hsize_t d : dims) want += d == 0 ? std::string("[n]") : "[" + std::to_string(d) + "]";
      fail(name, "expected " + want + ", found " + detail::describe_h5_type(type.get()) + " " +
                     detail::describe_dims(found));
    }
    if (is_virtual(name, ds.get())) {  // followed: its values live in other files, read by libhdf5
      dims = found;
      return ds;
    }
    check_extent_fits_file(name, found, H5Tget_size(type.get()), ds.get());
    check_storage_fits_file(name, ds.get());
    // A variable-length string is stored as a 16-byte global heap reference.
    const std::size_t stored_element =
        kind == Kind::string && H5Tis_variable_str(type.get()) > 0 ? 16 : H5Tget_size(type.get());
    check_storage_holds_extent(name, ds.get(), found, stored_element);
    dims = found;
    return ds;
  }

  // A virtual dataset is refused unless the user allows it (its values live
  // in other files); true when it is one and allowed.
  bool is_virtual(const std::string& name, hid_t ds) const {
    H5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
    if (!dcpl.valid()) fail(name, "cannot read its storage layout (file is corrupt)");
    if (H5Pget_layout(dcpl.get()) != H5D_VIRTUAL) return false;
    if (external_ != ExternalData::follow)
      fail(name, "is a virtual dataset (its values live in other files): kbt reads only the file it is given; "
                 "copy the data into it (h5repack), or allow it (" + std::string(allow_hint) + ")");
    // libhdf5 reads a missing source as fill values, silently: every source
    // must open. Relative names are relative to this file's directory.
    std::size_t n_sources = 0;
    if (H5Pget_virtual_count(dcpl.get(), &n_sources) < 0) fail(name, "cannot read its sources (file is corrupt)");
    for (std::size_t i = 0; i < n_sources; ++i) {
      const auto text = [&](auto get) {
        const ssize_t size = get(dcpl.get(), i, nullptr, 0);
        if (size < 0) fail(name, "cannot read its sources (file is corrupt)");
        std::string out(static_cast<std::size_t>(size) + 1, '\0');
        get(dcpl.get(), i, out.data(), out.size());
        out.resize(static_cast<std::size_t>(size));
        return out;
      };
      const std::string file = text(H5Pget_virtual_filename), dataset = text(H5Pget_virtual_dsetname);
      if (!virtual_source_opens(file, dataset))
        fail(name, "is a virtual dataset whose source " + file + ":" + dataset +
                       " cannot be opened (missing file or dataset); libhdf5 would read fill values in its place");
    }
    return true;
  }

  // Where libhdf5 looks for a virtual dataset's source: "." is this file; a
  // relative name is tried under $HDF5_VDS_PREFIX, then beside this file.
  bool virtual_source_opens(const std::string& file, const std::string& dataset) const {
    std::vector<std::filesystem::path> candidates;
    if (file == ".") {
      candidates.emplace_back(path_);
    } else if (std::filesystem::path(file).is_absolute()) {
      candidates.emplace_back(file);
    } else {
      if (const char* prefix = std::getenv("HDF5_VDS_PREFIX"); prefix && *prefix)
        candidates.push_back(std::filesystem::path(prefix) / file);
      candidates.push_back(std::filesystem::path(path_).parent_path() / file);
    }
    for (const auto& source : candidates) {
      if (!std::filesystem::is_regular_file(source)) continue;
      H5Id f(H5Fopen(source.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
      H5Id d(f.valid() ? H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT) : -1, H5Dclose);
      if (d.valid()) return true;
    }
    return false;
  }

  // A followed external link must reach its object: say which, not "corrupt".
  void check_external_target(const std::string& name, const H5L_info_t& link) const {
    std::string value(link.u.val_size, '\0');
    const char* file = nullptr;
    const char* object = nullptr;
    unsigned flags = 0;
    if (H5Lget_val(file_.get(), name.c_str(), value.data(), value.size(), H5P_DEFAULT) < 0 ||
        H5Lunpack_elink_val(value.data(), value.size(), &flags, &file, &object) < 0)
      fail(name, "cannot read its external link (file is corrupt)");
    H5Id target(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Oclose);
    if (!target.valid())
      fail(name, "is an external link to " + std::string(file) + ":" + object +
                     ", which cannot be opened (missing file or object)");
  }

  // The size of the file that holds `ds`: this one, or the target of a
  // followed external link.
  hsize_t size_of_file_holding(const std::string& name, hid_t ds) const {
    H5Id holder(H5Iget_file_id(ds), H5Fclose);
    hsize_t file_size = 0;
    if (!holder.valid() || H5Fget_filesize(holder.get(), &file_size) < 0)
      fail(name, "cannot size the file (file is corrupt)");
    return file_size;
  }

  // The storage checks of hdf5_storage_checks.hpp, naming this file and `name`.
  void check_storage_fits_file(const std::string& name, hid_t ds) const {
    detail::check_storage_fits_file(ds, path_, name);
  }
  void check_storage_holds_extent(const std::string& name, hid_t ds, const std::vector<hsize_t>& dims,
                                  std::size_t element_size) const {
    detail::check_storage_holds_extent(ds, dims, element_size, path_, name);
  }

  // A corrupt header can claim any extent; refuse one that this file could not
  // hold even at deflate's best ratio (~1:1032) before allocating memory for it.
  void check_extent_fits_file(const std::string& name, const std::vector<hsize_t>& dims,
                              std::size_t element_size, hid_t ds) const {
    const hsize_t file_size = size_of_file_holding(name, ds);
    const long double limit = 2048.0L * static_cast<long double>(file_size) + 65536.0L;
    long double bytes = static_cast<long double>(element_size);
    for (hsize_t d : dims) bytes *= static_cast<long double>(d);
    if (bytes > limit)
      fail(name, "its extent " + detail::describe_dims(dims) + " claims more data than a file of " +
                     std::to_string(file_size) + " bytes can hold (file is corrupt)");
  }

  std::vector<std::int64_t> read_int64_1d(const std::string& name, hsize_t n = 0) const {
    std::vector<hsize_t> dims{n};
    H5Id ds = open_checked(name, Kind::int64, dims);
    std::vector<std::int64_t> out(dims[0]);
    if (!out.empty() && H5Dread(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
      fail(name, "read failed (file is corrupt or truncated)");
    return out;
  }

  std::vector<double> read_float64_1d(const std::string& name, hsize_t n) const {
    std::vector<hsize_t> dims{n};
    H5Id ds = open_checked(name, Kind::float64, dims);
    std::vector<double> out(dims[0]);
    if (!out.empty() && H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
      fail(name, "read failed (file is corrupt or truncated)");
    return out;
  }

  // Rows `rows` of a float64 [n_sym][n_bars] dataset, concatenated.
  std::vector<double> read_float64_rows(const std::string& name, hsize_t n_sym, hsize_t n_bars,
                                        const std::vector<std::size_t>& rows) const {
    std::vector<hsize_t> dims{n_sym, n_bars};
    H5Id ds = open_checked(name, Kind::float64, dims);
    std::vector<double> out(rows.size() * n_bars);
    H5Id fspace(H5Dget_space(ds.get()), H5Sclose);
    H5Id mspace(H5Screate_simple(1, &n_bars, nullptr), H5Sclose);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const hsize_t start[2] = {rows[r], 0};
      const hsize_t count[2] = {1, n_bars};
      if (H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
          H5Dread(ds.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT,
                  out.data() + r * n_bars) < 0)
        fail(name, "read failed (file is corrupt or truncated)");
    }
    return out;
  }

  // Fixed- or variable-length strings, rank 1.
  std::vector<std::string> read_strings_1d(const std::string& name, hsize_t n = 0) const {
    std::vector<hsize_t> dims{n};
    H5Id ds = open_checked(name, Kind::string, dims);
    const hsize_t count = dims[0];
    std::vector<std::string> out;
    out.reserve(count);
    H5Id ftype(H5Dget_type(ds.get()), H5Tclose);
    H5Id mtype(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_cset(mtype.get(), H5Tget_cset(ftype.get()));
    if (count == 0) return out;
    if (H5Tis_variable_str(ftype.get()) > 0) {
      H5Tset_size(mtype.get(), H5T_VARIABLE);
      std::vector<char*> ptrs(count, nullptr);
      if (H5Dread(ds.get(), mtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()) < 0)
        fail(name, "read failed (file is corrupt or truncated)");
      for (char* p : ptrs) out.emplace_back(p ? p : "");
      H5Id space(H5Dget_space(ds.get()), H5Sclose);
#if H5_VERSION_GE(1, 12, 0)
      H5Treclaim(mtype.get(), space.get(), H5P_DEFAULT, ptrs.data());
#else
      H5Dvlen_reclaim(mtype.get(), space.get(), H5P_DEFAULT, ptrs.data());
#endif
    } else {
      const std::size_t size = H5Tget_size(ftype.get());
      H5Tset_size(mtype.get(), size);
      // The file's own padding and size: no conversion, the stored bytes as they
      // are (a conversion from NULLTERM would cut "A\0B" to "A" silently).
      H5Tset_strpad(mtype.get(), H5Tget_strpad(ftype.get()));
      std::vector<char> buf(count * size);
      if (H5Dread(ds.get(), mtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
        fail(name, "read failed (file is corrupt or truncated)");
      for (hsize_t i = 0; i < count; ++i) {
        const char* p = buf.data() + i * size;
        std::size_t len = 0;
        while (len < size && p[len] != '\0') ++len;
        for (std::size_t k = len; k < size; ++k)  // "A\0B" is not "A"
          if (p[k] != '\0') fail(name, "string " + std::to_string(i) + " has a NUL byte inside");
        while (len > 0 && p[len - 1] == ' ') --len;  // space-padded strings
        out.emplace_back(p, len);
      }
    }
    return out;
  }

  // Names of the links directly inside a group, in name order.
  std::vector<std::string> member_names(const std::string& group) const {
    H5Id g(H5Gopen2(file_.get(), group.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g.valid()) fail(group, "cannot open group (file is corrupt or truncated)");
    H5G_info_t info;
    if (H5Gget_info(g.get(), &info) < 0) fail(group, "cannot list group (file is corrupt or truncated)");
    std::vector<std::string> names;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      const ssize_t len = H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
      if (len < 0) fail(group, "cannot list group (file is corrupt or truncated)");
      std::string name(static_cast<std::size_t>(len), '\0');
      H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(),
                         static_cast<std::size_t>(len) + 1, H5P_DEFAULT);
      names.push_back(name);
    }
    return names;
  }

  std::map<std::string, ExoSeries> read_exo() const {
    std::map<std::string, ExoSeries> exo;
    if (!exists("/exo")) return exo;
    if (!is_group("/exo")) fail("/exo", "expected a group of exo series, found a dataset");
    for (const auto& name : member_names("/exo")) {
      const std::string base = "/exo/" + name;
      if (!is_group(base)) fail(base, "expected a group holding 'timestamps' and 'values'");
      ExoSeries s;
      s.timestamps = read_int64_1d(base + "/timestamps");
      s.values = read_float64_1d(base + "/values", s.timestamps.size());
      detail::check_strictly_increasing(s.timestamps, path_, base + "/timestamps");
      exo.emplace(name, std::move(s));
    }
    return exo;
  }

  // Reads and validates the file, handing each part to `sink` as soon as it
  // is complete (the reader process sends it on while reading the next one).
  void read(const std::vector<std::string>& subset, detail::MarketDataSink& sink) const {
    BarData bars;  // the axis only: columns go straight to the sink
    bars.timestamps = read_int64_1d("/timestamps");
    if (bars.timestamps.empty()) fail("/timestamps", "no bars (empty)");
    detail::check_strictly_increasing(bars.timestamps, path_, "/timestamps");
    const std::vector<std::string> all_symbols = read_strings_1d("/symbols");
    if (all_symbols.empty()) fail("/symbols", "no symbols (empty)");
    detail::check_names(all_symbols, path_, "/symbols", "symbol");
    std::vector<std::string> all_venues;
    if (exists("/venues")) all_venues = read_strings_1d("/venues", all_symbols.size());

    std::vector<std::size_t> rows;
    if (subset.empty()) {
      for (std::size_t i = 0; i < all_symbols.size(); ++i) rows.push_back(i);
    } else {
      // Hashed both ways: a million-name subset of a million-symbol file is linear.
      std::unordered_map<std::string, std::size_t> row_of;
      row_of.reserve(all_symbols.size());
      for (std::size_t i = 0; i < all_symbols.size(); ++i) row_of.emplace(all_symbols[i], i);
      std::unordered_set<std::string> seen;
      for (const auto& name : subset) {
        if (!seen.insert(name).second)
          throw Error(ErrorCategory::config, path_ + ": symbol '" + name + "' requested twice");
        const auto found = row_of.find(name);
        if (found == row_of.end()) {
          std::string avail;
          for (std::size_t i = 0; i < all_symbols.size() && i < 20; ++i) avail += (i ? ", " : "") + all_symbols[i];
          if (all_symbols.size() > 20) avail += ", ... (" + std::to_string(all_symbols.size()) + " in all)";
          fail("/symbols", "symbol '" + name + "' not found (file has: " + avail + ")");
        }
        rows.push_back(found->second);
      }
    }
    for (std::size_t r : rows) {
      bars.symbols.push_back(all_symbols[r]);
      if (!all_venues.empty()) bars.venues.push_back(all_venues[r]);
    }

    if (!exists("/bars")) fail("/bars", "missing required group (with open, high, low, close, volume)");
    if (!is_group("/bars")) fail("/bars", "expected a group, found a dataset");
    const hsize_t n_sym = all_symbols.size();
    const hsize_t n_bars = bars.timestamps.size();
    const std::vector<std::int64_t> times = bars.timestamps;  // for the price checks' messages
    const std::vector<std::string> names = bars.symbols;
    sink.bars_axis(std::move(bars.timestamps), std::move(bars.symbols), std::move(bars.venues));
    const auto& required = required_bar_columns();
    for (const auto& name : required) {
      std::vector<double> values = read_float64_rows("/bars/" + name, n_sym, n_bars, rows);
      if (detail::is_price_column(name)) detail::check_prices(name, values, names, times, path_);
      sink.column(name, std::move(values));
    }
    // funding_rate and any other per-symbol column: same type and shape rule.
    for (const auto& name : member_names("/bars")) {
      if (std::find(required.begin(), required.end(), name) != required.end()) continue;
      sink.column(name, read_float64_rows("/bars/" + name, n_sym, n_bars, rows));
    }
    sink.exo(read_exo());
  }

 private:
  static constexpr const char* allow_hint = "external_data: follow in the config, --follow-external for kbt data inspect";
  std::string path_;
  ExternalData external_;
  H5Id file_;
};

}  // namespace

MarketData read_market_data_hdf5(const std::string& path, const std::vector<std::string>& symbols_subset,
                                 ExternalData external) {
  return detail::read_isolated(path, [&](detail::MarketDataSink& sink) {
    detail::SilenceHdf5Errors quiet;
    Hdf5Reader(path, external).read(symbols_subset, sink);
  });
}

std::string data_path_for_results(const std::string& path) {
  return path.empty() ? std::string("(bars in memory)") : std::filesystem::absolute(path).lexically_normal().string();
}

BarData load_bars_hdf5(const std::string& path, const std::vector<std::string>& symbols_subset,
                       ExternalData external) {
  MarketData data = read_market_data_hdf5(path, symbols_subset, external);
  for (const auto& [name, series] : data.exo) data.bars.exo[name] = asof_join(data.bars.timestamps, series);
  return std::move(data.bars);
}

std::map<std::string, ExoSeries> read_exo_raw(const std::string& path) {
  return detail::read_isolated(path, [&](detail::MarketDataSink& sink) {
           detail::SilenceHdf5Errors quiet;
           sink.exo(Hdf5Reader(path, ExternalData::refuse).read_exo());
         }).exo;
}

}  // namespace kbt
