// Generates the malformed HDF5 files of tests/bad_input/data/ (run once; the
// outputs are committed). Not part of the build. To regenerate:
//   g++ -std=c++17 -I/usr/include/hdf5/serial generate_bad_inputs.cpp \
//       -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5 -o /tmp/gen && \
//   (cd tests/bad_input/data && /tmp/gen)
// Each file is a small valid layout (2 symbols x 6 hourly bars) with exactly
// one defect, named after the defect.

#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

const hsize_t kSym = 2, kBars = 6;
const std::int64_t kHour = 3600LL * 1000000000LL;
const std::int64_t kStart = 1609459200LL * 1000000000LL;  // 2021-01-01

void dataset(hid_t loc, const char* name, hid_t ftype, hid_t mtype, std::vector<hsize_t> dims, const void* data,
             bool deflate = false) {
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0);
  if (deflate) {
    H5Pset_chunk(dcpl, static_cast<int>(dims.size()), dims.data());
    H5Pset_deflate(dcpl, 6);
  }
  hid_t ds = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
}

void strings(hid_t loc, const char* name, const std::vector<std::string>& v) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, 8);
  std::vector<char> buf(v.size() * 8, '\0');
  for (std::size_t i = 0; i < v.size(); ++i) v[i].copy(buf.data() + i * 8, 8);
  dataset(loc, name, type, type, {v.size()}, buf.data());
  H5Tclose(type);
}

struct Spec {
  std::vector<std::int64_t> timestamps;
  std::vector<std::string> symbols{"AAA", "BBB"};
  std::vector<std::string> venues;
  std::vector<std::string> columns{"open", "high", "low", "close", "volume"};
  std::string int32_column;        // written as int32 instead of float64
  std::string short_column;        // written as [kSym][kBars - 1]
  bool float_timestamps = false;
  bool int_symbols = false;
  bool exo_not_increasing = false;
  bool omit_timestamps = false;
  bool deflate_close = false;      // /bars/close as one deflated chunk
  bool bad_close = false;          // /bars/close of symbol 1, bar 2 is bad_close_value
  double bad_close_value = 0;
};

Spec good() {
  Spec s;
  for (hsize_t b = 0; b < kBars; ++b) s.timestamps.push_back(kStart + static_cast<std::int64_t>(b) * kHour);
  return s;
}

void write(const std::string& path, const Spec& s) {
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  const hsize_t n = s.timestamps.size();
  if (!s.omit_timestamps) {
    if (s.float_timestamps) {
      std::vector<double> t(s.timestamps.begin(), s.timestamps.end());
      dataset(file, "timestamps", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n}, t.data());
    } else {
      dataset(file, "timestamps", H5T_STD_I64LE, H5T_NATIVE_INT64, {n}, s.timestamps.data());
    }
  }
  if (s.int_symbols) {
    const std::int32_t ids[] = {1, 2};
    dataset(file, "symbols", H5T_STD_I32LE, H5T_NATIVE_INT32, {2}, ids);
  } else {
    strings(file, "symbols", s.symbols);
  }
  if (!s.venues.empty()) strings(file, "venues", s.venues);
  hid_t bars = H5Gcreate2(file, "bars", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t n_sym = s.symbols.size();
  std::vector<double> values(n_sym * n);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 100.0 + static_cast<double>(i % n);
  for (const auto& c : s.columns) {
    if (s.bad_close && c == "close") {
      std::vector<double> bad = values;
      bad[n + 2] = s.bad_close_value;
      dataset(bars, c.c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n_sym, n}, bad.data());
    } else if (c == s.int32_column) {
      std::vector<std::int32_t> iv(values.begin(), values.end());
      dataset(bars, c.c_str(), H5T_STD_I32LE, H5T_NATIVE_INT32, {n_sym, n}, iv.data());
    } else if (c == s.short_column) {
      dataset(bars, c.c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n_sym, n - 1}, values.data());
    } else {
      dataset(bars, c.c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n_sym, n}, values.data(),
              s.deflate_close && c == "close");
    }
  }
  H5Gclose(bars);
  if (s.exo_not_increasing) {
    hid_t exo = H5Gcreate2(file, "exo", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(exo, "hashrate", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const std::int64_t t[] = {kStart, kStart + 2 * kHour, kStart + kHour};
    const double v[] = {1.0, 2.0, 3.0};
    dataset(g, "timestamps", H5T_STD_I64LE, H5T_NATIVE_INT64, {3}, t);
    dataset(g, "values", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {3}, v);
    H5Gclose(g);
    H5Gclose(exo);
  }
  H5Fclose(file);
  H5Pclose(fcpl);
}

// A pass-through filter registered only in this generator: files written with
// it need a plugin that no reader has (as a blosc or zstd file does without its
// plugin).
size_t private_filter(unsigned, size_t, const unsigned[], size_t nbytes, size_t*, void**) { return nbytes; }

// Replaces /bars/close of a good file by what `make` puts in its place.
template <class Make>
void replace_close(const std::string& path, Make make) {
  write(path, good());
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t bars = H5Gopen2(file, "bars", H5P_DEFAULT);
  H5Ldelete(bars, "close", H5P_DEFAULT);
  make(bars);
  H5Gclose(bars);
  H5Fclose(file);
}

}  // namespace

int main() {
  { std::ofstream("not_hdf5.h5") << "timestamp,open,high,low,close,volume\nthis is not an HDF5 file\n"; }
  {
    write("/tmp/kbt_good_for_truncation.h5", good());
    std::ifstream in("/tmp/kbt_good_for_truncation.h5", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream("truncated.h5", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    std::remove("/tmp/kbt_good_for_truncation.h5");
  }
  { Spec s = good(); s.int32_column = "close"; write("wrong_dtype_close.h5", s); }
  { Spec s = good(); s.short_column = "high"; write("shape_mismatch.h5", s); }
  { Spec s = good(); s.timestamps[3] = s.timestamps[1]; write("non_increasing_timestamps.h5", s); }
  { Spec s = good(); s.timestamps[4] = s.timestamps[3]; write("duplicate_timestamps.h5", s); }
  { Spec s = good(); s.columns = {"open", "high", "low", "volume"}; write("missing_close.h5", s); }
  { Spec s = good(); s.omit_timestamps = true; write("missing_timestamps.h5", s); }
  { Spec s = good(); s.float_timestamps = true; write("wrong_dtype_timestamps.h5", s); }
  { Spec s = good(); s.symbols = {"AAA", "AAA"}; write("duplicate_symbols.h5", s); }
  { Spec s = good(); s.int_symbols = true; write("symbols_not_strings.h5", s); }
  { Spec s = good(); s.symbols = {std::string("A\0B", 3), "BBB"}; write("symbol_nul_inside.h5", s); }
  { Spec s = good(); s.symbols = {"\xff\xfe", "BBB"}; write("symbol_not_utf8.h5", s); }
  { Spec s = good(); s.venues = {"binance"}; write("venues_count_mismatch.h5", s); }
  { Spec s = good(); s.exo_not_increasing = true; write("exo_not_increasing.h5", s); }
  { Spec s = good(); s.bad_close = true, s.bad_close_value = 1.0 / 0.0; write("infinite_close.h5", s); }
  { Spec s = good(); s.bad_close = true, s.bad_close_value = -5; write("negative_close.h5", s); }
  {
    // A valid file whose compressed /bars/close chunk is overwritten with junk:
    // the file opens, the read fails.
    Spec s = good();
    s.deflate_close = true;
    write("corrupt_chunk.h5", s);
    hid_t file = H5Fopen("corrupt_chunk.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(file, "/bars/close", H5P_DEFAULT);
    const hsize_t origin[2] = {0, 0};
    unsigned mask = 0;
    haddr_t addr = 0;
    hsize_t size = 0;
    H5Dget_chunk_info_by_coord(ds, origin, &mask, &addr, &size);
    H5Dclose(ds);
    H5Fclose(file);
    std::fstream f("corrupt_chunk.h5", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(addr));
    for (hsize_t i = 0; i < size; ++i) f.put(static_cast<char>(0xA5));
  }
  // Data kbt must not follow into files the user did not name: a good file
  // (external_target.h5, not itself a bad input) that the next two point into.
  write("external_target.h5", good());
  replace_close("external_link_close.h5", [](hid_t bars) {
    H5Lcreate_external("external_target.h5", "/bars/close", bars, "close", H5P_DEFAULT, H5P_DEFAULT);
  });
  replace_close("virtual_close.h5", [](hid_t bars) {
    const hsize_t dims[2] = {kSym, kBars};
    hid_t space = H5Screate_simple(2, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_virtual(dcpl, space, "external_target.h5", "/bars/close", space);
    hid_t ds = H5Dcreate2(bars, "close", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
  });
  replace_close("missing_filter_close.h5", [](hid_t bars) {
    const H5Z_class2_t filter = {H5Z_CLASS_T_VERS, static_cast<H5Z_filter_t>(32001), 1, 1, "kbt-test-private",
                                 nullptr, nullptr, private_filter};
    H5Zregister(&filter);
    const hsize_t dims[2] = {kSym, kBars};
    hid_t space = H5Screate_simple(2, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);
    H5Pset_chunk(dcpl, 2, dims);
    H5Pset_filter(dcpl, 32001, H5Z_FLAG_MANDATORY, 0, nullptr);
    hid_t ds = H5Dcreate2(bars, "close", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    std::vector<double> v(kSym * kBars, 100.0);
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
  });
  return 0;
}
