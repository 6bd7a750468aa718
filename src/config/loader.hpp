#pragma once
// The run-config loader's shared declarations: the Loader class, whose value readers
// are in loader_values.cpp and whose sections are in config_loader.cpp and *_section.cpp.

#include <kbt/config/config_loader.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/core/source_text.hpp>

#include "config/yaml_document.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbt::detail {

std::string join(const std::vector<std::string>& items, const char* separator = ", ");

enum class Bound { any, non_negative, positive };

class Loader {
 public:
  // `any_job`: a labelling job is accepted too (else only sweeps).
  // `given`: what the caller supplies in memory (config_loader.hpp).
  Loader(const YamlDocument& doc, RunConfig& config, bool any_job = false, const CallerInputs& given = {})
      : doc_(doc), cfg_(config), any_job_(any_job), given_(given) {}

  void load(const std::string& base_dir);

 private:
  const YamlDocument& doc_;
  RunConfig& cfg_;
  bool any_job_ = false;
  CallerInputs given_;
  const YamlEntry* params_entry_ = nullptr;

  void note(const YamlEntry& e, const std::string& key);

  [[noreturn]] void bad(const YamlEntry& e, const std::string& what, const std::string& expected) const;
  [[noreturn]] void bad(const YAML::Node& n, const std::string& what, const std::string& expected) const;

  // ---- scalar values (loader_values.cpp) ----
  std::optional<double> as_number(const YAML::Node& n) const;
  double number_node(const YAML::Node& n, const std::string& what, Bound b) const;
  double number(const YamlEntry& e, const std::string& what, Bound b) const;
  std::optional<double> optional_number(const YamlEntry& e, const std::string& what, Bound b) const;
  std::int64_t integer(const YamlEntry& e, const std::string& what, std::int64_t min) const;
  bool boolean(const YamlEntry& e, const std::string& what) const;
  std::string choice(const YamlEntry& e, const std::string& what, const std::vector<std::string>& accepted) const;
  std::string text(const YamlEntry& e, const std::string& what, const std::string& expected) const;
  SourceText expression(const YAML::Node& n, const YamlEntry* owner, const std::string& what) const;
  SourceText expression(const YamlEntry& e, const std::string& what) const;
  void name_check(const YamlEntry& e, const std::string& what) const;

  // Ordered `name: expression` mapping (signals, scan sections).
  std::vector<std::pair<std::string, SourceText>> expression_map(const YamlEntry& e, const std::string& context) const;

  // A scoring-window point: bar index (integer >= 0) or ISO-8601 UTC timestamp.
  void time_point(const YamlEntry& e, const std::string& what, std::optional<std::int64_t>& bar,
                  std::optional<std::int64_t>& time_ns) const;

  // ---- sections ----
  // config_loader.cpp
  void data(const YamlEntry& e, const std::string& base_dir);
  void symbols(const YamlEntry& e);
  void job(const YamlEntry& e);
  // label_section.cpp: the `label` section of `job: label`
  void label(const YamlEntry& e);
  ParamSpec barrier_axis(const YamlEntry& e, Bound b, bool integer);
  // simulate_section.cpp: the `simulate` section of `job: simulate`
  void simulate(const YamlEntry& e, const std::string& base_dir);
  // strategy_section.cpp
  void strategy(const YamlEntry& e);
  void functions(const YamlEntry& e);
  void scans(const YamlEntry& e);
  // param_section.cpp
  void params(const YamlEntry& e);
  ParamSpec param(const YamlEntry& e) const;
  std::vector<double> value_list(const YamlEntry& owner, const YAML::Node& list, const std::string& what) const;
  void check_grid_size() const;
  // simulation_section.cpp
  void simulation(const YamlEntry& e);
  void fee_bps(const YamlEntry& e);
  // A setting that names a strategy param (docs/semantics.md "Swept settings"):
  // true with `param` set when `e` is a param's name whose every value meets `b`.
  bool swept_setting(const YamlEntry& e, const std::string& what, Bound b, std::string& param) const;
  // sweep_section.cpp
  void sweep(const YamlEntry& e);
  void objective(const YamlEntry& e);
  void sweep_metrics(const YamlEntry& e);
  // verify_section.cpp
  void verify(const YamlEntry& e);
  // validation_section.cpp
  void validation(const YamlEntry& e);
  void walk_forward(const YamlEntry& e);
  WindowLength window_length(const YamlEntry& e, const std::string& what) const;
  // output_section.cpp
  void output(const YamlEntry& e);
  void heatmap(const YamlEntry& e);
};

}  // namespace kbt::detail
