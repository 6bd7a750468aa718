// One spelling per idea across subcommands, the natural direction of
// `show --sort`, the --json output of show and info, and an example in every
// --help (docs/cli.md), through the real binary.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/results.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <unistd.h>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/json_reader.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using kbt::test::Json;
using kbt::test::JsonReader;

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_consistency") {}
};

// The SMA cross of configs/ on the bundled data, every metric for every combo,
// ranked by `objective` (as written in YAML).
std::string write_config(const Scratch& s, const std::string& objective) {
  const std::string path = s / "c.yaml";
  std::ofstream(path) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\n"
                      << "symbols: [AAA]\n"
                         "strategy:\n"
                         "  params:\n"
                         "    fast: {range: [5, 50, 5]}\n"
                         "    slow: {range: [20, 200, 10]}\n"
                         "  constraints: [\"fast < slow\"]\n"
                         "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                         "simulation: {fee_bps: 5}\n"
                         "sweep: {device: reference, objective: "
                      << objective << ", metrics: all, top_k: 40}\n"
                      << "verify: {top_n: 0}\n"
                      << "output: {path: " << (s / "r.h5") << "}\n";
  return path;
}

// stdout alone (stderr discarded), for documents a script would parse.
kbt::test::CliResult stdout_of(const std::string& args) {
  return kbt::test::run_command("( " + std::string(KBT_CLI_PATH) + " " + args + " 2>/dev/null )");
}

// Combo ids of the best `k` rows by `metric`, computed here from every row of
// the file: finite values first in `maximize` order, ties by combo id.
std::vector<std::uint64_t> expected_order(const std::string& results, const std::string& metric, bool maximize,
                                          std::size_t k) {
  const auto loaded = kbt::read_results_hdf5(results);
  const kbt::RowTable all = kbt::read_all_rows(*loaded.results.rows);
  const int m = kbt::metric_index(metric);
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (std::isfinite(all.metrics_of(i)[m])) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    const double va = all.metrics_of(a)[m], vb = all.metrics_of(b)[m];
    if (va != vb) return maximize ? va > vb : va < vb;
    return all.combo_ids[a] < all.combo_ids[b];
  });
  std::vector<std::uint64_t> ids;
  for (std::size_t i = 0; i < std::min(k, idx.size()); ++i) ids.push_back(all.combo_ids[idx[i]]);
  return ids;
}

std::vector<std::uint64_t> combos_of(const Json& doc) {
  std::vector<std::uint64_t> ids;
  for (const Json& row : doc["rows"].array) ids.push_back(static_cast<std::uint64_t>(row["combo"].number));
  return ids;
}

}  // namespace

// `show --sort` ranks lowest first for the metrics where lower is better, says
// so, and --direction overrides it; an objective without a direction in the
// config does the same for the run's own top-K.
TEST(CliConsistency, ShowSortsByTheNaturalDirectionAndSaysSo) {
  const Scratch s;
  const std::string cfg = write_config(s, "ulcer_index");
  const auto run = kbt::test::run_kbt("run " + cfg + " --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string r = s / "r.h5";

  struct Case {
    std::string flags, metric;
    bool maximize;
    std::string said;
  };
  const Case cases[] = {
      {"", "ulcer_index", false, "by ulcer_index (min, the run's objective)"},
      {"--sort ulcer_index", "ulcer_index", false, "by ulcer_index (min, the metric's natural direction)"},
      {"--sort max_drawdown_duration", "max_drawdown_duration", false, "(min, the metric's natural direction)"},
      {"--sort max_drawdown", "max_drawdown", true, "by max_drawdown (max, the metric's natural direction)"},
      {"--sort sharpe", "sharpe", true, "by sharpe (max, the metric's natural direction)"},
      {"--sort ulcer_index --direction max", "ulcer_index", true, "by ulcer_index (max, --direction)"},
      {"--direction max", "ulcer_index", true, "by ulcer_index (max, --direction)"},
  };
  for (const auto& c : cases) {
    const auto expected = expected_order(r, c.metric, c.maximize, 8);
    ASSERT_EQ(expected.size(), 8u) << c.flags;
    const auto text = kbt::test::run_kbt("show " + r + " --rows 8 " + c.flags);
    ASSERT_EQ(text.exit_code, 0) << c.flags << "\n" << text.output;
    EXPECT_NE(text.output.find(c.said), std::string::npos) << c.flags << "\n" << text.output;
    const auto json = stdout_of("show " + r + " --rows 8 --json " + c.flags);
    ASSERT_EQ(json.exit_code, 0) << c.flags;
    const Json doc = JsonReader::parse(json.output);
    EXPECT_EQ(combos_of(doc), expected) << c.flags;
    EXPECT_EQ(doc["sort"]["metric"].string, c.metric);
    EXPECT_EQ(doc["sort"]["direction"].string, c.maximize ? "max" : "min");
  }
  // Not vacuous: the two directions of ulcer_index disagree.
  EXPECT_NE(expected_order(r, "ulcer_index", true, 8), expected_order(r, "ulcer_index", false, 8));

  const auto unknown = kbt::test::run_kbt("show " + r + " --sort ulcer_indx");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.output.find("did you mean 'ulcer_index'?"), std::string::npos) << unknown.output;
  EXPECT_NE(unknown.output.find("(metrics: total_return, cagr,"), std::string::npos) << unknown.output;
}

// `show --json` holds what the file holds, value for value; `info --json`
// lists the execution spaces the text output lists.
TEST(CliConsistency, JsonOutputIsOneDocumentWithTheFilesValues) {
  const Scratch s;
  const std::string cfg = write_config(s, "{metric: sharpe, min_trades: 10}");
  ASSERT_EQ(kbt::test::run_kbt("run " + cfg + " --quiet").exit_code, 0);
  const std::string r = s / "r.h5";
  const auto out = stdout_of("show " + r + " --json --rows 5");
  ASSERT_EQ(out.exit_code, 0);
  const Json doc = JsonReader::parse(out.output);
  const auto loaded = kbt::read_results_hdf5(r);
  const kbt::RowTable best = loaded.results.best.first(5);
  ASSERT_EQ(best.size(), 5u);
  ASSERT_EQ(doc["rows"].array.size(), 5u);
  EXPECT_EQ(doc["combos"].number, static_cast<double>(loaded.results.n_rows()));
  ASSERT_EQ(doc["params"].array.size(), 2u);
  EXPECT_EQ(doc["params"][0].string, "fast");
  for (std::size_t i = 0; i < 5; ++i) {
    const Json& row = doc["rows"][i];
    EXPECT_EQ(row["rank"].number, static_cast<double>(i + 1));
    EXPECT_EQ(row["combo"].number, static_cast<double>(best.combo_ids[i]));
    EXPECT_EQ(row["params"]["fast"].number, best.params_of(i)[0]);
    EXPECT_EQ(row["params"]["slow"].number, best.params_of(i)[1]);
    // Every metric, in the documented order, equal to the file's double;
    // a NaN is null.
    ASSERT_EQ(row["metrics"].object.size(), kbt::n_metrics);
    for (std::size_t m = 0; m < kbt::n_metrics; ++m) {
      const auto& [name, value] = row["metrics"].object[m];
      EXPECT_EQ(name, kbt::metric_names()[m]);
      const double v = best.metrics_of(i)[m];
      if (std::isfinite(v)) EXPECT_EQ(value.number, v) << name;
      else EXPECT_EQ(value.kind, Json::Kind::null) << name;
    }
  }

  const auto info_json = stdout_of("info --json");
  ASSERT_EQ(info_json.exit_code, 0);
  const Json info = JsonReader::parse(info_json.output);
  const std::string text = kbt::test::run_kbt("info").output;
  ASSERT_FALSE(info["execution_spaces"].array.empty());
  for (const Json& space : info["execution_spaces"].array)
    EXPECT_NE(text.find("  " + space["name"].string + " "), std::string::npos) << space["name"].string;
  EXPECT_NE(text.find("kbt " + info["kbt"].string + " (" + info["build_type"].string + " build)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("HDF5 " + info["hdf5"].string + "\n"), std::string::npos);
  EXPECT_TRUE(info["calibration"].has("usable"));
  // A bad explicit calibration file is in the document, not a failed command.
  const auto bad = stdout_of("info --json --calibration " + s / "missing.yaml");
  ASSERT_EQ(bad.exit_code, 0);
  const Json bad_doc = JsonReader::parse(bad.output);
  EXPECT_FALSE(bad_doc["calibration"]["usable"].boolean);
  EXPECT_NE(bad_doc["calibration"]["error"].string.find("missing.yaml"), std::string::npos);
}

// Param values: comma lists, spaces and repeated flags give the same combo in
// backtest and eval; a name twice or a missing '=' is an error naming the flag.
TEST(CliConsistency, ParamValuesInEverySpellingAreOneCombo) {
  const Scratch s;
  const std::string cfg = write_config(s, "sharpe");
  const auto plain = kbt::test::run_kbt("backtest " + cfg + " --params fast=20,slow=40");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_NE(plain.output.find("n_trades"), std::string::npos);
  for (const std::string flags : {"--params 'fast = 20, slow = 40'", "--param fast=20 --param slow=40",
                                  "--params slow=40 --params ' fast=20 '", "--param fast=20,slow=40,"}) {
    const auto r = kbt::test::run_kbt("backtest " + cfg + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << flags << "\n" << r.output;
    EXPECT_EQ(r.output, plain.output) << flags;
  }
  struct Bad {
    std::string flags, message;
  };
  for (const Bad& b : {Bad{"--params fast=20,fast=30,slow=40", "--params fast is given twice"},
                       Bad{"--param fast=20 --param slow", "--params 'slow': expected name=value"},
                       Bad{"--params fast=20,slow=abc", "--params slow: 'abc' is not a finite number"}}) {
    const auto r = kbt::test::run_kbt("backtest " + cfg + " " + b.flags);
    EXPECT_EQ(r.exit_code, 1) << b.flags;
    EXPECT_NE(r.output.find(b.message), std::string::npos) << b.flags << "\n" << r.output;
  }

  const std::string data = std::string(KBT_SOURCE_DIR) + "/data/sample.h5";
  const auto eval = kbt::test::run_kbt("eval --data " + data + " --symbol AAA --expr 'sma(close, n) - k' --param n=3 --param k=1");
  ASSERT_EQ(eval.exit_code, 0) << eval.output;
  ASSERT_GT(std::count(eval.output.begin(), eval.output.end(), '\n'), 100);
  EXPECT_EQ(kbt::test::run_kbt("eval --data " + data + " --symbol AAA --expr 'sma(close, n) - k' --params ' n = 3 ,k=1'").output,
            eval.output);
}

// -o is --out, --rows is the row count, and the earlier spellings still work.
TEST(CliConsistency, OutAndRowsAreSpelledAlikeEverywhere) {
  const Scratch s;
  const std::string cfg = write_config(s, "sharpe");
  const auto run = kbt::test::run_kbt("run " + cfg + " --quiet -o " + s / "o.h5" + " --rows 3");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(fs::exists(s / "o.h5"));
  EXPECT_FALSE(fs::exists(s / "r.h5")) << "-o replaces output.path";
  EXPECT_NE(run.output.find("top 3 by sharpe"), std::string::npos) << run.output;
  const auto old_run = kbt::test::run_kbt("run " + cfg + " --quiet --out " + s / "p.h5" + " --show 3");
  EXPECT_NE(old_run.output.find("top 3 by sharpe"), std::string::npos) << old_run.output;

  const std::string o = s / "o.h5";
  const auto rows = kbt::test::run_kbt("show " + o + " --rows 4");
  EXPECT_EQ(rows.output, kbt::test::run_kbt("show " + o + " --top 4").output);
  EXPECT_EQ(std::count(rows.output.begin(), rows.output.end(), '\n'), 6) << rows.output;  // title, header, 4 rows

  const auto verify = kbt::test::run_kbt("verify " + o + " --top-n 4 --rows 2 -o " + s / "v.h5");
  ASSERT_EQ(verify.exit_code, 0) << verify.output;
  EXPECT_TRUE(fs::exists(s / "v.h5"));
}

// Every subcommand's --help ends with an example of itself.
TEST(CliConsistency, EveryHelpHasAnExample) {
  for (const std::string sub : {"info", "run", "backtest", "show", "data import", "data synth", "data inspect",
                                "check", "eval", "verify", "validate", "plot", "calibrate"}) {
    const auto r = kbt::test::run_kbt(sub + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    const auto at = r.output.find("Example");
    ASSERT_NE(at, std::string::npos) << sub << "\n" << r.output;
    EXPECT_NE(r.output.find("  kbt " + sub + " ", at), std::string::npos) << sub << "\n" << r.output;
  }
}
