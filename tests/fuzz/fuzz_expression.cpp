// libFuzzer target: one strategy expression, parsed and compiled against a fixed
// schema and parameter set, then evaluated by the reference evaluator on a tiny
// data set. kbt::Error (language, limit) is the expected answer to bad text.

#include <kbt/lang/compiler.hpp>
#include <kbt/lang/parser.hpp>
#include <kbt/reference/evaluator.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

namespace {

kbt::ParamSpec param(const char* name, std::vector<double> values, bool is_integer) {
  kbt::ParamSpec p;
  p.name = name;
  p.values = std::move(values);
  p.is_integer = is_integer;
  p.origin = {name, "fuzz.yaml", 1, 1};
  return p;
}

// 3 symbols x 48 hourly bars with a few NaN gaps; enough for windows, scans,
// cross-sectional ops and htf buckets to do real work.
kbt::BarData tiny_data() {
  kbt::BarData d;
  const std::size_t n = 48;
  d.symbols = {"AAA", "BBB", "CCC"};
  for (std::size_t b = 0; b < n; ++b)
    d.timestamps.push_back(1609459200LL * 1000000000LL + static_cast<std::int64_t>(b) * 3600LL * 1000000000LL);
  for (const char* col : {"open", "high", "low", "close", "volume", "funding_rate"}) {
    auto& v = d.columns[col];
    for (std::size_t s = 0; s < d.symbols.size(); ++s)
      for (std::size_t b = 0; b < n; ++b) {
        const double base = 100.0 + 10.0 * static_cast<double>(s) + std::sin(0.3 * static_cast<double>(b) + static_cast<double>(s));
        v.push_back(col[0] == 'v' ? 1000.0 + static_cast<double>(b) : col[0] == 'f' ? 1e-4 : base);
      }
    v[5] = std::nan("");  // a gap in AAA
  }
  auto& vix = d.exo["vix"];
  for (std::size_t b = 0; b < n; ++b) vix.push_back(b < 3 ? std::nan("") : 20.0 + static_cast<double>(b % 7));
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kbt::BarData bars = tiny_data();
  static const kbt::DataSchema schema = kbt::schema_of(bars);
  static const std::vector<kbt::ParamSpec> params = {
      param("fast", {5, 10}, true), param("slow", {20, 50}, true), param("k", {1.5, 2.5}, false)};

  kbt::SourceText source;
  source.text.assign(reinterpret_cast<const char*>(data), size);
  source.file = "fuzz.yaml";
  source.line = 3;
  source.column = 7;
  kbt::fuzz::run_expecting_kbt_errors([&] {
    const kbt::Program program = kbt::compile_expression(source, schema, params);
    const double values[] = {5, 20, 1.5};
    (void)kbt::evaluate_expression_reference(program, bars, values);
  });
  return 0;
}
