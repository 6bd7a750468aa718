// The calibration file: round trip, and bad files named by file:line:col.

#include <gtest/gtest.h>
#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>

#include "unit/test_calibration_support.hpp"

namespace {

kbt::MachineIdentity some_machine() {
  return {"host-a", "CPU \"X\" 9000", "none", "3.4.01", {{"serial", 1}, {"openmp", 2}}};
}

TEST(CalibrationFile, RoundTripsEveryField) {
  using kbt::test::cost_model;
  const auto c = kbt::test::crafted_calibration(
      some_machine(), {cost_model("serial", 1.5e-3, 1.25e-8, 3.1e-9, 1.7e-9), cost_model("openmp", 4e-3, 7e-9, 1.5e-9, 0.1e-9)});
  const auto back = kbt::parse_calibration(kbt::format_calibration(c), "<mem>");
  EXPECT_EQ(back.format, 1);
  EXPECT_EQ(back.kbt_version, c.kbt_version);
  EXPECT_EQ(back.created_utc, c.created_utc);
  EXPECT_EQ(back.mode, c.mode);
  EXPECT_TRUE(kbt::identity_mismatches(back.machine, c.machine).empty());
  ASSERT_EQ(back.models.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.models[i].space, c.models[i].space);
    EXPECT_EQ(back.models[i].fixed_seconds, c.models[i].fixed_seconds);
    EXPECT_EQ(back.models[i].per_bar_combo_base, c.models[i].per_bar_combo_base);
    EXPECT_EQ(back.models[i].per_instruction, c.models[i].per_instruction);
    EXPECT_EQ(back.models[i].per_window_read, c.models[i].per_window_read);
    EXPECT_EQ(back.models[i].n_points, c.models[i].n_points);
  }
  ASSERT_EQ(back.points.size(), c.points.size());
  EXPECT_EQ(back.points[1].seconds, c.points[1].seconds);
  EXPECT_EQ(back.points[1].complexity.instructions, c.points[1].complexity.instructions);
  EXPECT_EQ(back.break_even[0].workload, c.break_even[0].workload);
  ASSERT_EQ(back.break_even.size(), c.break_even.size());
  ASSERT_FALSE(back.break_even.empty());
  EXPECT_EQ(back.break_even[0].combos.has_value(), c.break_even[0].combos.has_value());
  if (c.break_even[0].combos) EXPECT_EQ(*back.break_even[0].combos, *c.break_even[0].combos);
}

TEST(CalibrationFile, WriteAndReadBack) {
  const auto dir = kbt::test::fresh_dir("file_rw");
  const auto path = (dir / "sub" / "calibration.yaml").string();  // the directory is created
  const auto c = kbt::test::crafted_calibration(some_machine(), {kbt::test::cost_model("serial", 1e-3, 1e-8, 1e-9)});
  kbt::write_calibration_file(path, c);
  const auto back = kbt::read_calibration_file(path);
  ASSERT_NE(back.model("serial"), nullptr);
  EXPECT_EQ(back.model("serial")->per_bar_combo_base, 1e-8);
  EXPECT_EQ(back.model("cuda"), nullptr);
}

// The error for `text` names `file:line:` and says `what`.
void expect_error_at(const std::string& text, int line, const std::string& what) {
  const auto dir = kbt::test::fresh_dir("file_bad");
  const auto path = (dir / "bad.yaml").string();
  kbt::test::write_text(path, text);
  try {
    kbt::read_calibration_file(path);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format);
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path + ":" + std::to_string(line) + ":", 0), 0u) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

std::string good_text() {
  return kbt::format_calibration(
      kbt::test::crafted_calibration(some_machine(), {kbt::test::cost_model("serial", 1e-3, 1e-8, 1e-9)}));
}

// Replaces the first line containing `needle` with `line`; returns its 1-based number.
int replace_line(std::string& text, const std::string& needle, const std::string& line) {
  const auto at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  const auto begin = text.rfind('\n', at) + 1;
  const auto end = text.find('\n', at);
  text.replace(begin, end - begin, line);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(begin), '\n'));
}

TEST(CalibrationFile, BadFilesNameFileAndLine) {
  {
    std::string t = good_text();
    const int line = replace_line(t, "fixed_seconds:", "    fixed_seconds: -0.5");
    expect_error_at(t, line, "must not be negative");
  }
  {
    std::string t = good_text();
    const int line = replace_line(t, "per_bar_combo_base:", "    per_bar_combo_base: fast");
    expect_error_at(t, line, "finite number");
  }
  {
    std::string t = good_text();
    const int line = replace_line(t, "per_window_read:", "    per_window_reads: 1e-9");
    expect_error_at(t, line, "did you mean 'per_window_read'");
  }
  {
    std::string t = good_text();
    const int line = replace_line(t, "format:", "format: 7");
    expect_error_at(t, line, "unsupported calibration format 7");
  }
  {
    std::string t = good_text();
    const int line = replace_line(t, "  host:", "  host: a: b");
    expect_error_at(t, line, "YAML");
  }
  expect_error_at("format: 1\nspaces: {}\n", 1, "has no 'machine'");
  expect_error_at("- just\n- a list\n", 1, "must be a mapping");
}

TEST(CalibrationFile, MissingFileIsAnIoError) {
  try {
    kbt::read_calibration_file("/nonexistent/kbt/calibration.yaml");
    FAIL();
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kbt/calibration.yaml"), std::string::npos);
  }
}

TEST(CalibrationFile, IdentityMismatchesNameTheField) {
  auto a = some_machine(), b = some_machine();
  EXPECT_TRUE(kbt::identity_mismatches(a, b).empty());
  b.host = "host-b";
  b.spaces[1].concurrency = 8;
  const auto m = kbt::identity_mismatches(a, b);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_NE(m[0].find("host"), std::string::npos);
  EXPECT_NE(m[0].find("host-b"), std::string::npos);
  EXPECT_NE(m[1].find("openmp/8"), std::string::npos);
}

TEST(CalibrationFile, LocationFollowsOptionThenEnvThenXdgThenHome) {
  using kbt::test::ScopedEnv;
  ScopedEnv env("KBT_CALIBRATION", nullptr);
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "/x/cfg");
    EXPECT_EQ(kbt::default_calibration_path(), "/x/cfg/kbt/calibration.yaml");
    EXPECT_EQ(kbt::resolve_calibration_location("").source, "default");
    EXPECT_EQ(kbt::resolve_calibration_location("mine.yaml").path, "mine.yaml");
    ScopedEnv e("KBT_CALIBRATION", "/e/cal.yaml");
    EXPECT_EQ(kbt::resolve_calibration_location("").path, "/e/cal.yaml");
    EXPECT_EQ(kbt::resolve_calibration_location("").source, "KBT_CALIBRATION");
    EXPECT_EQ(kbt::resolve_calibration_location("mine.yaml").source, "--calibration");
  }
  ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
  ScopedEnv home("HOME", "/h/user");
  EXPECT_EQ(kbt::default_calibration_path(), "/h/user/.config/kbt/calibration.yaml");
}

}  // namespace
