// The calibration file: YAML, one per machine (docs/calibration.md has the
// format). kbt wrote it and reads it back, so every problem in one is damage:
// a kbt::Error(data_format) naming file:line:col and the key.

#include <kbt/core/atomic_output.hpp>
#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/number_text.hpp"
#include "config/yaml_document.hpp"
#include "data/utf8.hpp"

namespace kbt {
namespace {

using detail::YamlDocument;
using detail::YamlEntry;

// Scalars are written in double quotes with YAML escapes where needed.
std::string yaml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

std::string num(double v) { return detail::format_number(v); }

class Reader {
 public:
  explicit Reader(const YamlDocument& doc) : doc_(doc) {}

  std::string text(const YamlEntry& e) const {
    if (!e.value.IsScalar()) doc_.fail(ErrorCategory::config, e, "'" + e.name + "' must be text (got " +
                                                                     detail::describe_value(e.value) + ")");
    return e.value.Scalar();
  }

  double number(const YamlEntry& e, bool non_negative) const {
    if (!e.value.IsScalar()) doc_.fail(ErrorCategory::config, e, "'" + e.name + "' must be a number (got " +
                                                                     detail::describe_value(e.value) + ")");
    const auto v = detail::parse_number(e.value.Scalar());
    if (!v) doc_.fail(ErrorCategory::config, e, "'" + e.name + "' must be a finite number (got '" + e.value.Scalar() + "')");
    if (non_negative && *v < 0)
      doc_.fail(ErrorCategory::config, e, "'" + e.name + "' must not be negative (got " + e.value.Scalar() + ")");
    return *v;
  }

  int integer(const YamlEntry& e) const {
    if (!e.value.IsScalar()) doc_.fail(ErrorCategory::config, e, "'" + e.name + "' must be an integer");
    const auto v = detail::parse_integer(e.value.Scalar());
    if (!v || *v < 0 || *v > (1 << 30))
      doc_.fail(ErrorCategory::config, e, "'" + e.name + "' must be a non-negative integer (got '" + e.value.Scalar() + "')");
    return static_cast<int>(*v);
  }

  const YAML::Node& list(const YamlEntry& e) const {
    if (!e.value.IsSequence())
      doc_.fail(ErrorCategory::config, e, "'" + e.name + "' must be a list (got " + detail::describe_value(e.value) + ")");
    return e.value;
  }

  std::vector<YamlEntry> map(const YamlEntry& e, const std::vector<std::string>& allowed) const {
    return doc_.entries(e, "'" + e.name + "'", allowed);
  }
  std::vector<YamlEntry> map(const YAML::Node& n, const std::string& context, const std::vector<std::string>& allowed) const {
    return doc_.entries(n, context, allowed);
  }

  // Every key of `required` must be present in `entries`.
  void require(const std::vector<YamlEntry>& entries, const YAML::Node& at, const std::string& context,
               const std::vector<std::string>& required) const {
    for (const auto& k : required)
      if (!detail::find_entry(entries, k)) doc_.fail(ErrorCategory::config, at, context + " has no '" + k + "'");
  }

  [[noreturn]] void fail(const YamlEntry& e, const std::string& message) const { doc_.fail(ErrorCategory::config, e, message); }

 private:
  const YamlDocument& doc_;
};

MachineIdentity read_machine(const Reader& r, const YamlEntry& e) {
  MachineIdentity id;
  const auto entries = r.map(e, {"host", "cpu", "gpu", "kokkos_version", "spaces"});
  for (const auto& f : entries) {
    if (f.name == "host") id.host = r.text(f);
    else if (f.name == "cpu") id.cpu = r.text(f);
    else if (f.name == "gpu") id.gpu = r.text(f);
    else if (f.name == "kokkos_version") id.kokkos_version = r.text(f);
    else if (f.name == "spaces") {
      for (const auto& item : r.list(f)) {
        const auto s = r.map(item, "an entry of 'machine.spaces'", {"name", "concurrency"});
        SpaceIdentity si;
        for (const auto& g : s) {
          if (g.name == "name") si.name = r.text(g);
          else si.concurrency = r.integer(g);
        }
        r.require(s, item, "an entry of 'machine.spaces'", {"name", "concurrency"});
        id.spaces.push_back(si);
      }
    }
  }
  r.require(entries, e.value, "'machine'", {"host", "cpu", "gpu", "kokkos_version", "spaces"});
  return id;
}

SpaceCostModel read_model(const Reader& r, const YamlEntry& e) {
  SpaceCostModel m;
  m.space = e.name;
  const std::vector<std::string> keys{"concurrency",     "fixed_seconds", "per_bar_combo_base",
                                      "per_instruction", "per_window_read", "points", "max_relative_residual"};
  const auto entries = r.map(e, keys);
  for (const auto& f : entries) {
    if (f.name == "concurrency") m.concurrency = r.integer(f);
    else if (f.name == "fixed_seconds") m.fixed_seconds = r.number(f, true);
    else if (f.name == "per_bar_combo_base") m.per_bar_combo_base = r.number(f, true);
    else if (f.name == "per_instruction") m.per_instruction = r.number(f, true);
    else if (f.name == "per_window_read") m.per_window_read = r.number(f, true);
    else if (f.name == "points") m.n_points = static_cast<std::size_t>(r.integer(f));
    else m.max_relative_residual = r.number(f, true);
  }
  r.require(entries, e.value, "space '" + e.name + "'",
            {"fixed_seconds", "per_bar_combo_base", "per_instruction", "per_window_read"});
  return m;
}

}  // namespace

std::string format_calibration(const Calibration& c) {
  std::ostringstream o;
  o << "# kbt calibration: a cost model per execution space, for `device: auto`.\n"
    << "# Written by `kbt calibrate`; the format is described in docs/calibration.md.\n"
    << "# seconds = fixed_seconds + (per_bar_combo_base + per_instruction * instructions\n"
    << "#                            + per_window_read * window_reads) * bars * combos\n";
  o << "format: " << c.format << "\n";
  o << "kbt_version: " << yaml_string(c.kbt_version) << "\n";
  o << "created: " << yaml_string(c.created_utc) << "\n";
  o << "mode: " << yaml_string(c.mode) << "\n";
  o << "machine:\n";
  o << "  host: " << yaml_string(c.machine.host) << "\n";
  o << "  cpu: " << yaml_string(c.machine.cpu) << "\n";
  o << "  gpu: " << yaml_string(c.machine.gpu) << "\n";
  o << "  kokkos_version: " << yaml_string(c.machine.kokkos_version) << "\n";
  o << "  spaces:" << (c.machine.spaces.empty() ? " []" : "") << "\n";
  for (const auto& s : c.machine.spaces)
    o << "    - {name: " << yaml_string(s.name) << ", concurrency: " << s.concurrency << "}\n";
  o << "spaces:" << (c.models.empty() ? " {}" : "") << "\n";
  for (const auto& m : c.models) {
    o << "  " << m.space << ":\n";
    o << "    concurrency: " << m.concurrency << "\n";
    o << "    fixed_seconds: " << num(m.fixed_seconds) << "\n";
    o << "    per_bar_combo_base: " << num(m.per_bar_combo_base) << "\n";
    o << "    per_instruction: " << num(m.per_instruction) << "\n";
    o << "    per_window_read: " << num(m.per_window_read) << "\n";
    o << "    points: " << m.n_points << "\n";
    o << "    max_relative_residual: " << num(m.max_relative_residual) << "\n";
  }
  o << "# combos from which `other` is predicted faster than `host` (never: not for any grid size)\n";
  o << "break_even:" << (c.break_even.empty() ? " []" : "") << "\n";
  for (const auto& b : c.break_even)
    o << "  - {host: " << b.host << ", other: " << b.other << ", workload: " << b.workload << ", bars: " << num(b.bars)
      << ", instructions: " << num(b.complexity.instructions) << ", window_reads: " << num(b.complexity.window_reads)
      << ", combos: " << (b.combos ? num(*b.combos) : std::string("never")) << "}\n";
  o << "points:" << (c.points.empty() ? " []" : "") << "\n";
  for (const auto& p : c.points)
    o << "  - {space: " << p.space << ", workload: " << p.workload << ", bars: " << num(p.bars)
      << ", combos: " << num(p.combos) << ", instructions: " << num(p.complexity.instructions)
      << ", window_reads: " << num(p.complexity.window_reads) << ", seconds: " << num(p.seconds) << "}\n";
  return o.str();
}

namespace {

Calibration parse_calibration_here(const std::string& yaml_text, const std::string& source_name) {
  const YamlDocument doc(yaml_text, source_name);
  const Reader r(doc);
  Calibration c;
  const std::vector<std::string> top{"format", "kbt_version", "created", "mode", "machine", "spaces", "break_even", "points"};
  const auto entries = doc.entries(doc.root(), "the calibration file", top);
  for (const auto& e : entries) {
    if (e.name == "format") {
      c.format = r.integer(e);
      if (c.format != 1) r.fail(e, "unsupported calibration format " + std::to_string(c.format) + " (this kbt reads format 1)");
    } else if (e.name == "kbt_version") c.kbt_version = r.text(e);
    else if (e.name == "created") c.created_utc = r.text(e);
    else if (e.name == "mode") c.mode = r.text(e);
    else if (e.name == "machine") c.machine = read_machine(r, e);
    else if (e.name == "spaces") {
      if (e.value.IsMap() && e.value.size() == 0) continue;
      for (const auto& s : r.map(e, {})) c.models.push_back(read_model(r, s));
    } else if (e.name == "break_even") {
      for (const auto& item : r.list(e)) {
        const auto f = r.map(item, "an entry of 'break_even'",
                             {"host", "other", "workload", "bars", "instructions", "window_reads", "combos"});
        BreakEven b;
        for (const auto& g : f) {
          if (g.name == "host") b.host = r.text(g);
          else if (g.name == "other") b.other = r.text(g);
          else if (g.name == "workload") b.workload = r.text(g);
          else if (g.name == "bars") b.bars = r.number(g, true);
          else if (g.name == "instructions") b.complexity.instructions = r.number(g, true);
          else if (g.name == "window_reads") b.complexity.window_reads = r.number(g, true);
          else if (g.value.IsScalar() && g.value.Scalar() == "never") b.combos.reset();
          else b.combos = r.number(g, true);
        }
        r.require(f, item, "an entry of 'break_even'", {"host", "other", "bars", "instructions", "window_reads", "combos"});
        c.break_even.push_back(b);
      }
    } else if (e.name == "points") {
      for (const auto& item : r.list(e)) {
        const auto f = r.map(item, "an entry of 'points'",
                             {"space", "workload", "bars", "combos", "instructions", "window_reads", "seconds"});
        TimingPoint p;
        for (const auto& g : f) {
          if (g.name == "space") p.space = r.text(g);
          else if (g.name == "workload") p.workload = r.text(g);
          else if (g.name == "bars") p.bars = r.number(g, true);
          else if (g.name == "combos") p.combos = r.number(g, true);
          else if (g.name == "instructions") p.complexity.instructions = r.number(g, true);
          else if (g.name == "window_reads") p.complexity.window_reads = r.number(g, true);
          else p.seconds = r.number(g, true);
        }
        r.require(f, item, "an entry of 'points'", {"space", "bars", "combos", "instructions", "window_reads", "seconds"});
        c.points.push_back(p);
      }
    }
  }
  r.require(entries, doc.root(), "the calibration file", {"format", "machine", "spaces"});
  return c;
}

// A calibration file of the largest ladder is a few tens of KiB; anything far
// bigger is not one (and is not read into memory whole).
constexpr std::uintmax_t kLargestCalibrationFile = 16u << 20;

}  // namespace

Calibration parse_calibration(const std::string& yaml_text, const std::string& source_name) {
  // YAML is UTF-8, and the file's text goes on into run profiles and Python
  // strings; yaml-cpp itself passes any byte through.
  if (const std::size_t bad = detail::first_non_utf8(yaml_text); bad != std::string::npos) {
    const std::size_t newline = bad == 0 ? std::string::npos : yaml_text.rfind('\n', bad - 1);
    const auto line = 1 + std::count(yaml_text.begin(), yaml_text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    const std::size_t column = newline == std::string::npos ? bad + 1 : bad - newline;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(yaml_text[bad]));
    throw Error(ErrorCategory::data_format, source_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                                                ": not UTF-8 text (byte " + byte + "): the file is damaged");
  }
  // The YAML document and the reader report config errors, as for a config;
  // here the same messages say that kbt's own file is damaged.
  try {
    return parse_calibration_here(yaml_text, source_name);
  } catch (const Error& e) {
    if (e.category() != ErrorCategory::config) throw;
    throw Error(ErrorCategory::data_format, e.what());
  }
}

Calibration read_calibration_file(const std::string& path) {
  // Not a regular file (/dev/zero, a FIFO) would be read without end.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorCategory::io, "cannot read calibration file '" + path + "': " +
                                       (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot read calibration file '" + path + "': " + ec.message());
  if (size > kLargestCalibrationFile)
    throw Error(ErrorCategory::data_format,
                path + ": " + std::to_string(size) +
                    " bytes, far more than a calibration file holds: not one kbt wrote, or damaged");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCategory::io, "cannot read calibration file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorCategory::io, "cannot read calibration file '" + path + "'");
  return parse_calibration(text.str(), path);
}

void write_calibration_file(const std::string& path, const Calibration& calibration) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) throw Error(ErrorCategory::io, "cannot create directory '" + p.parent_path().string() + "': " + ec.message());
  }
  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary | std::ios::trunc);
    if (!f) throw Error(ErrorCategory::io, "cannot write calibration file '" + path + "'");
    f << format_calibration(calibration);
    f.flush();
    if (!f) throw Error(ErrorCategory::io, "cannot write calibration file '" + path + "'");
  }
  out.commit();
}

}  // namespace kbt
