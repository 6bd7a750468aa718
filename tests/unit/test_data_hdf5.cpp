// HDF5 layout: write -> load round trip, subsets, string forms, validation,
// atomic writes and reproducible bytes.

#include <gtest/gtest.h>
#include <hdf5.h>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <cmath>

#include "unit/test_data_support.hpp"

namespace {

using kbt::test::kHourNs;
using kbt::test::k2021Ns;
const double N = std::nan("");

// 3 symbols x 4 hourly bars, values chosen so that every cell is distinct.
kbt::BarData small_bars() {
  kbt::BarData b;
  for (int i = 0; i < 4; ++i) b.timestamps.push_back(k2021Ns + i * kHourNs);
  b.symbols = {"AAA", "BBB", "CCC"};
  b.venues = {"binance", "binance", "okx"};
  int k = 0;
  for (const auto& name : kbt::required_bar_columns()) {
    auto& col = b.columns[name];
    for (int i = 0; i < 12; ++i) col.push_back(100.0 * (k + 1) + i + 0.25);
    ++k;
  }
  b.columns["close"][5] = N;  // BBB, bar 1
  b.columns["funding_rate"] = {N, 0.0001, N, N, N, N, -0.0002, N, N, N, N, 0.0003};
  return b;
}

std::map<std::string, kbt::ExoSeries> small_exo() {
  // Between bars 0 and 1, and exactly at bar 3.
  return {{"hashrate", {{k2021Ns + kHourNs / 2, k2021Ns + 3 * kHourNs}, {10.0, 30.0}}}};
}

TEST(DataHdf5, RoundTripKeepsEveryBit) {
  kbt::test::TempDir dir;
  const auto bars = small_bars();
  kbt::write_bars_hdf5(bars, small_exo(), dir.file("x.h5"));
  const kbt::BarData got = kbt::load_bars_hdf5(dir.file("x.h5"));
  EXPECT_EQ(got.timestamps, bars.timestamps);
  EXPECT_EQ(got.symbols, bars.symbols);
  EXPECT_EQ(got.venues, bars.venues);
  ASSERT_EQ(got.columns.size(), 6u);
  for (const auto& [name, values] : bars.columns)
    EXPECT_TRUE(kbt::test::same_bits(got.columns.at(name), values)) << name;
  // Exo joined by hand: bar 0 is before the first point, bars 1-2 see 10, bar 3 sees 30.
  ASSERT_EQ(got.exo.size(), 1u);
  const auto& h = got.exo.at("hashrate");
  ASSERT_EQ(h.size(), 4u);
  EXPECT_TRUE(std::isnan(h[0]));
  EXPECT_EQ(h[1], 10.0);
  EXPECT_EQ(h[2], 10.0);
  EXPECT_EQ(h[3], 30.0);
  // Raw form.
  const auto raw = kbt::read_exo_raw(dir.file("x.h5"));
  EXPECT_EQ(raw.at("hashrate").timestamps, small_exo().at("hashrate").timestamps);
  EXPECT_EQ(raw.at("hashrate").values, small_exo().at("hashrate").values);
}

TEST(DataHdf5, SubsetSelectsAndOrdersSymbols) {
  kbt::test::TempDir dir;
  const auto bars = small_bars();
  kbt::write_bars_hdf5(bars, {}, dir.file("x.h5"));
  const auto got = kbt::load_bars_hdf5(dir.file("x.h5"), {"CCC", "AAA"});
  ASSERT_EQ(got.symbols, (std::vector<std::string>{"CCC", "AAA"}));
  EXPECT_EQ(got.venues, (std::vector<std::string>{"okx", "binance"}));
  // CCC's open row is cells 8..11 of the original, AAA's is 0..3.
  EXPECT_EQ(got.columns.at("open"), (std::vector<double>{108.25, 109.25, 110.25, 111.25, 100.25, 101.25, 102.25, 103.25}));
  EXPECT_TRUE(got.exo.empty());
}

TEST(DataHdf5, UnknownSymbolInSubsetNamesDataset) {
  kbt::test::TempDir dir;
  kbt::write_bars_hdf5(small_bars(), {}, dir.file("x.h5"));
  try {
    kbt::load_bars_hdf5(dir.file("x.h5"), {"AAA", "ZZZ"});
    FAIL() << "no error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("x.h5: dataset /symbols: symbol 'ZZZ' not found (file has: AAA, BBB, CCC)"), std::string::npos)
        << msg;
  }
}

TEST(DataHdf5, MissingFileIsIo) {
  try {
    kbt::load_bars_hdf5("/nonexistent/dir/x.h5");
    FAIL() << "no error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.h5"), std::string::npos);
  }
}

// A file written the way h5py writes str arrays: variable-length UTF-8 strings.
TEST(DataHdf5, ReadsVariableLengthStrings) {
  kbt::test::TempDir dir;
  const auto bars = small_bars();
  const std::string path = dir.file("vlen.h5");
  kbt::write_bars_hdf5(bars, {}, path);
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  H5Ldelete(file, "/symbols", H5P_DEFAULT);
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hsize_t n = 3;
  hid_t space = H5Screate_simple(1, &n, nullptr);
  hid_t ds = H5Dcreate2(file, "/symbols", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const char* names[] = {"BTC-USDT", "ETH", "SOL"};
  H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names);
  H5Dclose(ds);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(file);
  const auto got = kbt::load_bars_hdf5(path);
  EXPECT_EQ(got.symbols, (std::vector<std::string>{"BTC-USDT", "ETH", "SOL"}));
}

TEST(DataHdf5, InvalidDataIsNotWritten) {
  kbt::test::TempDir dir;
  auto bars = small_bars();
  bars.timestamps[2] = bars.timestamps[1];
  try {
    kbt::write_bars_hdf5(bars, {}, dir.file("x.h5"));
    FAIL() << "no error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format);
    EXPECT_NE(std::string(e.what()).find("dataset /timestamps: duplicate timestamp at index 2"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(dir.files().empty());

  bars = small_bars();
  bars.columns.erase("close");
  EXPECT_THROW(kbt::write_bars_hdf5(bars, {}, dir.file("x.h5")), kbt::Error);
  bars = small_bars();
  bars.columns["volume"].pop_back();
  EXPECT_THROW(kbt::write_bars_hdf5(bars, {}, dir.file("x.h5")), kbt::Error);
  auto exo = small_exo();
  std::swap(exo["hashrate"].timestamps[0], exo["hashrate"].timestamps[1]);
  EXPECT_THROW(kbt::write_bars_hdf5(small_bars(), exo, dir.file("x.h5")), kbt::Error);
  EXPECT_TRUE(dir.files().empty());
}

TEST(DataHdf5, UnwritablePathIsIoAndLeavesNothing) {
  kbt::test::TempDir dir;
  try {
    kbt::write_bars_hdf5(small_bars(), {}, dir.file("no/such/dir/x.h5"));
    FAIL() << "no error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::io);
    EXPECT_NE(std::string(e.what()).find("no/such/dir/x.h5"), std::string::npos);
  }
  EXPECT_TRUE(dir.files().empty());
}

TEST(DataHdf5, SameContentSameBytes) {
  kbt::test::TempDir dir;
  kbt::write_bars_hdf5(small_bars(), small_exo(), dir.file("a.h5"));
  kbt::write_bars_hdf5(small_bars(), small_exo(), dir.file("b.h5"));
  const std::string a = kbt::test::read_bytes(dir.file("a.h5"));
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, kbt::test::read_bytes(dir.file("b.h5")));
  // And a one-bit change in content changes the bytes.
  auto bars = small_bars();
  bars.columns["open"][0] = std::nextafter(bars.columns["open"][0], 1e9);
  kbt::write_bars_hdf5(bars, small_exo(), dir.file("c.h5"));
  EXPECT_NE(a, kbt::test::read_bytes(dir.file("c.h5")));
}

TEST(DataHdf5, EmptyExoSeriesRoundTripsAsAllNaN) {
  kbt::test::TempDir dir;
  kbt::write_bars_hdf5(small_bars(), {{"empty", {}}}, dir.file("x.h5"));
  const auto got = kbt::load_bars_hdf5(dir.file("x.h5"));
  ASSERT_EQ(got.exo.at("empty").size(), 4u);
  for (double v : got.exo.at("empty")) EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(kbt::read_exo_raw(dir.file("x.h5")).at("empty").timestamps.empty());
}

TEST(DataHdf5, ExtraPerSymbolColumnsAreLoaded) {
  kbt::test::TempDir dir;
  auto bars = small_bars();
  bars.columns["open_interest"].assign(12, 5.0);
  kbt::write_bars_hdf5(bars, {}, dir.file("x.h5"));
  const auto got = kbt::load_bars_hdf5(dir.file("x.h5"), {"BBB"});
  EXPECT_EQ(got.columns.at("open_interest"), std::vector<double>(4, 5.0));
}

}  // namespace
