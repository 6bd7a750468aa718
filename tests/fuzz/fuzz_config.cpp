// libFuzzer target: parse_run_config on arbitrary YAML text; when the config is
// valid, its strategy is compiled against a fixed schema as `kbt run` would.
// kbt::Error (config, grid, limit, language) is the expected answer.

#include <kbt/config/config_loader.hpp>
#include <kbt/lang/compiler.hpp>

#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kbt::DataSchema schema = [] {
    kbt::DataSchema s;
    s.symbols = {"AAA", "BBB", "CCC"};
    s.columns = {"open", "high", "low", "close", "volume", "funding_rate"};
    s.exo = {"vix"};
    return s;
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  kbt::fuzz::run_expecting_kbt_errors([&] {
    const kbt::RunConfig config = kbt::parse_run_config(text, "fuzz.yaml", "/nonexistent");
    (void)kbt::compile_strategy(config.strategy, schema);
  });
  return 0;
}
