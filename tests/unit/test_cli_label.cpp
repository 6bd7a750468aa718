// `kbt run` and `kbt check` of a labelling job (docs/label.md "The label
// job"), through the real binary: the labels file's layout and descriptions
// (docs/results.md "Label files"), its CSV row for row, the engines agreeing
// by bits, and the job's errors.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <hdf5.h>
#include <kbt/data/data_io.hpp>
#include <kbt/data/time_format.hpp>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/hdf5_file.hpp"
#include "support/scratch_dir.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_label") {}
};

const std::string kSample = std::string(KBT_SOURCE_DIR) + "/data/sample.h5";

std::string write_config(const Scratch& s, const std::string& label, bool csv) {
  const std::string path = s / "l.yaml";
  std::ofstream(path) << "job: label\ndata: " << kSample << "\nsymbols: [BBB, AAA]\nlabel:\n"
                      << label << "output: {path: " << (s / "labels.h5") << ", csv: " << (csv ? "true" : "false")
                      << "}\n";
  return path;
}

const char* kLabel =
    "  volatility: rolling_std(log(close / lag(close, 1)), 30)\n"
    "  profit_take: [1, 2]\n"
    "  stop: 1.5\n"
    "  horizon: [6, 24]\n";

using File = kbt::test::Hdf5File;

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(f, line);) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

std::string shortest(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

TEST(CliLabel, WritesTheDescribedLayoutAndTheCsvRowForRow) {
  Scratch s;
  const auto run = kbt::test::run_kbt("run " + write_config(s, kLabel, true) + " --device reference");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("labels: 4 barrier settings x 2 symbols x 20000 bars, device reference"),
            std::string::npos)
      << run.output;

  const kbt::BarData bars = kbt::load_bars_hdf5(kSample, {"BBB", "AAA"});
  const std::size_t nb = bars.n_bars(), ns = 2, S = 4;
  File f(s / "labels.h5");
  ASSERT_GE(f.id, 0);
  EXPECT_EQ(f.read<std::int64_t>("timestamps", H5T_NATIVE_INT64), bars.timestamps);
  EXPECT_EQ(f.read<double>("settings/profit_take", H5T_NATIVE_DOUBLE), std::vector<double>({1, 1, 2, 2}));
  EXPECT_EQ(f.read<double>("settings/stop", H5T_NATIVE_DOUBLE), std::vector<double>(4, 1.5));
  EXPECT_EQ(f.read<std::int64_t>("settings/horizon", H5T_NATIVE_INT64), std::vector<std::int64_t>({6, 24, 6, 24}));
  std::vector<hsize_t> dims;
  const auto label = f.read<std::int8_t>("labels/label", H5T_NATIVE_INT8, &dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({S, ns, nb}));
  const auto barrier = f.read<std::int8_t>("labels/barrier", H5T_NATIVE_INT8);
  const auto touch = f.read<std::int64_t>("labels/touch_bar", H5T_NATIVE_INT64);
  const auto ret = f.read<double>("labels/ret", H5T_NATIVE_DOUBLE);
  const auto vol = f.read<double>("series/volatility", H5T_NATIVE_DOUBLE, &dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({ns, nb}));
  const auto side = f.read<double>("series/side", H5T_NATIVE_DOUBLE);
  for (const auto* name : {"timestamps", "settings/horizon", "series/volatility", "labels/label", "labels/ret"}) {
    EXPECT_TRUE(f.has_attribute(name, "description")) << name;
    EXPECT_TRUE(f.has_attribute(name, "unit")) << name;
  }
  EXPECT_TRUE(f.has_attribute(".", "complete"));
  for (const double x : side) EXPECT_EQ(x, 1.0);  // no side, no events filter: every bar long

  // Every labelled bar is one CSV row, settings slowest, symbols in the
  // config's order, then bars; the values are the file's.
  const auto rows = read_csv(s / "labels_labels.csv");
  ASSERT_GT(rows.size(), 1u);
  EXPECT_EQ(rows[0].size(), 13u);
  std::size_t row = 1, kinds[4] = {0, 0, 0, 0};
  for (std::size_t set = 0; set < S; ++set)
    for (std::size_t y = 0; y < ns; ++y)
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t i = (set * ns + y) * nb + b;
        ++kinds[barrier[i]];
        if (barrier[i] == 0) {
          EXPECT_EQ(label[i], 0);
          EXPECT_EQ(touch[i], -1);
          continue;
        }
        ASSERT_LT(row, rows.size());
        const auto& c = rows[row++];
        ASSERT_EQ(c.size(), 13u) << "row " << row;
        EXPECT_EQ(c[0], std::to_string(set));
        EXPECT_EQ(c[4], bars.symbols[y]);
        EXPECT_EQ(c[5], kbt::format_iso8601_utc(bars.timestamps[b]));
        EXPECT_EQ(c[7], shortest(vol[y * nb + b]));
        EXPECT_EQ(c[8], std::to_string(label[i]));
        EXPECT_EQ(c[9], barrier[i] == 1 ? "profit" : barrier[i] == 2 ? "stop" : "vertical");
        EXPECT_EQ(c[11], std::to_string(touch[i]));
        EXPECT_EQ(c[10], kbt::format_iso8601_utc(bars.timestamps[static_cast<std::size_t>(touch[i])]));
        EXPECT_EQ(c[12], shortest(ret[i]));
        // The vertical barrier ends at the horizon's bar (or the data's last).
        if (barrier[i] == 3)
          EXPECT_EQ(touch[i], std::min<std::int64_t>(static_cast<std::int64_t>(b) + (set % 2 ? 24 : 6),
                                                     static_cast<std::int64_t>(nb) - 1));
        else
          EXPECT_LE(touch[i], static_cast<std::int64_t>(b) + (set % 2 ? 24 : 6));
      }
  EXPECT_EQ(row, rows.size());
  EXPECT_GT(kinds[1], 0u);
  EXPECT_GT(kinds[2], 0u);
  EXPECT_GT(kinds[3], 0u);
}

TEST(CliLabel, TheKokkosEngineWritesTheReferenceBits) {
  Scratch s;
  const std::string config = write_config(s, kLabel, false);
  ASSERT_EQ(kbt::test::run_kbt("run " + config + " --device reference -o " + (s / "ref.h5")).exit_code, 0);
  const auto run = kbt::test::run_kbt("run " + config + " -o " + (s / "auto.h5"));  // label.device: auto
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("device reference"), std::string::npos) << "auto is a Kokkos space: " << run.output;
  File a(s / "ref.h5"), b(s / "auto.h5");
  for (const auto* name : {"labels/ret", "series/volatility"}) {
    const auto x = a.read<std::uint64_t>(name, H5T_NATIVE_DOUBLE);  // the doubles' bits
    const auto y = b.read<std::uint64_t>(name, H5T_NATIVE_DOUBLE);
    ASSERT_FALSE(x.empty());
    EXPECT_TRUE(x == y) << name << " differs in its bits";
  }
  EXPECT_EQ(a.read<std::int8_t>("labels/label", H5T_NATIVE_INT8), b.read<std::int8_t>("labels/label", H5T_NATIVE_INT8));
  EXPECT_EQ(a.read<std::int64_t>("labels/touch_bar", H5T_NATIVE_INT64),
            b.read<std::int64_t>("labels/touch_bar", H5T_NATIVE_INT64));
}

TEST(CliLabel, LeadIsALabellingJobsOnly) {
  Scratch s;
  // Meta-labels of a primary side that peeks: legal in a labelling job.
  const std::string label = std::string(kLabel) + "  side: where(lead(close, 3) > close, 1, -1)\n";
  const auto check = kbt::test::run_kbt("check " + write_config(s, label, false) + " --data");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("data and expressions OK"), std::string::npos) << check.output;
  const std::string sweep = s / "sweep.yaml";
  std::ofstream(sweep) << "data: " << kSample << "\nstrategy:\n  position: where(lead(close, 3) > close, 1, -1)\n";
  const auto refused = kbt::test::run_kbt("check " + sweep + " --data");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("sweep.yaml:3:19: lead() looks ahead and is only allowed in labelling jobs"),
            std::string::npos)
      << refused.output;
}

TEST(CliLabel, SweepOnlyFlagsAndCommandsSayWhy) {
  Scratch s;
  const std::string config = write_config(s, kLabel, false);
  const auto resume = kbt::test::run_kbt("run " + config + " --resume");
  EXPECT_NE(resume.exit_code, 0);
  EXPECT_NE(resume.output.find("--resume (it has no checkpoint)"), std::string::npos) << resume.output;
  const auto backtest = kbt::test::run_kbt("backtest " + config + " --params a=1");
  EXPECT_NE(backtest.exit_code, 0);
  EXPECT_NE(backtest.output.find("l.yaml:1:6: this is a labelling job"), std::string::npos) << backtest.output;
  ASSERT_EQ(kbt::test::run_kbt("run " + config).exit_code, 0);
  const auto show = kbt::test::run_kbt("show " + (s / "labels.h5"));
  EXPECT_NE(show.exit_code, 0);
  EXPECT_NE(show.output.find("a labelling job's labels file, not a sweep's results"), std::string::npos)
      << show.output;
}

}  // namespace
